"""``one_kernel``: a function that XLA:CPU compiles into a single kernel.

XLA:CPU runs a compiled program as a graph of thunks, one per fused operation, each dispatched
by its runtime. A program of many small operations on small arrays spends most of its time
there: one HalfCheetah physics step is hundreds of fused operations, and at a batch of one env
the runtime's dispatching took about as much of the step's time as the kernels themselves
(``docs/halfcheetah.md``, "What bounds the speed").

XLA:CPU can instead compile a called computation into one function, whose operations follow
one another as plain code: the "small call", a ``call`` carrying the frontend attribute
``xla_cpu_small_call`` (XLA's ``SmallWhileLoopHoistingPass`` makes such calls of small
loops; its ``ThunkEmitter`` emits any such call with its legacy whole-computation emitter).
``one_kernel(fun)`` is ``fun`` traced as such a call, marked ``inlineable=false`` too so that
XLA's call inliner keeps it. The
attributes go on that call alone (``set_xla_metadata`` on its results), not on the operations
inside it: the functions JAX itself jits (``jnp.where``, ``jnp.clip``...) must stay inlinable
for XLA to fuse them with the rest (marked, they stayed calls of their own).

What goes in one kernel is a choice about compile time as well as speed: LLVM optimises one
function at a time, on one thread, and its cost grows faster than the function's length. So
HalfCheetah's physics step runs as four kernels (``halfcheetah.integrator``: dynamics,
collision, the solver's Newton loop, integration), which both run faster and compile sooner
than the whole step as one (``docs/halfcheetah.md``, "What bounds the speed").

That emitter has no scatter, and unbatched code is full of them (``x.at[i].set(v)`` with a
traced ``i``), nor a sort it can link: ``one_kernel`` rewrites a function's scatters as
dynamic-slice updates and its sorts of integers by counting (``kernel_rewrite``)
wherever it holds any. A kernel must not contain the rest of what the emitter does not
implement: custom calls (LAPACK's, for instance),
collectives, and reductions that XLA hands to a library: a ``jnp.max`` over the 54 rows of
a round of 256 states became a YNNPACK fusion (write such reductions as elementwise chains,
``halfcheetah.linalg.ordered_reduce``). The compile then fails (``UNIMPLEMENTED``, or missing
runtime symbols), so a mistake shows at once.

Two more hazards, both met with jaxlib 0.10.2:

- The emitter requires every parameter of the kernel to be read inside it: it hands the
  kernel the buffers that its operations read and write, and aborted the process (a failed
  check, "All or none of the slices should have an explicit index") on a parameter that none
  of them read (a Newton step, which does not read its iterate's ``done`` flag, as the step of
  ``rounds.while_loop``'s rounds). ``one_kernel`` therefore passes only the arguments that the
  traced function reads (``_used_inputs``); the others reach it as zeros of their shape. An
  argument that XLA finds to be a constant ends up unread too: XLA puts the constant inside
  the kernel (PokeJAX's team pool, closed over by a training loop, did). So the arguments
  reach the kernel through ``lax.optimization_barrier``, behind which XLA sees no constant.
- A ``while_loop`` whose body is nothing but a kernel's call, the loop's state in and out,
  never ended: XLA moved the call out of the loop. Put such a loop inside the kernel instead
  (``rounds.while_loop`` does), or give its body more than the call.
"""

from __future__ import annotations

import functools
from typing import Callable, TypeVar

import jax
import jax.extend.core as jex
import jax.numpy as jnp
from jax.experimental.xla_metadata import set_xla_metadata

from jaxenvs._src.cpu_kernels import kernel_rewrite

F = TypeVar("F", bound=Callable)

#: The frontend attributes of a kernel's ``call``.
ATTRIBUTES = {"xla_cpu_small_call": "true", "inlineable": "false"}


def _used_inputs(jaxpr: jex.Jaxpr, used_outputs: list[bool]) -> list[bool]:
    """Which of ``jaxpr``'s inputs its ``used_outputs`` depend on: a backward pass over its
    equations, through the bodies of nested ``jit``s, ``cond``s, ``scan``s and ``while``s (to a
    fixed point over a loop's carry), as XLA's own dead-code removal goes; any other equation
    that is needed uses all its inputs."""
    live = {v for v, used in zip(jaxpr.outvars, used_outputs)
            if used and isinstance(v, jex.Var)}
    for eqn in reversed(jaxpr.eqns):
        needed = [v in live for v in eqn.outvars]
        if not any(needed) and not eqn.effects:
            continue
        reads = _equation_reads(eqn, needed)
        live.update(v for v, read in zip(eqn.invars, reads) if read and isinstance(v, jex.Var))
    return [v in live for v in jaxpr.invars]


def _equation_reads(eqn: jex.JaxprEqn, needed: list[bool]) -> list[bool]:
    """Which inputs of ``eqn`` the ``needed`` outputs depend on (``_used_inputs``)."""
    name, params = eqn.primitive.name, eqn.params
    if name in ("jit", "pjit") and isinstance(params.get("jaxpr"), jex.ClosedJaxpr):
        return _used_inputs(params["jaxpr"].jaxpr, needed)
    if name == "cond":
        reads = [any(r) for r in zip(*(_used_inputs(b.jaxpr, needed)
                                       for b in params["branches"]))]
        return [True, *reads]
    if name == "scan":
        consts, carry = params["num_consts"], params["num_carry"]
        body = params["jaxpr"].jaxpr
        live_carry = needed[:carry]
        while True:  # a carry is live if a live carry or a needed output is made from it
            reads = _used_inputs(body, [*live_carry, *needed[carry:]])
            grown = [a or b for a, b in zip(live_carry, reads[consts:consts + carry])]
            if grown == live_carry:
                return reads
            live_carry = grown
    if name == "while":
        nc, nb = params["cond_nconsts"], params["body_nconsts"]
        cond, body = params["cond_jaxpr"].jaxpr, params["body_jaxpr"].jaxpr
        cond_reads = _used_inputs(cond, [True])
        live_carry = [a or b for a, b in zip(needed, cond_reads[nc:])]
        while True:
            body_reads = _used_inputs(body, live_carry)
            grown = [a or b for a, b in zip(live_carry, body_reads[nb:])]
            if grown == live_carry:
                return [*cond_reads[:nc], *body_reads[:nb], *live_carry]
            live_carry = grown
    return [True] * len(eqn.invars)


@functools.lru_cache(maxsize=256)
def _reading_only(closed: jex.ClosedJaxpr, used: tuple[bool, ...], out_tree) -> Callable:
    """``closed`` (a traced function, ``out_tree`` its results' structure) as a jitted function
    of the inputs that ``used`` marks (all, or all but those it does not read), the others
    zeros. Cached, since JAX's trace cache hands
    back the same ``closed`` for the same argument types: a kernel called again compiles once."""
    @jax.jit
    def reading_only(*kept):
        kept = iter(kept)
        inputs = [next(kept) if use else jnp.zeros(aval.shape, aval.dtype)
                  for aval, use in zip(closed.in_avals, used)]
        return jax.tree.unflatten(out_tree, jex.jaxpr_as_fun(closed)(*inputs))
    return reading_only


def one_kernel(fun: F) -> F:
    """``fun`` (array arguments and results), compiled by XLA:CPU as one kernel (module
    docstring). Works under ``vmap``, ``jit`` and control flow.

    Every result must be computed inside ``fun``: the attributes are attached to the
    operation that produces each result, which for an argument passed straight through
    would be whatever produced that argument."""
    jitted = jax.jit(fun)

    @functools.wraps(fun)
    def call(*args):
        traced = jitted.trace(*args)  # jit's cache: the call below does not trace again
        closed = traced.jaxpr
        rewrite = kernel_rewrite.needs_rewrite(closed)
        if rewrite:
            closed = kernel_rewrite.rewrite(closed)
        used = tuple(_used_inputs(closed.jaxpr, [True] * len(closed.jaxpr.outvars)))
        # behind a barrier, XLA cannot take an argument for a constant (see the docstring)
        if all(used) and not rewrite:
            return set_xla_metadata(jitted(*jax.lax.optimization_barrier(args)), **ATTRIBUTES)
        kernel = _reading_only(closed, used, traced.out_tree)
        kept = [x for x, use in zip(jax.tree.leaves(args), used) if use]
        return set_xla_metadata(kernel(*jax.lax.optimization_barrier(kept)), **ATTRIBUTES)

    return call
