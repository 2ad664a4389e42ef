"""``switch``, ``cond``, ``when`` and ``switch_in_place``: ``lax.switch`` and ``lax.cond`` whose
batched form does not copy the operands the batch shares, and a conditional update of a state
(``when``, and ``switch_in_place`` choosing among several); and
``by_batching``, a computation in two forms, a loop env by env and vectorized in a batch.

Under ``vmap`` with an index that differs across the batch, jax's batching rule of ``cond``
runs every branch and selects, as it must, but first broadcasts every operand to the batch,
the unbatched ones included. Those include each constant a branch closes over: a lookup table
becomes a copy per element, rebuilt at every call, and each lookup a gather from that copy.
PokeJAX's move turn, a ``cond`` over switch or move (``turn``), closes over the Gen 1 tables,
among them the stat-stage table ``int32[1000, 13]`` and the accuracy table ``int32[1021,
13]``, which jax's ``cond`` copies for every battle at every step, a large part of the step's
time (the figures: ``docs/pokejax.md``, "Speed").

Here the batched form vmaps each branch over the batched operands only (``in_axes=None``
for the others, so tables stay tables) and selects each result leaf by the index. An index
the batch shares calls ``lax.switch`` on the vmapped branches, so only the chosen branch
runs. Unbatched, it is ``lax.switch``. The result is the same in every form (branches are
evaluated, never merged), and, as for ``lazy_vmap.custom_vmap`` on which it rests, not
differentiable, and the branches must take every traced value they use as an operand (no
closures over tracers).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import jax
import jax.numpy as jnp

from jaxenvs._src.cpu_kernels import lazy_vmap


def switch(index: jax.Array, branches: Sequence[Callable], *operands: Any,
           result_shapes: Any = None) -> Any:
    """``lax.switch(index, branches, *operands)`` (``index`` clamped to the branches), with
    the batched form of the module docstring. ``result_shapes``: a pytree of
    ``jax.ShapeDtypeStruct`` (or arrays) of the result, which every branch returns; by
    default ``jax.eval_shape`` of the first branch (one more trace of it)."""
    branches = tuple(branches)

    def alone(index, operands):
        return jax.lax.switch(index, branches, *operands)

    return _batched_by_branch(alone, branches, index, operands, result_shapes)


def cond(pred: jax.Array, true_fun: Callable, false_fun: Callable, *operands: Any,
         result_shapes: Any = None) -> Any:
    """``lax.cond(pred, true_fun, false_fun, *operands)``, as ``switch`` (its batched form,
    ``result_shapes``)."""
    return switch(jnp.asarray(pred).astype(jnp.int32), (false_fun, true_fun), *operands,
                  result_shapes=result_shapes)


def when(pred: jax.Array, fun: Callable, state: Any, *operands: Any) -> Any:
    """``fun(state, *operands)`` where ``pred`` holds, else ``state``. Batched, as ``cond``
    (the select of both). Unbatched, a loop that runs ``fun`` once or not at all
    (``lax.while_loop``) rather than a ``lax.cond``: XLA gives a conditional's result
    buffers of its own, so each branch copies every leaf of ``state`` it passes through
    (the skipping branch all of them), where a loop updates its carry in place
    (``docs/game-engines-on-cpu.md``, "The rules' branches")."""

    def skip(state, *operands):
        return state

    def alone(index, operands):
        return _once_if(index, fun, *operands)

    return _batched_by_branch(alone, (skip, fun), jnp.asarray(pred).astype(jnp.int32),
                              (state, *operands), state)


def switch_in_place(index: jax.Array, branches: Sequence[Callable], state: Any,
                    *operands: Any) -> Any:
    """``branches[index](state, *operands)`` (``index`` clamped to the branches), each branch
    returning ``state`` updated (its structure, shapes and dtypes). Batched, as ``switch``.
    Unbatched, a ``when``'s loop per branch in turn, each running once or not at all, rather
    than a ``lax.switch``: XLA gives a conditional's result buffers of their own, so the chosen
    branch copies every leaf of the state it passes through, where a loop updates its carry in
    place. TCGJax's step, its Trainer effects and its two rules that change one player
    (``engine``) use it for the switches that carry the whole state, which would otherwise copy
    it at every decision."""
    branches = tuple(branches)

    def alone(index, operands):
        state, *rest = operands
        for k, branch in enumerate(branches):
            state = _once_if((index == k).astype(jnp.int32), branch, state, *rest)
        return state

    index = jnp.clip(jnp.asarray(index).astype(jnp.int32), 0, len(branches) - 1)
    return _batched_by_branch(alone, branches, index, (state, *operands), state)


def _once_if(run: jax.Array, fun: Callable, state: Any, *operands: Any) -> Any:
    """``fun(state, *operands)`` if ``run`` (int32, 0 or 1) else ``state``, as a loop that runs
    once or not at all, which updates ``state`` in place (``when``)."""

    def once(carry):
        return jnp.int32(0), fun(carry[1], *operands)

    return jax.lax.while_loop(lambda carry: carry[0] != 0, once, (run, state))[1]


def by_batching(alone: Callable, vectorized: Callable, *operands: Any,
                result_shapes: Any) -> Any:
    """``alone(*operands)`` where the call runs unbatched (as every env does in an XLA:CPU
    kernel, ``loop_vmap``), ``jax.vmap(vectorized)`` where it is batched (a GPU): two
    forms of one computation, which must give the same result. In a kernel, code runs as plain
    code and a loop over only the entries that need work is cheaper than the vectorized form,
    which XLA fuses into a loop over every entry that recomputes, for each entry, all that the
    entry depends on; in a batch the vectorized form keeps the batch side by side.
    ``result_shapes``: as ``switch``'s (required)."""
    def unbatched(operands):
        return alone(*operands)

    def batched(axis_size, in_batched, operands):
        axes = jax.tree.map(lambda b: 0 if b else None, in_batched)
        out = jax.vmap(lambda ops: vectorized(*ops), in_axes=axes, axis_size=axis_size)(operands)
        return out, jax.tree.map(lambda _: True, out)

    def shapes(operands):
        return jax.tree.map(lambda x: jax.ShapeDtypeStruct(jnp.shape(x), x.dtype), result_shapes)

    return lazy_vmap.custom_vmap(unbatched, batched, shapes)(operands)


def _batched_by_branch(alone: Callable, branches: tuple[Callable, ...], index: jax.Array,
                       operands: tuple, result_shapes: Any) -> Any:
    """``alone(index, operands)`` (which runs ``branches[index](*operands)``) with the
    batched form of the module docstring."""

    def batched(axis_size, in_batched, index, operands):
        index_batched, operands_batched = in_batched
        axes = jax.tree.map(lambda b: 0 if b else None, operands_batched)
        vmapped = [jax.vmap(branch, in_axes=axes, axis_size=axis_size) for branch in branches]
        if not index_batched:
            result = jax.lax.switch(index, vmapped, *operands)
        else:
            which = jnp.clip(index.astype(jnp.int32), 0, len(branches) - 1)
            results = [branch(*operands) for branch in vmapped]
            result = jax.tree.map(lambda *leaves: _select(which, leaves), *results)
        return result, jax.tree.map(lambda _: True, result)

    def shapes(index, operands):
        if result_shapes is not None:
            return jax.tree.map(lambda x: jax.ShapeDtypeStruct(jnp.shape(x), x.dtype),
                                result_shapes)
        return jax.eval_shape(branches[0], *operands)

    return lazy_vmap.custom_vmap(alone, batched, shapes)(jnp.asarray(index), operands)


def _select(which: jax.Array, leaves: Sequence[jax.Array]) -> jax.Array:
    """``leaves[which[i]][i]`` for each batch element ``i`` (``which``: int32[batch])."""
    which = which.reshape(which.shape + (1,) * (leaves[0].ndim - 1))
    return jax.lax.select_n(jnp.broadcast_to(which, leaves[0].shape), *leaves)
