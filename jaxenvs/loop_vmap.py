"""``loop_vmap``: a function whose batched form on a CPU runs the function on each element in
turn, in one XLA:CPU kernel: the layout of a C environment, inside ``jit``.

Under ``vmap`` a ``lax.cond`` or ``lax.switch`` whose index differs across the batch runs
every branch for every element and selects. A game engine's step is mostly such branches
(which rule applies, which effect a card or move has, whether a Pokémon fainted), so a
batched step does the work of every rule for every env: for TCGJax and PokeJAX, XLA's cost
analysis counts some 44k elementwise operations per env step, for states of 1-4 KB. A C
environment instead steps its envs one after the other, each running the rules that apply.

``loop_vmap(fun)`` is ``fun`` with that batching rule on a CPU: a ``fori_loop`` over the
batch, each iteration ``fun`` on one element's arguments (the unbatched arguments as they
are), its results written into the batched results; the whole loop is one kernel
(``jaxenvs.kernel``), so XLA:CPU runs it as plain compiled code with no runtime dispatch
per operation, and the branches inside are real branches. Each element runs ``fun`` exactly
as it runs alone, so the results do not depend on the batch it runs in (bit for bit for
integer game logic). On other backends the batched form is ``vmap``: an accelerator runs a
batch side by side, and there a loop would leave it idle.

What it costs is compile time: LLVM optimises the kernel as one function, and its cost grows
faster than the function's length (``jaxenvs.kernel``).
"""

from __future__ import annotations

import functools
from typing import Callable, TypeVar

import jax

from jaxenvs import lazy_vmap
from jaxenvs.kernel import one_kernel

F = TypeVar("F", bound=Callable)


def loop_vmap(fun: F) -> F:
    """``fun`` (positional pytree arguments, a pytree result) whose ``vmap`` on a CPU is a loop
    over the batch in one kernel (module docstring); under nested ``vmap``s, loops within a
    loop, in one kernel. ``fun`` must take every traced value it uses as an argument
    (``lazy_vmap.custom_vmap``), and hold nothing a kernel cannot (``jaxenvs.kernel``). The
    result is not differentiable."""
    return _looped(jax.jit(fun), ())


def _looped(fun: Callable, loops: tuple) -> Callable:
    """``fun`` (jitted: traced once for its result shapes and its uses) within ``loops``
    (``(axis_size, in_batched)`` of each loop over a batch, innermost first), with the
    batching rule of ``loop_vmap``."""
    nested, unbatched, rule, prune = _parts(fun, loops)
    # the same jitted ``nested`` as the kernel's: its trace for the shapes is reused
    return lazy_vmap.custom_vmap(unbatched, rule, lambda *args: jax.eval_shape(nested, *args),
                                 prune)


def _parts(fun: Callable, loops: tuple) -> tuple[Callable, Callable, Callable, Callable]:
    """``fun`` within ``loops`` (jitted), then ``lazy_vmap.custom_vmap``'s unbatched form,
    batching rule and pruning of it: a kernel where there is a loop; batched, one loop more on
    a CPU. Pruned (JAX's dead-code elimination), each element computes and writes only the
    results that are read: the kernel is opaque to XLA, which would otherwise write them all
    (a step's ``info["final_observation"]``, for one, which a rollout that ignores it never
    reads)."""
    nested = _nest(fun, loops)

    def batched(axis_size, in_batched, *args):
        if jax.default_backend() != "cpu":
            axes = jax.tree.map(lambda b: 0 if b else None, in_batched)
            out = jax.vmap(nested, in_axes=axes, axis_size=axis_size)(*args)
        else:
            out = _looped(fun, loops + ((axis_size, in_batched),))(*args)
        return out, jax.tree.map(lambda _: True, out)

    def prune(used: tuple[bool, ...]):
        return _parts(_only(fun, used), loops)[1:]

    return nested, (one_kernel(nested) if loops else nested), batched, prune


def _nest(fun: Callable, loops: tuple) -> Callable:
    """``fun`` within ``loops``, innermost first (``_loop``)."""
    for axis_size, in_batched in loops:
        fun = jax.jit(functools.partial(_loop, fun, axis_size, in_batched))
    return fun


def _only(fun: Callable, used: tuple[bool, ...]) -> Callable:
    """``fun`` returning only its result leaves that ``used`` marks, as a flat list."""
    return jax.jit(lambda *args: [leaf for leaf, keep in zip(jax.tree.leaves(fun(*args)), used)
                                  if keep])


def _loop(fun: Callable, axis_size: int, in_batched, *args):
    """``fun`` on each element of ``args`` (batched along their first axis where
    ``in_batched`` says so), as a loop over the batch: the batched results."""
    def element(i):
        return jax.tree.map(lambda x, batched: x[i] if batched else x, args, in_batched)

    out_shapes = jax.eval_shape(lambda: fun(*element(0)))
    out = jax.tree.map(lambda s: jax.numpy.zeros((axis_size, *s.shape), s.dtype), out_shapes)

    def body(i, out):
        return jax.tree.map(lambda o, y: jax.lax.dynamic_update_index_in_dim(o, y, i, 0), out,
                            fun(*element(i)))

    return jax.lax.fori_loop(0, axis_size, body, out)
