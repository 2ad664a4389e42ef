"""Branches of the rules: ``switch``, ``cond``, ``switch_on_setting``, ``when`` (``rarely``:
``when`` for a rare condition), ``switch_in_place``, and a computation in two forms,
``by_batching`` (``first_rows``: a table whose rows past a count are skipped).

On the fast path (``gate``) each is ``cpu_kernels.branches``'s: real branches where an env
steps alone inside its kernel, and a batched form that keeps shared tables unbroadcast.
Elsewhere (the plain form, what a GPU runs) every branch is computed (``switch_on_setting``
aside) and ``selected`` picks each result leaf from the branch taken: what ``vmap`` makes of
``lax.switch`` and ``lax.cond`` anyway, without their batching's copies (they broadcast every
operand, and every table a branch reads, to the batch before each branch). The results are the
same in every form. Branches must take every traced value they use as an operand (no closures
over tracers), which the fast path requires.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import jax
import jax.numpy as jnp

from jaxenvs._src import gate


def switch(index: jax.Array, branches: Sequence[Callable], *operands: Any,
           result_shapes: Any = None) -> Any:
    """``lax.switch(index, branches, *operands)`` (``index`` clamped to the branches).
    ``result_shapes``: the result's ``jax.ShapeDtypeStruct``s, which saves the fast path a
    trace."""
    kernels = gate.kernels()
    if kernels is None:
        return selected(index, [branch(*operands) for branch in branches])
    return kernels.branches.switch(index, branches, *operands, result_shapes=result_shapes)


def cond(pred: jax.Array, true_fun: Callable, false_fun: Callable, *operands: Any,
         result_shapes: Any = None) -> Any:
    """``lax.cond(pred, true_fun, false_fun, *operands)``; ``result_shapes`` as ``switch``'s."""
    kernels = gate.kernels()
    if kernels is None:
        return selected(pred, [false_fun(*operands), true_fun(*operands)])
    return kernels.branches.cond(pred, true_fun, false_fun, *operands,
                                 result_shapes=result_shapes)


def switch_on_setting(index: jax.Array, branches: Sequence[Callable], *operands: Any,
                      result_shapes: Any = None) -> Any:
    """``switch`` on a setting that a batch usually shares (an env param, such as the
    opponent's policy). In the plain form a ``lax.switch``: under ``vmap`` of a shared
    ``index`` only the branch taken runs (a batched ``index`` runs them all, with ``vmap``'s
    copies of the operands); on the fast path, ``switch``."""
    kernels = gate.kernels()
    if kernels is None:
        return jax.lax.switch(index, branches, *operands)
    return kernels.branches.switch(index, branches, *operands, result_shapes=result_shapes)


def when(pred: jax.Array, fun: Callable, state: Any, *operands: Any) -> Any:
    """``fun(state, *operands)`` where ``pred`` holds, else ``state`` (``fun`` returns
    ``state`` updated: its structure, shapes and dtypes)."""
    kernels = gate.kernels()
    if kernels is None:
        return selected(pred, [state, fun(state, *operands)])
    return kernels.branches.when(pred, fun, state, *operands)


def rarely(pred: jax.Array, fun: Callable, state: Any, *operands: Any,
           fraction: int = 16) -> Any:
    """``when(pred, fun, state, *operands)`` for a ``pred`` that holds for few envs of a batch
    (an episode's end, whose reset is costly). Its plain form under ``vmap`` computes ``fun``
    only for the envs where ``pred`` holds, gathered into chunks of ``1 / fraction`` of the
    batch (``_rare_rule``), where ``when`` computes it for every env; the results are the same.
    Unbatched, and on the fast path, it is ``when``."""
    if gate.kernels() is not None:
        return when(pred, fun, state, *operands)
    rare = jax.custom_batching.custom_vmap(
        lambda pred, state, *operands: selected(pred, [state, fun(state, *operands)]))
    rare.def_vmap(lambda axis_size, in_batched, *args: _rare_rule(fun, fraction, axis_size,
                                                                  in_batched, *args))
    return rare(jnp.asarray(pred), state, *operands)


def _rare_rule(fun: Callable, fraction: int, axis_size: int, in_batched: Sequence[Any],
               pred: jax.Array, state: Any, *operands: Any) -> tuple[Any, Any]:
    """``rarely``'s batched form: the indices of the envs where ``pred`` holds, in order, then
    a loop over chunks of them (as many as they fill), each gathering its envs' ``state`` and
    batched operands, computing ``fun`` under ``vmap`` and writing the results back at their
    indices. Unbatched operands (parameters) stay unbatched."""
    pred_batched, state_batched, *operands_batched = in_batched
    if not pred_batched:
        pred = jnp.broadcast_to(pred, (axis_size,))
    state = jax.tree.map(lambda x, b: x if b else jnp.broadcast_to(x, (axis_size,) + x.shape),
                         state, state_batched)
    size = max(1, -(-axis_size // fraction))
    num_chunks = -(-axis_size // size)
    rows = jnp.nonzero(pred, size=num_chunks * size, fill_value=axis_size)[0]
    operand_axes = [jax.tree.map(lambda b: 0 if b else None, b) for b in operands_batched]

    def chunk(k, state):
        index = jax.lax.dynamic_slice_in_dim(rows, k * size, size)
        take = jnp.where(index < axis_size, index, 0)  # padding reads env 0, written nowhere
        gathered = [jax.tree.map(lambda x, axis: x[take] if axis == 0 else x, operand, axes)
                    for operand, axes in zip(operands, operand_axes)]
        new = jax.vmap(fun, (0, *operand_axes))(jax.tree.map(lambda x: x[take], state),
                                                *gathered)
        return jax.tree.map(lambda x, y: x.at[index].set(y, mode="drop"),
                            state, new)

    count = jnp.sum(pred, dtype=jnp.int32)
    state = jax.lax.fori_loop(0, (count + size - 1) // size, chunk, state)
    return state, jax.tree.map(lambda _: True, state)


def switch_in_place(index: jax.Array, branches: Sequence[Callable], state: Any,
                    *operands: Any) -> Any:
    """``branches[index](state, *operands)`` (``index`` clamped to the branches), each branch
    returning ``state`` updated (``when``)."""
    kernels = gate.kernels()
    if kernels is None:
        return selected(index, [branch(state, *operands) for branch in branches])
    return kernels.branches.switch_in_place(index, branches, state, *operands)


def by_batching(alone: Callable, vectorized: Callable, *operands: Any,
                result_shapes: Any) -> Any:
    """One computation in two forms that give the same result: ``alone(*operands)`` where an
    env steps alone in a fast-path kernel (a loop over only the entries that need work), else
    ``vectorized(*operands)``, which ``vmap`` keeps side by side. ``result_shapes``: the
    result's ``jax.ShapeDtypeStruct``s."""
    kernels = gate.kernels()
    if kernels is None:
        return vectorized(*operands)
    return kernels.branches.by_batching(alone, vectorized, *operands,
                                        result_shapes=result_shapes)


def first_rows(fun: Callable, num_rows: int, count: jax.Array, *operands: Any) -> jax.Array:
    """``[fun(i, *operands) if i < count else zeros for i in range(num_rows)]`` stacked (``fun``
    returns one array, the same shape for every ``i``): where an env steps alone in a kernel,
    a loop over the first ``count`` rows alone; else every row, masked (``by_batching``).
    TCGJax's legal actions of the hand cards (a row of 5 per card) use it: in a kernel the
    loop over the cards held is cheaper than the masked form over every slot."""
    shape = jax.eval_shape(fun, jnp.int32(0), *operands)

    def loop(count, *operands):
        rows = jnp.zeros((num_rows,) + shape.shape, shape.dtype)
        return jax.lax.fori_loop(0, jnp.minimum(count, num_rows),
                                 lambda i, rows: rows.at[i].set(fun(i, *operands)), rows)

    def masked(count, *operands):
        i = jnp.arange(num_rows)
        rows = jax.vmap(lambda i: fun(i, *operands))(i)
        keep = (i < count).reshape((-1,) + (1,) * len(shape.shape))
        return jnp.where(keep, rows, jnp.zeros((), shape.dtype))

    return by_batching(loop, masked, jnp.asarray(count, jnp.int32), *operands,
                       result_shapes=jax.ShapeDtypeStruct((num_rows,) + shape.shape,
                                                          shape.dtype))


def selected(index: jax.Array, results: Sequence[Any]) -> Any:
    """``results[index]`` (``index`` an int or bool, clamped to the results), leaf by leaf: a
    leaf that is the same object in every result is passed on, the others are selected
    element by element (``lax.select_n``), which ``vmap`` keeps a select."""
    index = jnp.clip(jnp.asarray(index).astype(jnp.int32), 0, len(results) - 1)

    def pick(*leaves):
        if all(leaf is leaves[0] for leaf in leaves):
            return leaves[0]
        leaves = [jnp.asarray(leaf) for leaf in leaves]
        dtype = jnp.result_type(*leaves)
        shape = jnp.broadcast_shapes(*(leaf.shape for leaf in leaves))
        return jax.lax.select_n(jnp.broadcast_to(index, shape),
                                *[jnp.broadcast_to(leaf.astype(dtype), shape) for leaf in leaves])

    return jax.tree.map(pick, *results)
