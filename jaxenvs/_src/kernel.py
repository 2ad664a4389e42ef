"""``one_kernel``: a function compiled, on the fast path, as a single XLA:CPU kernel.

On the fast path (``gate``) XLA:CPU compiles ``fun`` into one function whose operations follow
one another as plain code, without its runtime's dispatch per operation
(``cpu_kernels.kernel``); elsewhere it is ``fun``.
"""

from __future__ import annotations

from typing import Callable, TypeVar

from jaxenvs._src import gate

F = TypeVar("F", bound=Callable)


def one_kernel(fun: F) -> F:
    """``fun`` (array arguments and results), one kernel on the fast path. Every result must
    be computed inside ``fun``, and ``fun`` must hold nothing the kernel emitter lacks (custom
    calls, collectives; see ``cpu_kernels.kernel``)."""
    return gate.fast_or_plain(fun, lambda kernels: kernels.kernel.one_kernel(fun))
