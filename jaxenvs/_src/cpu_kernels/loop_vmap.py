"""``loop_vmap``: a function whose batched form on a CPU runs the function on each element in
turn, in one XLA:CPU kernel: the layout of a C environment, inside ``jit``.

Under ``vmap`` a ``lax.cond`` or ``lax.switch`` whose index differs across the batch runs
every branch for every element and selects. A game engine's step is mostly such branches
(which rule applies, which effect a card or move has, whether a Pokémon fainted), so a
batched step does the work of every rule for every env, passing over its state many times per
decision (``docs/game-engines-on-cpu.md``, "Under ``vmap``, every rule for every env"). A C
environment instead steps its envs one after the other, each running the rules that apply.

``loop_vmap(fun)`` is ``fun`` with that batching rule on a CPU: a ``fori_loop`` over the
batch, each iteration ``fun`` on one element's arguments (the unbatched arguments as they
are), its results written into the batched results; the whole loop is one kernel
(``kernel``), so XLA:CPU runs it as plain compiled code with no runtime dispatch
per operation, and the branches inside are real branches. Each element runs ``fun`` exactly
as it runs alone, so the results do not depend on the batch it runs in (bit for bit for
integer game logic). Elsewhere (``jaxenvs._src.gate``) the batched form is ``vmap``: an
accelerator runs a batch side by side, and there a loop would leave it idle.

A result that is an argument updated (a step's state) can be written where that argument
is (``updates``): the loop then reads each element's argument from the results it is
writing, before writing them, and XLA, which cannot look inside the kernel, sees the
argument's buffer updated and can keep it in place. Otherwise XLA gives the kernel's
results buffers of their own and copies them into a loop's carry after every step (a
rollout's ``scan``), every leaf of the state. Each element's arguments are read through a
loop that runs once before any of its results is written (``_read_before_writes``): XLA fuses
a read into the operations that use it, and where one of those could run after the element's
write (a step's truncation flag, made from its old step count), XLA copied the whole batch's
leaf for every element, a cost that grows with the batch (``docs/game-engines-on-cpu.md``,
"Reads before writes").

With ``rows``, each result leaf is held as ``[batch, entries]`` while the loop writes it, and
an element's result is written as one row. XLA:CPU writes a slice as a loop nest over its
shape, which LLVM unrolled into one scalar move per entry for small inner axes (TCGJax's
``[2, 4, 10]`` energy); a row is one loop, which it vectorises, so TCGJax's step runs fewer
instructions. PokeJAX's step (most of its state leaves ``[2, 6]`` or ``[2, 6, k]``) runs more
with it, so it is the caller's choice (``docs/game-engines-on-cpu.md``, "Results written as
rows").

What it costs is compile time: LLVM optimises the kernel as one function, and its cost grows
faster than the function's length (``kernel``).
"""

from __future__ import annotations

import functools
import math
from typing import Callable, Mapping, Sequence, TypeVar

import jax
import jax.numpy as jnp

from jaxenvs._src.cpu_kernels import lazy_vmap
from jaxenvs._src.cpu_kernels.kernel import one_kernel
from jaxenvs._src.fence import through_a_loop

F = TypeVar("F", bound=Callable)


def loop_vmap(fun: F, updates: Mapping[int, int] | None = None, rows: bool = False) -> F:
    """``fun`` (positional pytree arguments, a pytree result) whose ``vmap`` on a CPU is a loop
    over the batch in one kernel (module docstring); under nested ``vmap``s, loops within a
    loop, in one kernel. ``fun`` must take every traced value it uses as an argument
    (``lazy_vmap.custom_vmap``), and hold nothing a kernel cannot (``kernel``). The
    result is not differentiable.

    ``updates``: ``{result index: argument index}`` where ``fun`` returns a tuple whose
    element is that argument updated (the same pytree structure, shapes and dtypes), which
    the loop then writes in place of the argument (module docstring).

    ``rows``: each element's results written as one row of a ``[batch, entries]`` array
    (module docstring)."""
    jitted = jax.jit(fun)
    if not updates:
        return _looped(jitted, (), None, rows)

    @functools.wraps(fun)
    def call(*args):
        sources = _updated_leaves(updates, args, jax.eval_shape(jitted, *args))
        return _looped(jitted, (), sources, rows)(*args)

    return call


def _updated_leaves(updates: Mapping[int, int], args: tuple,
                    results: Sequence) -> tuple[int | None, ...]:
    """For each leaf of ``results`` (shapes), the index among the leaves of ``args`` of the
    leaf it updates (``loop_vmap``'s ``updates``), else ``None``."""
    arg_start = _leaf_starts(args)
    sources: list[int | None] = [None] * len(jax.tree.leaves(results))
    for result, arg in updates.items():
        got, want = (_layout(tree) for tree in (results[result], args[arg]))
        if got != want:
            raise ValueError(f"loop_vmap: result {result} is not argument {arg} updated: "
                             f"its structure or leaves differ ({_first_difference(got, want)})")
        start = _leaf_starts(results)[result]
        for k in range(len(got[1])):
            sources[start + k] = arg_start[arg] + k
    if len({s for s in sources if s is not None}) != sum(s is not None for s in sources):
        raise ValueError(f"loop_vmap: two results update one argument: {dict(updates)}")
    return tuple(sources)


def _layout(tree) -> tuple:
    """``tree``'s structure and its leaves' shapes and dtypes (weak types aside)."""
    return jax.tree.structure(tree), [(jnp.shape(x), x.dtype) for x in jax.tree.leaves(tree)]


def _first_difference(got: tuple, want: tuple) -> str:
    """Where two ``_layout``s first differ, in words."""
    if got[0] != want[0]:
        return f"structure {got[0]} against {want[0]}"
    k = next(k for k, (a, b) in enumerate(zip(got[1], want[1])) if a != b)
    return f"leaf {k}: shape and dtype {got[1][k]} against {want[1][k]}"


def _leaf_starts(tree: Sequence) -> list[int]:
    """The index of the first leaf of each element of ``tree`` among all its leaves."""
    counts = [len(jax.tree.leaves(x)) for x in tree]
    return [sum(counts[:i]) for i in range(len(counts))]


def _looped(fun: Callable, loops: tuple, sources: tuple | None, rows: bool) -> Callable:
    """``fun`` (jitted: traced once for its result shapes and its uses) within ``loops``
    (``(axis_size, in_batched)`` of each loop over a batch, innermost first), with the
    batching rule of ``loop_vmap``; ``sources``: ``_updated_leaves`` of ``fun``'s results;
    ``rows``: ``loop_vmap``'s."""
    nested, unbatched, rule, prune = _parts(fun, loops, sources, rows)
    # the same jitted ``nested`` as the kernel's: its trace for the shapes is reused
    return lazy_vmap.custom_vmap(unbatched, rule, lambda *args: jax.eval_shape(nested, *args),
                                 prune)


def _parts(fun: Callable, loops: tuple, sources: tuple | None,
           rows: bool) -> tuple[Callable, Callable, Callable, Callable]:
    """``fun`` within ``loops`` (jitted), then ``lazy_vmap.custom_vmap``'s unbatched form,
    batching rule and pruning of it: a kernel where there is a loop; batched, one loop more on
    a CPU. Pruned (JAX's dead-code elimination), each element computes and writes only the
    results that are read: the kernel is opaque to XLA, which would otherwise write them all
    (a step's ``info["final_observation"]``, for one, which a rollout that ignores it never
    reads)."""
    nested = _nest(fun, loops, sources, rows)

    def batched(axis_size, in_batched, *args):
        out = _looped(fun, loops + ((axis_size, in_batched),), sources, rows)(*args)
        return out, jax.tree.map(lambda _: True, out)

    def prune(used: tuple[bool, ...]):
        kept = None if sources is None else tuple(s for s, u in zip(sources, used) if u)
        return _parts(_only(fun, used), loops, kept, rows)[1:]

    return nested, (one_kernel(nested) if loops else nested), batched, prune


def _nest(fun: Callable, loops: tuple, sources: tuple | None, rows: bool) -> Callable:
    """``fun`` within ``loops``, innermost first (``_loop``)."""
    for axis_size, in_batched in loops:
        fun = jax.jit(functools.partial(_loop, fun, axis_size, in_batched, sources, rows))
    return fun


def _only(fun: Callable, used: tuple[bool, ...]) -> Callable:
    """``fun`` returning only its result leaves that ``used`` marks, as a flat list."""
    return jax.jit(lambda *args: [leaf for leaf, keep in zip(jax.tree.leaves(fun(*args)), used)
                                  if keep])


def _loop(fun: Callable, axis_size: int, in_batched, sources: tuple | None, rows: bool,
          *args):
    """``fun`` on each element of ``args`` (batched along their first axis where
    ``in_batched`` says so), as a loop over the batch: the batched results. A result whose
    ``sources`` entry names a batched argument leaf starts as that leaf, from which the
    loop reads each element (``_read_before_writes``) before writing its result there; the
    others start as zeros. With ``rows`` the results are ``[batch, entries]`` inside the
    loop (``loop_vmap``); the reshapes, of row-major arrays, move nothing."""
    leaves, treedef = jax.tree.flatten(args)
    batched = jax.tree.leaves(in_batched)
    out_shapes, out_tree = jax.tree.flatten(jax.eval_shape(lambda: fun(*jax.tree.unflatten(
        treedef, [x[0] if b else x for x, b in zip(leaves, batched)]))))
    carried = {k: j for j, k in enumerate(sources or ()) if k is not None and batched[k]}

    def held(shape):  # a result leaf's shape inside the loop
        return (axis_size, math.prod(shape)) if rows else (axis_size, *shape)

    starts = {j: leaves[k].reshape(held(out_shapes[j].shape)) for k, j in carried.items()}
    out = [starts.get(j, jnp.zeros(held(s.shape), s.dtype)) for j, s in enumerate(out_shapes)]

    def body(i, out):
        inputs = [out[carried[k]][i].reshape(x.shape[1:]) if k in carried else x[i] if b else x
                  for k, (x, b) in enumerate(zip(leaves, batched))]
        read = _read_before_writes([inputs[k] for k in carried], i)
        for k, x in zip(carried, read):
            inputs[k] = x
        results = jax.tree.leaves(fun(*jax.tree.unflatten(treedef, inputs)))
        return [jax.lax.dynamic_update_index_in_dim(o, y.reshape(o.shape[1:]), i, 0)
                for o, y in zip(out, results)]

    out = jax.lax.fori_loop(0, axis_size, body, out)
    return jax.tree.unflatten(out_tree, [o.reshape((axis_size, *s.shape))
                                         for o, s in zip(out, out_shapes)])


def _read_before_writes(values: list, i: jax.Array) -> list:
    """``values`` (an element's arguments read from the batch that the loop writes)
    unchanged, through a loop that runs once (``fence.through_a_loop``, counting from the
    element's index ``i``): every result is made from the loop's, so every read of the batch
    comes before any write to it, and XLA need not copy the batch for each element (module
    docstring). ``jax.lax.optimization_barrier`` would not do: XLA:CPU removes it before
    fusing (``fence``)."""
    return through_a_loop(values, i)
