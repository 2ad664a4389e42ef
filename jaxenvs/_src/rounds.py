"""``while_loop``: a loop whose batched form, on the fast path, steps only the elements still
running.

Under ``vmap`` a ``lax.while_loop`` runs its body on the whole batch until its last element is
done. On the fast path (``gate``) the batched loop instead goes in rounds over the elements
still running (``cpu_kernels.rounds``), each element through the same body the same number of
times as alone; elsewhere it is ``lax.while_loop``.
"""

from __future__ import annotations

from typing import Callable, TypeVar

import jax

from jaxenvs._src import gate

Operands = TypeVar("Operands")
Carry = TypeVar("Carry")


def while_loop(cond_fun: Callable[[Operands, Carry], jax.Array],
               body_fun: Callable[[Operands, Carry], Carry], operands: Operands,
               init: Carry, fraction: int, kernel: bool = False) -> Carry:
    """``lax.while_loop`` of ``body_fun(operands, carry)`` while ``cond_fun(operands,
    carry)``, from ``init``. On the fast path: batched, in rounds of ``1 / fraction`` of the
    batch; with ``kernel``, compiled as XLA:CPU kernels. ``operands`` are what the loop reads
    and does not change; every traced value the functions use comes in through ``operands``
    or ``init``, not by closure."""
    kernels = gate.kernels()
    if kernels is None:
        return jax.lax.while_loop(lambda carry: cond_fun(operands, carry),
                                  lambda carry: body_fun(operands, carry), init)
    return kernels.rounds.while_loop(cond_fun, body_fun, operands, init, fraction, kernel)
