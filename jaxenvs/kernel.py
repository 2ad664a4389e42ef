"""``one_kernel``: a function that XLA:CPU compiles into a single kernel.

XLA:CPU runs a compiled program as a graph of thunks, one per fused operation, each dispatched
by its runtime. A program of many small operations on small arrays spends most of its time
there: one HalfCheetah physics step is some 230 fused operations, and at a batch of one env
the runtime's dispatching took about half of the step's time (``perf``: 40% of the executing
thread in ``ThunkExecutor`` and its thread pool, against 50% in the kernels themselves).

XLA:CPU can instead compile a called computation into one function, whose operations follow
one another as plain code: the "small call", a ``call`` carrying the frontend attribute
``xla_cpu_small_call`` (XLA's ``SmallWhileLoopHoistingPass`` makes such calls of small
loops; its ``ThunkEmitter`` emits any such call with its legacy whole-computation emitter).
``one_kernel(fun)`` is ``fun`` traced as such a call, marked ``inlineable=false`` too so that
XLA's call inliner keeps it, on a CPU backend; on any other backend it is ``fun`` itself. The
attributes go on that call alone (``set_xla_metadata`` on its results), not on the operations
inside it: the functions JAX itself jits (``jnp.where``, ``jnp.clip``...) must stay inlinable
for XLA to fuse them with the rest (marked, they stayed calls of their own).

What goes in one kernel is a choice about compile time as well as speed: LLVM optimises one
function at a time, on one thread, and its cost grows faster than the function's length.
Measured on the HalfCheetah physics step at batch 1 (2 cores, same session): as XLA's fused
operations, 6.1k env steps/s and a 5.0 s XLA compile; the whole step as one kernel (by a
first form of this wrapper, which also marked the calls inside), 12.6k and 9.6 s; as four
(``halfcheetah.integrator``: dynamics, collision, the solver's Newton loop, integration),
17.6k and 3.2 s.

A kernel must not contain what that emitter does not implement: scatters that XLA keeps as
scatters (``x.at[i].set`` under ``vmap``), sorts, custom calls (LAPACK's, for instance),
collectives. The compile then fails (``UNIMPLEMENTED``, or missing runtime symbols), so a
mistake shows at once. Where a kernel is called from matters too: called from the body of a
vmapped ``while_loop``, jaxlib 0.10.2's emitter aborted the process on a failed check, so
``rounds.while_loop`` puts a loop in a kernel whole rather than its body.
"""

from __future__ import annotations

import functools
from typing import Callable, TypeVar

import jax
from jax.experimental.xla_metadata import set_xla_metadata

F = TypeVar("F", bound=Callable)

#: The frontend attributes of a kernel's ``call``.
ATTRIBUTES = {"xla_cpu_small_call": "true", "inlineable": "false"}


def one_kernel(fun: F) -> F:
    """``fun`` (array arguments and results), compiled by XLA:CPU as one kernel (module
    docstring); unchanged on other backends. Works under ``vmap``, ``jit`` and control flow.

    Every result must be computed inside ``fun``: the attributes are attached to the
    operation that produces each result, which for an argument passed straight through
    would be whatever produced that argument."""
    jitted = jax.jit(fun)

    @functools.wraps(fun)
    def call(*args):
        if jax.default_backend() != "cpu":
            return fun(*args)
        return set_xla_metadata(jitted(*args), **ATTRIBUTES)

    return call
