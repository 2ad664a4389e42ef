"""Random keys drawn faster on the fast path, with the same bits.

On the fast path (``gate``) a key of JAX's default ``threefry2x32`` becomes the same key of
``cpu_kernels.threefry.UNROLLED``, the same generator with its hash unrolled: every
``jax.random`` function gives the same answers, with a shorter compile and no loop per draw.
Elsewhere each function returns its key unchanged.
"""

from __future__ import annotations

import jax

from jaxenvs._src import gate


def fast_key(key: jax.Array) -> jax.Array:
    """A typed ``threefry2x32`` key as the same key drawn unrolled on the fast path."""
    kernels = gate.kernels()
    return key if kernels is None else kernels.threefry.fast_key(key)


def unrolled_on_cpu(key: jax.Array) -> jax.Array:
    """``fast_key(key)`` where ``key`` is of JAX's default threefry; else ``key``."""
    kernels = gate.kernels()
    return key if kernels is None else kernels.threefry.unrolled_on_cpu(key)


def like(key: jax.Array, kind: jax.Array) -> jax.Array:
    """``key``'s data as a key of ``kind``'s sort: typed with its implementation, or raw
    ``uint32`` data if ``kind`` is (undoes ``unrolled_on_cpu`` for a loop's carry)."""
    data = jax.random.key_data(key)
    if jax.numpy.issubdtype(kind.dtype, jax.dtypes.prng_key):
        return jax.random.wrap_key_data(data, impl=jax.random.key_impl(kind))
    return data
