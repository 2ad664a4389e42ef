"""Showdown's Gen 5 LCG in JAX, with 32-bit unsigned arithmetic only (no x64).

The state is 64 bits, kept as ``uint32[..., 2]`` = (hi, lo); Showdown's seed of four 16-bit
words ``[a, b, c, d]`` (most significant first) is hi = (a << 16) | b, lo = (c << 16) | d.
Each step sets s = s * 0x5D588B656C078965 + 0x269EC3 (mod 2**64) and outputs the new hi word.
The 64-bit product needs only its low 64 bits: with s = hi * 2**32 + lo and the multiplier
M = MH * 2**32 + ML, the new low word is lo * ML (mod 2**32) and the new high word is
hi * ML + lo * MH + the high word of lo * ML (mod 2**32), plus the increment's carry. uint32
products wrap mod 2**32, so only that one high word is done on 16-bit limbs (``_mulhi``).

Every function takes the state first and returns the advanced state first, and draws exactly
as many outputs as Showdown's method of the same name (``sim/prng.ts``):

* ``random(s, n)``: floor(r * n / 2**32), an integer in [0, n);
* ``random(s, m, n)``: m + floor(r * (n - m) / 2**32);
* ``random_chance(s, a, b)``: ``random(b) < a``;
* ``sample(s, length)``: the index ``random(length)`` (the caller picks the item);
* ``shuffle(s, items, start, end)``: Fisher-Yates from ``start``: for i in [start, end - 2],
  swap i with ``random(i, end)``; ``start``/``end`` may be traced (one output per swap step).

Arguments may be Python ints or int arrays; results are ``uint32`` (``random_chance``: bool).
Showdown floors non-integer bounds first; callers pass integers.

The step is written in ``lax`` operations, not NumPy-style operators: the rules draw at about
150 sites, and each NumPy-style operation costs several times a ``lax`` one to trace.
"""

from __future__ import annotations

from typing import Sequence

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

#: The multiplier's high and low 32-bit words, and the increment.
_MULT_HI, _MULT_LO = 0x5D588B65, 0x6C078965
_INC = 0x269EC3


def seed(words: Sequence[int]) -> jax.Array:
    """The LCG state ``uint32[2]`` for Showdown's seed of four 16-bit words."""
    a, b, c, d = (int(w) for w in words)
    if not all(0 <= w < 1 << 16 for w in (a, b, c, d)):
        raise ValueError(f"seed words must be in [0, 65536), got {list(words)}")
    return jnp.array([(a << 16) | b, (c << 16) | d], dtype=jnp.uint32)


def seed_from_words(words: jax.Array) -> jax.Array:
    """Like ``seed`` for a (traced) ``int[..., 4]`` array of 16-bit words."""
    w = jnp.asarray(words).astype(jnp.uint32)
    return jnp.stack([(w[..., 0] << 16) | w[..., 1], (w[..., 2] << 16) | w[..., 3]], axis=-1)


def to_words(state: jax.Array) -> jax.Array:
    """The state as Showdown's four 16-bit words (``prng.getSeed()``), ``uint32[..., 4]``."""
    (hi_low, hi_high), (lo_low, lo_high) = (_halves(jnp.asarray(state)[..., i]) for i in (0, 1))
    return jnp.stack([hi_high, hi_low, lo_high, lo_low], axis=-1)


def next(state: jax.Array) -> tuple[jax.Array, jax.Array]:
    """One LCG step: (new state, the raw 32-bit output = the new high word)."""
    hi, lo = (lax.index_in_dim(state, i, state.ndim - 1, keepdims=False) for i in (0, 1))
    low_product = lax.mul(lo, _u32(_MULT_LO))
    new_lo = lax.add(low_product, _u32(_INC))
    carry = lax.convert_element_type(lax.lt(new_lo, low_product), jnp.uint32)
    new_hi = _sum(lax.mul(hi, _u32(_MULT_LO)), lax.mul(lo, _u32(_MULT_HI)),
                  _mulhi(lo, _MULT_LO), carry)
    return jnp.stack([new_hi, new_lo], axis=-1), new_hi


def _mulhi(a: jax.Array, b) -> jax.Array:
    """floor(a * b / 2**32) for uint32 ``a``, ``b``: the high word of the 64-bit product."""
    a0, a1 = _halves(a)
    b0, b1 = _halves(b)
    lo_lo = lax.mul(a0, _u32(b0))
    mid1 = lax.mul(a1, _u32(b0))
    mid2 = lax.mul(a0, _u32(b1))
    # bits 16..47 of the product: (lo_lo >> 16) + mid1 + mid2, split to avoid overflow
    mid = _sum(_halves(lo_lo)[1], _halves(mid1)[0], _halves(mid2)[0])
    return _sum(lax.mul(a1, _u32(b1)), _halves(mid1)[1], _halves(mid2)[1], _halves(mid)[1])


def _halves(x):
    """The low and high 16 bits of a uint32 (Python ints stay Python ints)."""
    if isinstance(x, (int, np.integer)):
        x = int(x) % 2**32
        return x & 0xFFFF, x >> 16
    return lax.bitwise_and(x, _u32(0xFFFF)), lax.shift_right_logical(x, _u32(16))


def _sum(*terms: jax.Array) -> jax.Array:
    total = terms[0]
    for term in terms[1:]:
        total = lax.add(total, term)
    return total


def _u32(x):
    """``x`` as uint32: a NumPy scalar for a Python int (a constant), else an array."""
    if isinstance(x, (int, np.integer)):
        return np.uint32(int(x) % 2**32)
    return jnp.asarray(x).astype(jnp.uint32)


def random(state: jax.Array, m, n=None) -> tuple[jax.Array, jax.Array]:
    """``random(m)`` in [0, m), or ``random(m, n)`` in [m, n); one output either way."""
    state, r = next(state)
    if n is None:
        return state, _mulhi(r, _u32(m))
    if isinstance(m, (int, np.integer)) and isinstance(n, (int, np.integer)):
        return state, lax.add(_u32(m), _mulhi(r, int(n) - int(m)))
    m = _u32(m)
    return state, lax.add(m, _mulhi(r, lax.sub(_u32(n), m)))


def random_chance(state: jax.Array, numerator, denominator) -> tuple[jax.Array, jax.Array]:
    """True with probability numerator / denominator: ``random(denominator) < numerator``."""
    state, r = random(state, denominator)
    return state, r < _u32(numerator)


def sample(state: jax.Array, length) -> tuple[jax.Array, jax.Array]:
    """The index Showdown's ``sample`` picks from a list of ``length`` items."""
    return random(state, length)


def shuffle(state: jax.Array, items: jax.Array, start=0, end=None
            ) -> tuple[jax.Array, jax.Array]:
    """Showdown's in-place Fisher-Yates on ``items[start:end]`` (along the last axis).

    ``items`` has a static length L; ``start`` and ``end`` (default L) may be traced. Draws
    ``max(end - start - 1, 0)`` outputs.
    """
    length = items.shape[-1]
    start = jnp.asarray(start, jnp.int32)
    end = jnp.asarray(length if end is None else end, jnp.int32)

    def body(i, carry):
        state, items = carry
        active = (i >= start) & (i < end - 1)
        new_state, j = random(state, i, end)
        j = jnp.where(active, j.astype(jnp.int32), i)
        a, b = items[..., i], jnp.take(items, j, axis=-1)
        items = items.at[..., i].set(b)
        items = items.at[..., j].set(a)
        return jnp.where(active, new_state, state), items

    return jax.lax.fori_loop(0, length, body, (state, items))
