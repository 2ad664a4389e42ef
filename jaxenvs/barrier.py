"""``materialize``: a fusion barrier that holds on XLA:CPU.

XLA:CPU fuses any chain of cheap elementwise operations into each of its consumers, even where
that recomputes the chain once per consumer and per element. In the game engines a random
draw (a hash or an LCG chain) and the branch it decides feed many wide selects over the state;
fused into each, the same chain ran tens of times per step. ``jax.lax.optimization_barrier``
does not stop it (XLA:CPU removes the barrier before fusing); a loop does: its result is a
buffer. ``materialize`` is such a loop, one that runs exactly once but whose trip count XLA
cannot prove, so it can neither inline the loop nor see that its body changes nothing.
"""

from __future__ import annotations

from typing import TypeVar

import jax
import jax.numpy as jnp

T = TypeVar("T")


def materialize(tree: T, counter: jax.Array) -> T:
    """``tree`` unchanged, computed in full before anything uses it.

    ``counter`` is any int32 scalar known only at run time (a turn or decision count): the
    loop counts from ``min(counter, 0)`` while below that plus one, so it runs once whatever
    the value, and XLA cannot fold it away."""
    first = jnp.minimum(counter, 0)

    def body(carry):
        x, i = carry
        return jax.tree.map(lambda v: jnp.where(i == first, v, jnp.zeros_like(v)), x), i + 1

    return jax.lax.while_loop(lambda c: c[1] < first + 1, body, (tree, first))[0]
