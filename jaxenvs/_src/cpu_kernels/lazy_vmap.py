"""``custom_vmap``: a function with its own batching rule, whose unbatched form is traced only
where it is used unbatched.

``jax.custom_batching.custom_vmap`` traces its function, the unbatched form, at every call,
also under ``vmap``, where only the batching rule's trace is used. Where the unbatched form
is as large as the batched one, that doubles the tracing: HalfCheetah's physics step
(``halfcheetah.batching.batch_invariant``, whose unbatched form runs the step on a batch of
two copies) was traced twice per compile, and each Newton loop (``rounds.while_loop``) once
more. Tracing is a large part of a first compile, so tracing once shortens HalfCheetah's and
TCGJax's (``docs/halfcheetah.md``, "Compile time"; ``docs/game-engines-on-cpu.md``, "Compile
time"); PokeJAX's unbatched forms are small.

This ``custom_vmap`` is a primitive whose result types are given (``out_shapes``, which can
be far cheaper than a trace: a loop's carry, or the shapes of an unbatched function), whose
batching rule is the given rule, and whose lowering, the only use of the unbatched form,
traces ``fun`` then. ``fun`` and ``rule`` must therefore take every traced value they use as
an argument: a closed-over tracer of an enclosing ``jit`` is out of scope by the time ``fun``
is traced (the lowering raises a ``TypeError`` saying so), or by the time ``rule`` runs when
that ``jit``'s function is vmapped (as it is for ``jax.custom_batching.custom_vmap``'s rule).
Like that ``custom_vmap``, the result is not differentiable.
"""

from __future__ import annotations

from typing import Any, Callable

import jax
import jax.extend.core as jex
from jax.interpreters import batching, mlir
from jax.interpreters import partial_eval as pe

#: The primitive of every ``custom_vmap`` call (``kernel_rewrite`` rewrites its
#: unbatched function).
custom_vmap_p = jex.Primitive("jaxenvs_custom_vmap")
custom_vmap_p.multiple_results = True


class _Functions:
    """The unbatched function, the batching rule and the pruning of one ``custom_vmap`` (a
    primitive's parameters must be hashable; these compare by identity)."""

    def __init__(self, fun: Callable, rule: Callable, prune: Callable | None = None):
        self.fun = fun
        self.rule = rule
        self.prune = prune

    def __repr__(self) -> str:
        return f"{getattr(self.fun, '__name__', 'fun')}/{getattr(self.rule, '__name__', 'rule')}"


def custom_vmap(fun: Callable, rule: Callable, out_shapes: Callable,
                prune: Callable | None = None) -> Callable:
    """``fun`` (positional pytree arguments, a pytree result) with the batching rule ``rule``,
    as ``jax.custom_batching.custom_vmap(fun).def_vmap(rule)``: ``rule(axis_size,
    in_batched, *args)`` gets the batched arguments with their batch axis first and
    ``in_batched`` (a tuple of pytrees of bools, one per argument), and returns ``(result,
    out_batched)``. ``out_shapes(*args)`` gives the unbatched result's
    ``jax.ShapeDtypeStruct``s (``jax.eval_shape``, or the shapes of an argument) without
    tracing ``fun``. ``fun`` is traced only where the call is compiled unbatched (module
    docstring: no closed-over traced values).

    ``prune(used)``, if given, lets JAX's dead-code elimination drop the results nobody
    reads: ``used`` is a tuple of bools, one per leaf of the result, and ``prune`` returns
    ``(fun, rule, prune)`` of the same call computing only the used leaves, as a flat list.
    Without it the call computes all its results whenever one is used (XLA cannot look
    inside a kernel, ``kernel``, to drop them itself)."""
    functions = _Functions(fun, rule, prune)

    def call(*args):
        flat, in_tree = jax.tree.flatten(args)
        shapes, out_tree = jax.tree.flatten(out_shapes(*args))
        out_avals = tuple(jax.core.ShapedArray(s.shape, s.dtype) for s in shapes)
        out = custom_vmap_p.bind(*flat, functions=functions, in_tree=in_tree,
                                  out_tree=out_tree, out_avals=out_avals)
        return jax.tree.unflatten(out_tree, out)

    return call


def flat_function(functions: _Functions, in_tree, out_tree, **_) -> Callable:
    """``functions.fun`` on flat arguments, returning flat results of ``out_tree`` (its
    arguments are a ``custom_vmap_p`` equation's parameters)."""
    def flat_fun(*flat):
        out = functions.fun(*jax.tree.unflatten(in_tree, flat))
        leaves, tree = jax.tree.flatten(out)
        if tree != out_tree:
            raise ValueError(f"custom_vmap: {functions!r} returned {tree}, "
                             f"its out_shapes {out_tree}")
        return leaves
    return flat_fun


def _abstract_eval(*avals, functions, in_tree, out_tree, out_avals):
    return list(out_avals)


def _impl(*flat, functions, in_tree, out_tree, out_avals):
    # eagerly, as jax's custom_vmap evaluates its traced function: no new jit (and compile)
    # for each call outside one
    return flat_function(functions, in_tree, out_tree)(*flat)


def _lowering(ctx, *flat, functions, in_tree, out_tree, out_avals):
    try:
        return mlir.lower_fun(flat_function(functions, in_tree, out_tree),
                              multiple_results=True)(ctx, *flat)
    except TypeError as error:
        if "Tracer" not in str(error):
            raise
        raise TypeError(f"custom_vmap: the unbatched function of {functions!r} uses a traced "
                        "value it does not take as an argument (a closure over a tracer); "
                        "pass it in as an argument (lazy_vmap)") from error


def _batching_rule(flat, dims, *, functions, in_tree, out_tree, out_avals):
    axis_size, = {x.shape[d] for x, d in zip(flat, dims) if d is not None}
    flat = [x if d is None else jax.numpy.moveaxis(x, d, 0) for x, d in zip(flat, dims)]
    in_batched: Any = jax.tree.unflatten(in_tree, [d is not None for d in dims])
    out, out_batched = functions.rule(axis_size, in_batched, *jax.tree.unflatten(in_tree, flat))
    leaves, tree = jax.tree.flatten(out)
    if tree != out_tree:
        raise ValueError(f"custom_vmap: the rule of {functions!r} returned {tree}, "
                         f"its out_shapes {out_tree}")
    return leaves, [0 if b else None for b in jax.tree.leaves(out_batched)]


def _dce_rule(used_outputs: list[bool], eqn: jex.JaxprEqn):
    """JAX's dead-code elimination of a call: dropped if nothing is used, rebuilt by its
    ``prune`` if part is (``custom_vmap``); every argument stays used."""
    used_inputs = [True] * len(eqn.invars)
    if not any(used_outputs) and not eqn.effects:
        return [False] * len(eqn.invars), None
    functions = eqn.params["functions"]
    if all(used_outputs) or functions.prune is None:
        return used_inputs, eqn
    fun, rule, prune = functions.prune(tuple(used_outputs))
    out_avals = tuple(a for a, used in zip(eqn.params["out_avals"], used_outputs) if used)
    params = dict(eqn.params, functions=_Functions(fun, rule, prune), out_avals=out_avals,
                  out_tree=jax.tree.structure(list(out_avals)))
    outvars = [v for v, used in zip(eqn.outvars, used_outputs) if used]
    return used_inputs, eqn.replace(params=params, outvars=outvars)


custom_vmap_p.def_abstract_eval(_abstract_eval)
custom_vmap_p.def_impl(_impl)
mlir.register_lowering(custom_vmap_p, _lowering)
batching.primitive_batchers[custom_vmap_p] = _batching_rule
pe.dce_rules[custom_vmap_p] = _dce_rule
