"""``materialize``: a value computed in full before anything uses it, where that matters.

On the fast path (``gate``) a batched value goes through a loop that XLA:CPU cannot fuse
into its consumers, so a random draw that decides many selects over the state is computed
once, not once per select (``cpu_kernels.barrier``). Elsewhere (the plain form, what a GPU
runs) it is the same loop (``fence.through_a_loop``): the plain form recomputed such chains
inside every wide select too (``docs/vmap-form.md``).
"""

from __future__ import annotations

from typing import TypeVar

import jax

from jaxenvs._src import gate
from jaxenvs._src.fence import through_a_loop

T = TypeVar("T")


def materialize(tree: T, counter: jax.Array) -> T:
    """``tree`` unchanged, computed in full before any use (on the fast path: where batched).
    ``counter``: any int32 scalar known only at run time (a turn or decision count)."""
    kernels = gate.kernels()
    if kernels is None:
        return through_a_loop(tree, counter)
    return kernels.barrier.materialize(tree, counter)
