"""A uniformly random legal action for each of a batch of action masks, in whole-batch vector
operations: the bench's random player (``bench.random_actions``); and the ``n``-th legal action
of one mask in a few word operations, where an env steps alone (TCGJax's random opponent,
``tcgjax.observe.random_action``).

Picking the ``n``-th legal action of one mask takes a prefix count over the actions, which for
a ``[batch, actions]`` mask runs along its minor axis: XLA:CPU emits such reductions and scans
as a scalar loop per env, and a prefix sum in the row layout (``lax.associative_scan``) as
strided slices. Here the mask is read as 32-bit words of four one-byte entries and turned
batch-minor (``[words, batch]``, a quarter of the entries to move), so that every operation
after the transpose is a plain vector operation over the batch:

- one multiplication per word, ``word * 0x01010101``, counts the legal actions among bytes
  ``0..k`` of the word in its byte ``k`` (each at most 4, so no byte carries into the next);
  its top byte is the word's count (entry ``k`` of a word is its byte ``k``, counted from the
  lowest: XLA's bitcast on little-endian hosts, CPUs and GPUs alike);
- the legal actions before each word, and the total, are a running sum over the words;
- ``n`` is drawn below the total from 64 random bits (``below``);
- the word holding the ``n``-th legal action is the one whose range of counts contains ``n``,
  and its byte is found by comparing the word's four prefix counts with what is left of ``n``.

For TCGJax's 68 actions this is several times cheaper than the prefix sum in the row layout
with ``jax.random.randint`` (``docs/game-engines-on-cpu.md``, "The observation and the legal
draw").

One mask alone (``legal_words`` and ``nth`` of a mask with no batch axis, the words a short
vector) takes the same steps: TCGJax's random opponent, env by env, draws and picks its action
this way rather than by ``jnp.sum`` of its mask (a scalar loop over the 68 entries) and a walk
over the actions to the ``n``-th, which cost more.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

U32 = jnp.uint32
#: Entries in a 32-bit word of one-byte mask entries.
BYTES_PER_WORD = 4


def mulhi(x: jax.Array, c: jax.Array) -> jax.Array:
    """``floor(x * c / 2**32)`` for uint32 ``x`` and ``c < 2**16``, in 32-bit arithmetic: with
    ``x = a * 2**16 + b``, ``floor((a * c + floor(b * c / 2**16)) / 2**16)``, no term
    overflowing 32 bits."""
    return ((x >> 16) * c + (((x & 0xFFFF) * c) >> 16)) >> 16


def below(words: jax.Array, count: jax.Array) -> jax.Array:
    """uint32 ``floor(w * count / 2**64)``, in ``0..count-1``, of the 64-bit number
    ``w = hi * 2**32 + lo`` made of ``words[..., 0], words[..., 1]``: uniform for uniform
    ``w`` up to a bias below ``count / 2**64`` (``1 <= count < 2**16``). It is
    ``floor((hi * count + floor(lo * count / 2**32)) / 2**32)``: the high word of ``hi * count``
    plus the carry of that sum's low word."""
    hi, lo = words[..., 0], words[..., 1]
    count = count.astype(U32)
    low_word = hi * count
    carry = (low_word + mulhi(lo, count) < low_word).astype(U32)
    return mulhi(hi, count) + carry


class LegalWords(NamedTuple):
    """A batch of masks' legal actions counted word by word (``legal_words``), the words on
    the leading axis (``[words, *batch]``)."""

    prefix: jax.Array
    """uint32: byte ``k`` of a word, the legal actions among its bytes ``0..k``."""
    before: jax.Array
    """uint32: the legal actions in the words before it."""
    total: jax.Array
    """uint32[*batch]: the legal actions of each mask."""


def legal_words(mask: jax.Array) -> LegalWords:
    """The legal actions of boolean masks ``[*batch, actions]`` (any batch shape, none for
    one mask), counted as the module docstring says."""
    num_actions = mask.shape[-1]
    if num_actions >= 2**16:
        raise ValueError(f"at most 2**16 - 1 actions, got {num_actions}")
    padded = jnp.pad(mask, [(0, 0)] * (mask.ndim - 1) + [(0, -num_actions % BYTES_PER_WORD)])
    entries = padded.astype(jnp.uint8).reshape(mask.shape[:-1] + (-1, BYTES_PER_WORD))
    per_word = jnp.moveaxis(jax.lax.bitcast_convert_type(entries, U32), -1, 0)
    prefix = per_word * U32(0x01010101)
    before, total = [], jnp.zeros(mask.shape[:-1], U32)
    for count in prefix >> 24:
        before.append(total)
        total = total + count
    return LegalWords(prefix, jnp.stack(before), total)


def nth(legal: LegalWords, n: jax.Array) -> jax.Array:
    """int32[*batch]: the ``n``-th (0-based) legal action of each mask, in ascending order; 0
    where it has ``n`` or fewer legal actions."""
    n = jnp.asarray(n).astype(U32)
    holds = (legal.before <= n) & (n < legal.before + (legal.prefix >> 24))  # one word or none
    left = n - legal.before
    passed = sum((((legal.prefix >> (8 * k)) & 0xFF) <= left).astype(U32)
                 for k in range(BYTES_PER_WORD))
    first = jnp.arange(legal.prefix.shape[0], dtype=U32) * BYTES_PER_WORD
    index = first.reshape((-1,) + (1,) * n.ndim) + passed
    return jnp.sum(jnp.where(holds, index, 0), axis=0).astype(jnp.int32)


def uniform_legal(words: jax.Array, mask: jax.Array) -> jax.Array:
    """int32[batch]: for each row of the boolean ``mask`` ``[batch, actions]``, its
    ``below(words[i], #legal)``-th legal action in ascending order (0 where none is legal),
    from two random uint32 words per row, ``words`` ``[batch, 2]`` (module docstring)."""
    legal = legal_words(mask)
    return nth(legal, below(words, jnp.maximum(legal.total, 1)))
