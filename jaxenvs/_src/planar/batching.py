"""Batch invariance: the same state gives the same next state, bit for bit, whatever batch it
runs in.

``linalg`` fixes the order of every sum, but XLA:CPU still decides per compiled kernel where a
multiply feeding an add becomes one fused multiply-add (LLVM's floating-point contraction, on
any CPU with FMA). Those decisions follow XLA's fusion, and XLA fuses a program whose batch
axis has length 1 differently from the same program with a longer batch axis: it drops the
unit axis and simplifies around it. On this pipeline batches of 2 or more give identical
trajectories while a batch of 1 differs in the last bit after a few steps, and the chaos of
the contacts grows that bit into visible differences (with ``--xla_cpu_max_isa=AVX``, which
has no FMA, all batches agree).

``batch_invariant`` therefore never lets XLA see a batch of 1: an unbatched call and a vmap of
axis size 1 run the function on a batch of two copies of their input and keep the first, so
every call compiles to the same kernels as a batch of 2 or more. This costs a second copy only
at batch 1; larger batches run as plain ``vmap``. The tests check that trajectories agree bit
for bit unbatched and at batches 1, 2, 7 and 300 (``tests/halfcheetah/test_batch_invariance.py``).
(It is a ``jaxenvs._src.batching.custom_vmap``, so not differentiable; nothing here is meant to
be differentiated.)
"""

from __future__ import annotations

from typing import Callable

import jax
import jax.numpy as jnp

from jaxenvs._src.batching import custom_vmap


def _vmap(fun, in_batched, args, pad: bool):
    """``vmap(fun)`` over the batched leaves of ``args`` (axis 0), first doubling them when
    ``pad`` (a batch of one, run as a batch of two: keep row 0 of the result)."""
    in_axes = tuple(jax.tree.map(lambda batched: 0 if batched else None, in_batched))
    if pad:
        args = tuple(jax.tree.map(lambda x, batched: jnp.concatenate([x, x]) if batched else x,
                                  arg, arg_batched)
                     for arg, arg_batched in zip(args, in_batched))
    return jax.vmap(fun, in_axes)(*args)


def batch_invariant(fun: Callable, shared_argnums: tuple[int, ...] = ()) -> Callable:
    """``fun`` (positional array arguments, a pytree result) computed as if in a batch of at
    least two, so its result does not depend on the batch it is vmapped over.

    ``shared_argnums``: arguments that a batched caller usually shares across the batch
    (parameters); an unbatched call keeps them unbatched, so that it runs exactly as a vmap
    of axis size 1 over the other arguments does.
    """

    def alone(*args):
        in_batched = tuple(jax.tree.map(lambda _: i not in shared_argnums, arg)
                           for i, arg in enumerate(args))
        args = tuple(jax.tree.map(lambda x, batched: x[None] if batched else x, arg, b)
                     for arg, b in zip(args, in_batched))
        return jax.tree.map(lambda x: x[0], _vmap(fun, in_batched, args, pad=True))

    def rule(axis_size, in_batched, *args):
        out = _vmap(fun, in_batched, args, pad=axis_size == 1)
        if axis_size == 1:
            out = jax.tree.map(lambda x: x[:1], out)
        return out, jax.tree.map(lambda _: True, out)

    # the unbatched form's trace (the whole function on a batch of two) only where it runs
    return custom_vmap(alone, rule, lambda *args: jax.eval_shape(fun, *args))
