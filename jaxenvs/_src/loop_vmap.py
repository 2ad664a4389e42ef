"""``loop_vmap``: a function whose batched form, on the fast path, steps each element in turn.

On the fast path (``gate``) the ``vmap`` of ``loop_vmap(fun)`` is a loop over the batch in one
XLA:CPU kernel, each element running ``fun`` as alone, its branches real branches
(``cpu_kernels.loop_vmap``). Elsewhere it is ``fun``, which ``vmap`` batches as usual; the
results are the same.
"""

from __future__ import annotations

from typing import Callable, Mapping, TypeVar

from jaxenvs._src import gate

F = TypeVar("F", bound=Callable)


def loop_vmap(fun: F, updates: Mapping[int, int] | None = None, rows: bool = False) -> F:
    """``fun`` (positional pytree arguments, a pytree result), looped over a batch on the fast
    path. ``updates`` (``{result index: argument index}``, a result that is that argument
    updated, written in its place) and ``rows`` (results written as rows) shape the loop's
    writes; see ``cpu_kernels.loop_vmap``."""
    return gate.fast_or_plain(
        fun, lambda kernels: kernels.loop_vmap.loop_vmap(fun, updates, rows))
