"""``while_loop``: a loop whose batched form steps only the elements still running.

Under ``vmap`` a ``lax.while_loop`` runs its body on the whole batch until the last element is
done, so a batch pays its slowest element's iterations for every element. Where most elements
need a few iterations and a few need many (HalfCheetah's constraint solver: half the states of
a random-action rollout take no Newton step and a quarter one), that is most of the work.
(The game engines instead run each env's step on its own on a CPU, ``loop_vmap``.)

On a CPU, where a kernel costs in proportion to the elements it touches, ``while_loop``'s
batched form instead takes the loop in rounds: each round gathers up to ``round_size``
elements still running (the first ones, in batch order), runs the body on them, scatters the
results back and checks which of them still run, until none does. Each element goes through
the same body, the same number of times, as alone, so what it computes does not depend on
the batch it runs in (bit for bit for integer game logic; for float code XLA may still
contract multiply-adds differently in differently shaped kernels, see
``halfcheetah.batching``). An accelerator runs a batch's elements side by side, so rounds
over part of the batch would leave the rest idle: there the batched form is the plain
vmapped loop, as it is for a batch no larger than one round.
"""

from __future__ import annotations

from typing import Callable, TypeVar

import jax
import jax.numpy as jnp

from jaxenvs._src.cpu_kernels import lazy_vmap
from jaxenvs._src.cpu_kernels.kernel import one_kernel

Operands = TypeVar("Operands")
Carry = TypeVar("Carry")


def round_size(batch: int, fraction: int) -> int:
    """Elements per round for a batch of ``batch``: ``1 / fraction`` of it, at least 2 (a
    batch axis of 1 compiles differently; see ``halfcheetah.batching``)."""
    return max(2, batch // fraction)


def while_loop(cond_fun: Callable[[Operands, Carry], jax.Array],
               body_fun: Callable[[Operands, Carry], Carry], operands: Operands,
               init: Carry, fraction: int, kernel: bool = False) -> Carry:
    """``lax.while_loop`` of ``body_fun(operands, carry)`` while ``cond_fun(operands,
    carry)``, from ``init``; vmapped on a CPU, in rounds of ``round_size(batch, fraction)``
    elements (module docstring).

    ``operands`` are what the loop reads and does not change. Every traced value the
    functions use must come in through ``operands`` or ``init``, not by closure
    (``lazy_vmap.custom_vmap``, which this is, traces the unbatched loop only when
    compiling it). The loop is not differentiable.

    ``kernel``: compile the loop on a CPU as XLA:CPU kernels (``kernel``): where it
    runs as one plain loop (unbatched, or batched within one round), the whole loop as one
    kernel; in rounds, each round's ``body_fun`` on its gathered elements as one. The functions
    must then use nothing a kernel cannot hold.
    """
    def alone(operands, init):
        return jax.lax.while_loop(lambda carry: cond_fun(operands, carry),
                                  lambda carry: body_fun(operands, carry), init)

    return _batched_in_rounds(alone, cond_fun, body_fun, operands, init, fraction, kernel)


def _batched_in_rounds(alone, cond_fun, body_fun, operands, init, fraction, kernel=False):
    """``alone(operands, init)``, whose batched form on a CPU, above one round, steps the
    elements where ``cond_fun`` holds with ``body_fun`` in rounds until it holds nowhere;
    ``kernel``: ``alone``, batched or not, and each round's step as XLA:CPU kernels."""
    as_kernel = one_kernel if kernel else (lambda fun: fun)

    def in_rounds(axis_size, in_batched, operands, init):
        operands_batched, init_batched = in_batched
        operand_axes = jax.tree.map(lambda batched: 0 if batched else None, operands_batched)
        size = round_size(axis_size, fraction)
        all_batched = jax.tree.map(lambda _: True, init)
        if size >= axis_size:
            init_axes = jax.tree.map(lambda batched: 0 if batched else None, init_batched)
            return as_kernel(jax.vmap(alone, (operand_axes, init_axes), axis_size=axis_size))(
                operands, init), all_batched
        carry = jax.tree.map(
            lambda x, batched: x if batched else jnp.broadcast_to(x, (axis_size, *x.shape)),
            init, init_batched)
        step = as_kernel(jax.vmap(body_fun, (operand_axes, 0)))
        running = jax.vmap(cond_fun, (operand_axes, 0))

        def round_(loop):
            carry, going, rounds_run = loop
            rank = jnp.cumsum(going) - 1
            slot = jnp.where(going & (rank < size), rank, size)  # size: not in this round
            picked = jnp.zeros(size, jnp.int32).at[slot].set(
                jnp.arange(axis_size, dtype=jnp.int32), mode="drop")
            real = jnp.arange(size) < jnp.sum(going)  # the other slots repeat element 0
            picked_operands = jax.tree.map(lambda x, batched: x[picked] if batched else x,
                                           operands, operands_batched)
            stepped = step(picked_operands, jax.tree.map(lambda x: x[picked], carry))
            back = jnp.where(real, picked, axis_size)  # axis_size: dropped
            carry = jax.tree.map(lambda x, y: x.at[back].set(y, mode="drop"), carry, stepped)
            going = going.at[back].set(running(picked_operands, stepped), mode="drop")
            return carry, going, rounds_run + 1

        # The condition reads the rounds run as well, though ``rounds_run >= 0`` holds (short
        # of 2**31 rounds): XLA's trip-count analysis, which its while-loop passes run many
        # times a compile, follows a condition that reads one loop value back through the
        # body's update of it, and here would clone the round's kernel computation each time,
        # much of a HalfCheetah compile (``docs/halfcheetah.md``, "Compile time"); a condition
        # on two loop values ends that analysis at once.
        carry, _, _ = jax.lax.while_loop(
            lambda loop: jnp.any(loop[1]) & (loop[2] >= 0), round_,
            (carry, running(operands, carry), jnp.int32(0)))
        return carry, all_batched

    looped = lazy_vmap.custom_vmap(as_kernel(alone), in_rounds,
                                   lambda operands, init: jax.tree.map(jax.typeof, init))
    return looped(operands, init)
