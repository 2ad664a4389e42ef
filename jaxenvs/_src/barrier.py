"""``materialize``: a value computed in full before anything uses it, where that matters.

On the fast path (``gate``) a batched value goes through a loop that XLA:CPU cannot fuse
into its consumers, so a random draw that decides many selects over the state is computed
once, not once per select (``cpu_kernels.barrier``). Elsewhere (the plain form, what a GPU
runs) ``materialize`` is the value itself, and ``materialize_everywhere`` the same loop
(``fence.through_a_loop``), for the few values whose recomputation inside wide selects costs
the plain form too (``docs/vmap-form.md``).
"""

from __future__ import annotations

from typing import TypeVar

import jax

from jaxenvs._src import gate
from jaxenvs._src.fence import through_a_loop

T = TypeVar("T")


def materialize(tree: T, counter: jax.Array) -> T:
    """``tree`` unchanged; on the fast path, batched, computed in full before any use.
    ``counter``: any int32 scalar known only at run time (a turn or decision count)."""
    kernels = gate.kernels()
    if kernels is None:
        return tree
    return kernels.barrier.materialize(tree, counter)


def materialize_everywhere(tree: T, counter: jax.Array) -> T:
    """``materialize``, and in the plain form too (``fence.through_a_loop``): for a value that
    many wide selects read there as well, such as a game step's result. Each is a loop in the
    compiled program, which a GPU runs as a kernel launch and a read of its predicate, so it
    is kept to the few places where it pays (``docs/vmap-form.md``)."""
    kernels = gate.kernels()
    if kernels is None:
        return through_a_loop(tree, counter)
    return kernels.barrier.materialize(tree, counter)
