"""``custom_vmap``: a function with its own batching rule.

On the fast path (``gate``) it is ``cpu_kernels.lazy_vmap.custom_vmap``, which traces the
unbatched form only where it is used unbatched (a shorter first compile); elsewhere it is
JAX's public ``jax.custom_batching.custom_vmap``. The two give the same results.
"""

from __future__ import annotations

from typing import Callable

import jax

from jaxenvs._src import gate


def custom_vmap(fun: Callable, rule: Callable, out_shapes: Callable) -> Callable:
    """``fun`` (positional pytree arguments, a pytree result) batched by ``rule(axis_size,
    in_batched, *args)``, which gets the batched arguments with their batch axis first and
    ``in_batched`` (a tuple of pytrees of bools, one per argument) and returns ``(result,
    out_batched)``. ``out_shapes(*args)``: the unbatched result's ``jax.ShapeDtypeStruct``s.
    ``fun`` and ``rule`` take every traced value they use as an argument. Not
    differentiable."""
    plain = jax.custom_batching.custom_vmap(fun)
    plain.def_vmap(lambda axis_size, in_batched, *args: rule(axis_size, tuple(in_batched), *args))
    return gate.fast_or_plain(
        plain, lambda kernels: kernels.lazy_vmap.custom_vmap(fun, rule, out_shapes))
