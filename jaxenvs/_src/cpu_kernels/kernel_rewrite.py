"""``rewrite``: a jaxpr without the operations XLA:CPU's kernel emitter lacks or runs slowly.

XLA:CPU compiles a kernel (``kernel``) with its whole-computation emitter, which has
no scatter ("Unhandled opcode for elemental IR emission: scatter"), whose sort calls a
runtime function that a kernel is not linked with ("Symbols not found:
__xla_cpu_runtime_KeyValueSort"), and which rejects the calls XLA makes of small loops
inside a kernel, such as the 5-step loop of each threefry hash ("All or none of the slices
should have an explicit index"). Unbatched game code is full of scatters: every
``x.at[i].set(v)`` with a traced ``i`` is a scatter of one point (PokeJAX's engine writes its
updates as dynamic updates instead, ``pokejax.state.put``, since its indices are always in
range), and XLA keeps such a scatter as one, since its
out-of-bounds rule (the update is dropped) differs from that of a dynamic update (the start is
clamped). Its observations sort small integer arrays.

``rewrite(jaxpr)`` is the jaxpr with

* each scatter replaced by what it does, point by point, in order: read the window at the
  (clamped) start, combine it with the update (``set``, ``add``, ``sub``, ``mul``, ``min``,
  ``max``), keep the old window where the start was out of bounds under the ``FILL_OR_DROP``
  mode, and write it back with ``lax.dynamic_update_slice``. Applying the points in order is
  how XLA:CPU's own scatter runs them, so repeated indices give the same result too;
* each sort of integer keys replaced by a stable sort by counting: an element's place is
  the number of elements whose keys sort before it, ties going to the lower index (for an
  array of ``n``, ``n * n`` compares; the arrays sorted here have at most a few dozen
  entries);
* each random split, fold-in and draw (of words of any width) with a default
  ``threefry2x32`` key made with its key as a key of ``threefry.UNROLLED``: the same
  bits, no loop;
* each concatenation written piece by piece into a zero array (dynamic updates): the
  emitter computes a fused concatenation element by element, choosing the piece with a
  branch and recomputing the piece's inputs (gathers, divisions) for each element. As
  updates, each piece is one plain loop, which makes a step that builds its observation from
  pieces (PokeJAX2P's two float32[2, 6, 36], ten pieces each) markedly faster
  (``docs/game-engines-on-cpu.md``, "Scatters and sorts in kernels").

Every other equation is bound as it was; the bodies of ``jit``, ``cond``, ``while``,
``scan``, custom derivative rules (whose primal function is kept, not the rule) and
``lazy_vmap.custom_vmap`` are rewritten the same way. The result is not
differentiable.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

import jax
import jax.extend.core as jex
import jax.numpy as jnp
import numpy as np
from jax import lax

from jaxenvs._src.cpu_kernels import lazy_vmap
from jaxenvs._src.cpu_kernels.threefry import fast_key, is_threefry

#: How each scatter primitive combines the operand's window with the update.
COMBINE: dict[str, Callable[[jax.Array, jax.Array], jax.Array]] = {
    "scatter": lambda old, new: new,
    "scatter-add": lambda old, new: old + new,
    "scatter-sub": lambda old, new: old - new,
    "scatter-mul": lambda old, new: old * new,
    "scatter-min": jnp.minimum,
    "scatter-max": jnp.maximum,
}


#: The random primitives that take a key first and whose threefry form is a loop on a CPU.
RANDOM = ("random_split", "random_fold_in", "random_bits")


def needs_rewrite(closed: jex.ClosedJaxpr) -> bool:
    """Whether ``rewrite`` would change ``closed``: it holds a scatter, a sort or a random
    primitive, or a ``lazy_vmap.custom_vmap`` whose unbatched function is not traced yet, at
    any depth."""
    return any(eqn.primitive.name in COMBINE or eqn.primitive.name in ("sort", *RANDOM)
               or eqn.primitive is lazy_vmap.custom_vmap_p
               or any(needs_rewrite(sub) for sub in _sub_jaxprs(eqn))
               for eqn in closed.jaxpr.eqns)


@functools.lru_cache(maxsize=64)
def rewrite(closed: jex.ClosedJaxpr) -> jex.ClosedJaxpr:
    """``closed`` without scatters and sorts (module docstring).
    Cached: JAX's trace cache hands back the same jaxpr for the same function and types."""
    avals = [jax.ShapeDtypeStruct(a.shape, a.dtype) for a in closed.in_avals]
    return jax.make_jaxpr(lambda *args: _evaluate(closed, *args))(*avals)


def scatter_points(name: str, operand, indices, updates, dimension_numbers,
                   mode) -> jax.Array:
    """The scatter primitive ``name`` (a key of ``COMBINE``) of ``updates`` into ``operand``
    at ``indices`` (index vectors along the last axis, as JAX builds them), one point after
    the other."""
    operand, indices, updates = jnp.asarray(operand), jnp.asarray(indices), jnp.asarray(updates)
    dn = dimension_numbers
    combine = COMBINE[name]
    points_shape = indices.shape[:-1]
    points = int(np.prod(points_shape, dtype=int))
    window_dims = tuple(dn.update_window_dims)
    point_dims = [d for d in range(updates.ndim) if d not in window_dims]
    window_sizes = iter(updates.shape[d] for d in window_dims)
    single = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
    window_shape = tuple(1 if d in single else next(window_sizes) for d in range(operand.ndim))
    windows = jnp.transpose(updates, point_dims + list(window_dims)).reshape(
        (points, *window_shape)).astype(operand.dtype)
    starts = indices.reshape(points, indices.shape[-1])
    limits = [operand.shape[d] - window_shape[d] for d in range(operand.ndim)]
    if mode not in (lax.GatherScatterMode.FILL_OR_DROP, lax.GatherScatterMode.CLIP,
                    lax.GatherScatterMode.PROMISE_IN_BOUNDS):
        raise NotImplementedError(f"kernel_rewrite: scatter mode {mode}")
    for p in range(points):
        start = [jnp.zeros((), starts.dtype)] * operand.ndim
        for j, d in enumerate(dn.scatter_dims_to_operand_dims):
            start[d] = starts[p, j]
        coords = np.unravel_index(p, points_shape)
        for d, index_dim in zip(dn.operand_batching_dims, dn.scatter_indices_batching_dims):
            start[d] = jnp.asarray(coords[index_dim], starts.dtype)
        clamped = [jnp.clip(s, 0, limit) for s, limit in zip(start, limits)]
        old = lax.dynamic_slice(operand, clamped, window_shape)
        new = combine(old, windows[p])
        if mode == lax.GatherScatterMode.FILL_OR_DROP:
            inside = jnp.all(jnp.stack([(s >= 0) & (s <= limit)
                                        for s, limit in zip(start, limits)]))
            new = jnp.where(inside, new, old)
        operand = lax.dynamic_update_slice(operand, new, clamped)
    return operand


def concatenate_by_updates(operands, dimension: int) -> jax.Array:
    """``lax.concatenate(operands, dimension)`` as dynamic updates of a zero array."""
    operands = [jnp.asarray(x) for x in operands]
    shape = list(operands[0].shape)
    shape[dimension] = sum(x.shape[dimension] for x in operands)
    out = jnp.zeros(shape, operands[0].dtype)
    offset = 0
    for x in operands:
        start = [0] * len(shape)
        start[dimension] = offset
        out = lax.dynamic_update_slice(out, x, start)
        offset += x.shape[dimension]
    return out


def sort_by_counting(*operands, dimension: int, num_keys: int) -> list[jax.Array]:
    """``lax.sort(operands, dimension, is_stable=True, num_keys)`` for integer or boolean
    keys, by counting (module docstring)."""
    operands = [jnp.moveaxis(jnp.asarray(x), dimension, -1) for x in operands]
    for key in operands[:num_keys]:
        if not (jnp.issubdtype(key.dtype, jnp.integer) or key.dtype == jnp.bool_):
            raise NotImplementedError(f"kernel_rewrite: a sort by {key.dtype} keys")
    n = operands[0].shape[-1]
    index = jnp.arange(n)
    before = index[None, :] < index[:, None]  # [i, j]: j sorts before i, so far on ties
    for key in reversed(operands[:num_keys]):  # the first key decides, ties go to the next
        k = key.astype(jnp.int32) if key.dtype == jnp.bool_ else key
        mine, other = k[..., :, None], k[..., None, :]
        before = (other < mine) | ((other == mine) & before)
    place = jnp.sum(before, axis=-1)  # [..., i]
    order = jnp.sum(jnp.where(place[..., :, None] == index, index[:, None], 0), axis=-2)
    return [jnp.moveaxis(jnp.take_along_axis(x, order, axis=-1), -1, dimension)
            for x in operands]


def _sub_jaxprs(eqn: jex.JaxprEqn) -> list[jex.ClosedJaxpr]:
    """The closed jaxprs among ``eqn``'s parameters."""
    found = []
    for value in eqn.params.values():
        for item in value if isinstance(value, (tuple, list)) else (value,):
            if isinstance(item, jex.ClosedJaxpr):
                found.append(item)
            elif isinstance(item, jex.Jaxpr):
                found.append(jex.ClosedJaxpr(item, ()))
    return found


def _as_function(closed: jex.ClosedJaxpr) -> Callable:
    return lambda *args: _evaluate(closed, *args)


def _evaluate(closed: jex.ClosedJaxpr, *args) -> list[Any]:
    """``closed`` applied to ``args`` (flat), its scatters rewritten."""
    env: dict[jex.Var, Any] = {}

    def read(v):
        return v.val if isinstance(v, jex.Literal) else env[v]

    env.update(zip(closed.jaxpr.constvars, closed.consts))
    env.update(zip(closed.jaxpr.invars, args))
    for eqn in closed.jaxpr.eqns:
        outs = _equation(eqn, [read(v) for v in eqn.invars])
        env.update(zip(eqn.outvars, outs))
    return [read(v) for v in closed.jaxpr.outvars]


def _equation(eqn: jex.JaxprEqn, ins: list[Any]) -> list[Any]:
    """One equation's results, its scatters (and those of the jaxprs it holds) rewritten."""
    name, params = eqn.primitive.name, eqn.params
    if name in COMBINE:
        return [scatter_points(name, *ins, params["dimension_numbers"], params["mode"])]
    if name in RANDOM and is_threefry(ins[0]):
        out = eqn.primitive.bind(fast_key(ins[0]), *ins[1:], **params)
        if name == "random_bits":
            return [out]
        return [jax.random.wrap_key_data(jax.random.key_data(out),
                                         impl=jax.random.key_impl(ins[0]))]
    if name == "concatenate":
        return [concatenate_by_updates(ins, params["dimension"])]
    if name == "sort":
        return sort_by_counting(*ins, dimension=params["dimension"],
                                num_keys=params["num_keys"])
    if name in ("jit", "pjit", "closed_call", "core_call"):
        return _as_function(params.get("jaxpr") or params["call_jaxpr"])(*ins)
    if name in ("custom_jvp_call", "custom_vjp_call"):
        return _as_function(params["call_jaxpr"])(*ins)
    if name == "cond":
        index, *operands = ins
        return list(lax.switch(index, [_as_function(b) for b in params["branches"]],
                               *operands))
    if name == "while":
        nc, nb = params["cond_nconsts"], params["body_nconsts"]
        cond_consts, body_consts, init = ins[:nc], ins[nc:nc + nb], ins[nc + nb:]
        cond_fun, body_fun = _as_function(params["cond_jaxpr"]), _as_function(
            params["body_jaxpr"])
        return list(lax.while_loop(lambda carry: cond_fun(*cond_consts, *carry)[0],
                                   lambda carry: tuple(body_fun(*body_consts, *carry)),
                                   tuple(init)))
    if name == "scan":
        nc, ncarry = params["num_consts"], params["num_carry"]
        consts, init, xs = ins[:nc], ins[nc:nc + ncarry], ins[nc + ncarry:]
        body_fun = _as_function(params["jaxpr"])

        def body(carry, x):
            out = body_fun(*consts, *carry, *x)
            return tuple(out[:ncarry]), tuple(out[ncarry:])

        carry, ys = lax.scan(body, tuple(init), tuple(xs), length=params["length"],
                             reverse=params["reverse"], unroll=params["unroll"])
        return [*carry, *ys]
    if eqn.primitive is lazy_vmap.custom_vmap_p:
        return _evaluate(jax.make_jaxpr(lazy_vmap.flat_function(**params))(*ins), *ins)
    if _sub_jaxprs(eqn):
        raise NotImplementedError(f"kernel_rewrite: the primitive {name!r} holds jaxprs it "
                                  "cannot rewrite")
    out = eqn.primitive.bind(*ins, **params)
    return list(out) if eqn.primitive.multiple_results else [out]
