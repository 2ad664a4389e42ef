"""``materialize``: a value computed in full before anything uses it, where that matters.

On the fast path (``gate``) a batched value goes through a loop that XLA:CPU cannot fuse
into its consumers, so a random draw that decides many selects over the state is computed
once, not once per select (``cpu_kernels.barrier``). Elsewhere it is the value itself.
"""

from __future__ import annotations

from typing import TypeVar

import jax

from jaxenvs._src import gate

T = TypeVar("T")


def materialize(tree: T, counter: jax.Array) -> T:
    """``tree`` unchanged; on the fast path, batched, computed in full before any use.
    ``counter``: any int32 scalar known only at run time (a turn or decision count)."""
    kernels = gate.kernels()
    if kernels is None:
        return tree
    return kernels.barrier.materialize(tree, counter)
