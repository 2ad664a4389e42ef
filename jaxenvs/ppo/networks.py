"""The actor-critic: separate MLPs for the policy and the value, for discrete (optionally
masked) and continuous (Gaussian, state-independent log-std) actions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Sequence

import distrax
import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np

#: Logit given to illegal actions: finite, so a distribution with one legal action still has
#: finite log-probabilities and zero (not NaN) entropy.
MASKED_LOGIT = -1e9


def split_observation(obs: Any) -> tuple[jax.Array, jax.Array | None]:
    """``(features, action_mask)``: every observation leaf but ``action_mask``, flattened and
    concatenated as float32, and the boolean mask if the observation has one."""
    mask = None
    if isinstance(obs, Mapping) and "action_mask" in obs:
        mask = obs["action_mask"]
        obs = {k: v for k, v in obs.items() if k != "action_mask"}
    leaves = [jnp.ravel(jnp.asarray(x, jnp.float32)) for x in jax.tree.leaves(obs)]
    return jnp.concatenate(leaves), mask


def _mlp(x: jax.Array, sizes: Sequence[int], activation, out: int, out_scale: float):
    for size in sizes:
        x = activation(nn.Dense(size, kernel_init=nn.initializers.orthogonal(np.sqrt(2)),
                                bias_init=nn.initializers.zeros)(x))
    return nn.Dense(out, kernel_init=nn.initializers.orthogonal(out_scale),
                    bias_init=nn.initializers.zeros)(x)


def policy_distribution(head: tuple[jax.Array, jax.Array | None]) -> distrax.Distribution:
    """The action distribution of ``ActorCritic``'s policy head, for any leading batch shape.

    Built outside the network because a distrax object returned through ``vmap`` keeps the
    batch shape it was traced with (none).
    """
    out, log_std = head
    if log_std is None:
        return distrax.Categorical(logits=out)
    return distrax.MultivariateNormalDiag(out, jnp.exp(log_std))


class ActorCritic(nn.Module):
    """Maps one observation (no batch axis; ``vmap`` for batches) to ``(head, value)``.

    ``head`` is ``(logits, None)`` for discrete actions (illegal ones set to ``MASKED_LOGIT``)
    or ``(mean, log_std)`` for continuous ones; ``policy_distribution(head)`` samples it.
    """

    action_dim: int
    """Number of discrete actions, or the size of a continuous action."""
    continuous: bool = False
    hidden_sizes: Sequence[int] = (64, 64)
    activation: str = "tanh"
    log_std_init: float = 0.0
    """Initial value of the continuous policy's log standard deviation."""

    @nn.compact
    def __call__(self, obs: Any) -> tuple[tuple[jax.Array, jax.Array | None], jax.Array]:
        act = nn.tanh if self.activation == "tanh" else nn.relu
        x, mask = split_observation(obs)
        value = _mlp(x, self.hidden_sizes, act, 1, 1.0)[0]
        out = _mlp(x, self.hidden_sizes, act, self.action_dim, 0.01)
        if self.continuous:
            return (out, self.param("log_std", nn.initializers.constant(self.log_std_init),
                                      (self.action_dim,))), value
        if mask is not None:
            out = jnp.where(mask, out, MASKED_LOGIT)
        return (out, None), value
