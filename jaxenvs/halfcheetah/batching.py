"""Batch invariance: the same state gives the same next state, bit for bit, whatever batch it
runs in.

``linalg`` fixes the order of every sum, but XLA:CPU still decides per compiled kernel where a
multiply feeding an add becomes one fused multiply-add (LLVM's floating-point contraction, on
any CPU with FMA). Those decisions follow XLA's fusion, and XLA fuses a program whose batch
axis has length 1 differently from the same program with a longer batch axis: it drops the
unit axis and simplifies around it. Measured on this pipeline: batches of 2, 7 and 64 give
identical trajectories, a batch of 1 differs in the last bit after a few steps, and the chaos
of the contacts grows that bit into visible differences (with ``--xla_cpu_max_isa=AVX``,
which has no FMA, all batches agree).

``batch_invariant`` therefore never lets XLA see a batch of 1: an unbatched call and a vmap of
axis size 1 run the function on a batch of two copies of their input and keep the first, so
every call compiles to the same kernels as a batch of 2 or more. This costs a second copy only
at batch 1; larger batches run as plain ``vmap``, and on a CPU batches over ``CHUNK`` as a
loop over chunks of ``CHUNK`` states, each a ``vmap`` of the same kernels (a state's result
does not depend on the other states of its chunk: the solver keeps each converged state as it
is). On a GPU or TPU the whole batch is one ``vmap``: its envs run side by side there, and a
loop over chunks would run them in series (HalfCheetah on an H200 ran 184k env steps/s at
batch 1024 and 174k at 16384 in chunks of 256).
Measured: with it, trajectories agree bit for bit unbatched and at batches 1, 2, 7 and 300
(in two chunks) (``tests/halfcheetah/test_batch_invariance.py``).
(``custom_vmap`` functions are not reverse-differentiable; nothing here is meant to be
differentiated.)
"""

from __future__ import annotations

from typing import Callable

import jax
import jax.numpy as jnp


#: On a CPU, batches larger than this run as a sequential loop over chunks of this many
#: states: the solver's ``while_loop`` then iterates as long as the slowest state *of its
#: chunk* needs, not of the whole batch, and a chunk's arrays stay in cache. Measured (env
#: steps/s, random actions, 2 loaded cores): at batch 4096, 4.8k unchunked, 7-10k in chunks of
#: 512, 6-7k in chunks of 1024; at batch 1024, 7.6k in chunks of 512, 9.8k in chunks of 256.
CHUNK = 256


def _vmap(fun, in_batched, args, pad: bool):
    """``vmap(fun)`` over the batched leaves of ``args`` (axis 0), first doubling them when
    ``pad`` (a batch of one, run as a batch of two: keep row 0 of the result). A batch larger
    than ``CHUNK`` runs chunk by chunk (``lax.map``) on a CPU, its last chunk filled up with
    copies of its first states."""
    in_axes = tuple(jax.tree.map(lambda batched: 0 if batched else None, in_batched))
    if pad:
        args = tuple(jax.tree.map(lambda x, batched: jnp.concatenate([x, x]) if batched else x,
                                  arg, arg_batched)
                     for arg, arg_batched in zip(args, in_batched))
    leaves, treedef = jax.tree.flatten(args)
    leaf_batched = jax.tree.leaves(in_batched)
    size = max((x.shape[0] for x, b in zip(leaves, leaf_batched) if b), default=0)
    if size <= CHUNK or jax.default_backend() != "cpu":
        return jax.vmap(fun, in_axes)(*args)
    chunks = -(-size // CHUNK)

    def split(x):
        x = jnp.concatenate([x, x[:chunks * CHUNK - size]])
        return x.reshape(chunks, CHUNK, *x.shape[1:])

    def run(chunk):
        parts = iter(chunk)
        chunk_leaves = [next(parts) if b else x for x, b in zip(leaves, leaf_batched)]
        return jax.vmap(fun, in_axes)(*jax.tree.unflatten(treedef, chunk_leaves))

    out = jax.lax.map(run, [split(x) for x, b in zip(leaves, leaf_batched) if b])
    return jax.tree.map(lambda x: x.reshape(chunks * CHUNK, *x.shape[2:])[:size], out)


def batch_invariant(fun: Callable, shared_argnums: tuple[int, ...] = ()) -> Callable:
    """``fun`` (positional array arguments, a pytree result) computed as if in a batch of at
    least two, so its result does not depend on the batch it is vmapped over.

    ``shared_argnums``: arguments that a batched caller usually shares across the batch
    (parameters); an unbatched call keeps them unbatched, so that it runs exactly as a vmap
    of axis size 1 over the other arguments does.
    """

    @jax.custom_batching.custom_vmap
    def wrapped(*args):
        in_batched = tuple(jax.tree.map(lambda _: i not in shared_argnums, arg)
                           for i, arg in enumerate(args))
        args = tuple(jax.tree.map(lambda x, batched: x[None] if batched else x, arg, b)
                     for arg, b in zip(args, in_batched))
        return jax.tree.map(lambda x: x[0], _vmap(fun, in_batched, args, pad=True))

    @wrapped.def_vmap
    def rule(axis_size, in_batched, *args):
        out = _vmap(fun, in_batched, args, pad=axis_size == 1)
        if axis_size == 1:
            out = jax.tree.map(lambda x: x[:1], out)
        return out, jax.tree.map(lambda _: True, out)

    return wrapped
