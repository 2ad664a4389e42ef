"""``through_a_loop``: a value XLA must compute in full before anything uses it.

XLA fuses any chain of cheap elementwise operations into each of its consumers, even where
that recomputes the chain once per consumer and per element; ``jax.lax.optimization_barrier``
does not stop it on XLA:CPU (it is removed before fusing). A loop does: its result is a
buffer. Plain JAX: ``barrier.materialize_everywhere`` uses it in the plain form, the fast
path in its batched forms.
"""

from __future__ import annotations

from typing import TypeVar

import jax
import jax.numpy as jnp

T = TypeVar("T")


def through_a_loop(tree: T, counter: jax.Array) -> T:
    """``tree`` unchanged, as the result of a loop that runs once: everything that uses it
    comes after everything it is made from. ``counter``: any int32 scalar known only at run
    time; the loop counts from ``min(counter, 0)`` while below that plus one, so it runs once
    whatever the value, and XLA cannot fold it away. The loop's body is no identity either,
    which XLA would see through."""
    first = jnp.minimum(counter, 0)

    def body(carry):
        x, i = carry
        return jax.tree.map(lambda v: jnp.where(i == first, v, jnp.zeros_like(v)), x), i + 1

    return jax.lax.while_loop(lambda c: c[1] < first + 1, body, (tree, first))[0]
