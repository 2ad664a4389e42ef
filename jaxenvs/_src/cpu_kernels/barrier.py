"""``materialize``: a fusion barrier that holds on XLA:CPU.

XLA:CPU fuses any chain of cheap elementwise operations into each of its consumers, even where
that recomputes the chain once per consumer and per element. In the game engines a random
draw (a hash or an LCG chain) and the branch it decides feed many wide selects over the state;
fused into each, the same chain ran tens of times per step. ``jax.lax.optimization_barrier``
does not stop it (XLA:CPU removes the barrier before fusing); a loop does: its result is a
buffer. ``materialize`` is such a loop, one that runs exactly once but whose trip count XLA
cannot prove, so it can neither inline the loop nor see that its body changes nothing.

The recomputation it prevents is that of batched code, where each recomputed element is a
whole batch's worth. Unbatched (one env, or each env of a ``loop_vmap`` loop) it is
the identity: there a loop costs more than the few scalars it saves, and inside an XLA:CPU
kernel XLA turns each small loop into a call of its own, a kind of call its emitter has
rejected (``kernel_rewrite``: the threefry hash's loops).
"""

from __future__ import annotations

from typing import TypeVar

import jax
import jax.numpy as jnp

from jaxenvs._src.cpu_kernels import lazy_vmap
from jaxenvs._src.fence import through_a_loop

T = TypeVar("T")


def materialize(tree: T, counter: jax.Array) -> T:
    """``tree`` unchanged; batched, computed in full before anything uses it.

    ``counter`` is any int32 scalar known only at run time (a turn or decision count): the
    loop counts from ``min(counter, 0)`` while below that plus one, so it runs once whatever
    the value, and XLA cannot fold it away."""
    return _barrier(tree, counter)


def _in_a_loop(axis_size, in_batched, tree, counter):
    tree_batched, counter_batched = in_batched
    return through_a_loop(tree, jnp.min(counter) if counter_batched else counter), tree_batched


_barrier = lazy_vmap.custom_vmap(lambda tree, counter: tree, _in_a_loop,
                                 lambda tree, counter: jax.tree.map(jax.typeof, tree))
