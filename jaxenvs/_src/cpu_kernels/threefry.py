"""``UNROLLED``: JAX's default PRNG, ``threefry2x32``, with its hash unrolled.

JAX lowers the Threefry-2x32 hash on a CPU as a loop of 5 steps, one loop per random call
(a rolled loop keeps the compile short). With dozens of calls per game step, those loops'
overhead dominates a game's step at small batch sizes; and inside an XLA:CPU kernel
(``kernel``) XLA turns each such small loop into a call of its own, which its emitter
rejects ("All or none of the slices should have an explicit index"). ``UNROLLED``
is the same generator with the 20 rounds written out: the same key data give the same
answers from every ``jax.random`` function (the partitionable threefry that JAX uses by
default; ``tests/test_threefry.py`` checks). Outside the kernels it also compiles faster at
small batch sizes, where LLVM blows each rolled loop up (``unrolled_on_cpu``), and runs as
fast: HalfCheetah's step and the bench's harness draw with it on a CPU.
"""

from __future__ import annotations

import jax
import jax.extend.random
import jax.numpy as jnp
import numpy as np


def _threefry(k1, k2, x1, x2):
    """The Threefry-2x32 hash (20 rounds) of key ``(k1, k2)`` and counts ``(x1, x2)``."""
    ks = (k1, k2, k1 ^ k2 ^ np.uint32(0x1BD11BDA))
    x1, x2 = x1 + ks[0], x2 + ks[1]
    for i in range(5):
        for r in ((13, 15, 26, 6), (17, 29, 16, 24))[i % 2]:
            x1 = x1 + x2
            x2 = x1 ^ ((x2 << np.uint32(r)) | (x2 >> np.uint32(32 - r)))
        x1 = x1 + ks[(i + 1) % 3]
        x2 = x2 + ks[(i + 2) % 3] + np.uint32(i + 1)
    return x1, x2


def _counts(shape):
    """The low 32 bits of a row-major iota of ``shape`` (the high ones are 0 here)."""
    size = int(np.prod(shape))
    assert size < 2**32
    return jnp.arange(size, dtype=jnp.uint32).reshape(shape)


def _split(key, shape):
    b1, b2 = _threefry(key[0], key[1], jnp.zeros(shape, jnp.uint32), _counts(shape))
    return jnp.stack([b1, b2], axis=-1)


def _fold_in(key, data):
    b1, b2 = _threefry(key[0], key[1], jnp.uint32(0), jnp.asarray(data).astype(jnp.uint32))
    return jnp.stack([b1, b2])


def _random_bits(key, bit_width, shape):
    """JAX's partitionable threefry bits: a 64-bit word is the hash's two halves, high then
    low; a narrower one, their exclusive or, truncated."""
    b1, b2 = _threefry(key[0], key[1], jnp.zeros(shape, jnp.uint32), _counts(shape))
    if bit_width == 64:
        return (b1.astype(jnp.uint64) << np.uint64(32)) | b2.astype(jnp.uint64)
    return (b1 ^ b2).astype(f"uint{bit_width}")


UNROLLED = jax.extend.random.define_prng_impl(
    key_shape=(2,), seed=jax.extend.random.threefry_prng_impl.seed, split=_split,
    random_bits=_random_bits, fold_in=_fold_in, name="threefry2x32_unrolled",
    tag="fry_unrolled")


def fast_key(key):
    """A ``threefry2x32`` key (typed) as the same key of ``UNROLLED``."""
    return jax.random.wrap_key_data(jax.random.key_data(key), impl=UNROLLED)


def unrolled_on_cpu(key):
    """``key`` as the same key of ``UNROLLED`` where ``key`` is of JAX's default threefry;
    unchanged otherwise.

    On a CPU, JAX's threefry lowers to a rolled loop that XLA:CPU compiles slowly at small
    batch sizes, where LLVM blows each such loop's code up many times over
    (``docs/halfcheetah.md``, "Compile time")."""
    if is_threefry(key):
        return fast_key(key)
    return key


def is_threefry(key) -> bool:
    """Whether ``key`` (a typed key array or tracer) is of JAX's default ``threefry2x32``, in
    the partitionable form that ``UNROLLED`` computes (JAX's default)."""
    return (str(jax.random.key_impl(key)) == "threefry2x32"
            and bool(jax.config.jax_threefry_partitionable))
