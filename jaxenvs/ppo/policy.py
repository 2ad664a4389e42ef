"""A trained policy loaded for play outside the trainer: its env, network and parameters.

``jaxenvs eval`` and the L4 transfer checks (``jaxenvs.tcgjax.reference.transfer``,
``jaxenvs.pokejax.reference.transfer``, ``jaxenvs.planar_reference.transfer``) load a
checkpoint with ``TrainedPolicy.load``, which rebuilds what they share: the env the checkpoint was trained on
(with its parameter overrides, and normalizing observations with the saved, frozen
statistics if the run did), and the network applied to that env's observations. A reference
engine's observations go through ``observe`` first, so the network sees exactly what it would
see in the JAX env; ``act`` does both and draws actions with NumPy.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import jax
import numpy as np

from jaxenvs.ppo.checkpoint import config_from_description, load_checkpoint, load_obs_stats
from jaxenvs.ppo.defaults import make_env
from jaxenvs.ppo.evaluate import episode_returns
from jaxenvs.ppo.train import make_network
from jaxenvs.verify.transfer import sample_actions
from jaxenvs.wrappers import NormalizeObservation, RunningMeanStd


@dataclass
class TrainedPolicy:
    """A loaded checkpoint: the env it acts in, its network and parameters."""

    env_id: str
    """The id of the env it was trained on."""
    env: Any
    """The env it was trained on; wrapped in a frozen ``NormalizeObservation`` if the run
    normalized observations."""
    env_params: Any
    network: Any
    params: Any
    obs_stats: RunningMeanStd | None = None
    """The frozen observation statistics (``None`` if the run did not normalize)."""

    @classmethod
    def load(cls, checkpoint: str | Path, env_id: str,
             env_overrides: dict[str, Any] | None = None) -> "TrainedPolicy":
        """The policy of a ``jaxenvs train ENV_ID`` checkpoint (its parameters as nested dicts,
        which ``network.apply`` takes as they are: no template, so nothing to compile), in its
        training env with ``env_overrides`` applied on top of its own (an opponent to meet,
        say).

        Raises ``ValueError`` if it was trained on another env or an override is invalid, and
        ``FileNotFoundError`` if ``checkpoint`` is not a checkpoint folder or lacks its
        observation statistics."""
        params, description = load_checkpoint(checkpoint)
        if description["env_id"] != env_id:
            raise ValueError(f"{checkpoint} was trained on {description['env_id']}, not "
                             f"{env_id}")
        config = config_from_description(description)
        env, env_params = make_env(env_id, **{**description["env_overrides"],
                                              **(env_overrides or {})})
        network = make_network(config, env, env_params)
        if not config.normalize_observations:
            return cls(env_id, env, env_params, network, params)
        shapes = jax.eval_shape(env.reset, jax.random.key(0), env_params)[0]
        example = jax.tree.map(lambda s: np.zeros(s.shape, s.dtype), shapes)
        stats = load_obs_stats(checkpoint, RunningMeanStd.for_observation(example))
        return cls(env_id, NormalizeObservation(env, frozen_stats=stats), env_params, network,
                   params, stats)

    def observe(self, obs: Any) -> Any:
        """What the network sees of a raw observation (or batch of them) of the env: the
        observation itself, or normalized with the frozen statistics exactly as the wrapped
        env does (``NormalizeObservation.clip``)."""
        if self.obs_stats is None:
            return obs
        return self.obs_stats.normalize(jax.tree.map(np.float32, obs), self.env.clip)

    def act(self, obs: Any, rng: np.random.Generator, greedy: bool = False) -> np.ndarray:
        """Actions for a batch of raw observations (leading axis): sampled with ``rng``
        (discrete: from the softmax; continuous: from the Gaussian, then clipped to the action
        space as in training), or with ``greedy`` the most likely ones."""
        out, log_std = _heads(self.network, self.params, self.observe(obs))[0]
        out = np.asarray(out)
        if log_std is None:
            return sample_actions(out, rng, greedy)
        if not greedy:
            out = out + np.exp(np.asarray(log_std)) * rng.standard_normal(out.shape)
        space = self.env.action_space(self.env_params)
        return np.clip(out, space.low, space.high).astype(np.float32)

    def env_returns(self, episodes: int, seed: int, max_steps: int,
                    greedy: bool = False) -> np.ndarray:
        """float[episodes]: the return of the first episode of each of ``episodes`` parallel
        envs (from ``jax.random.key(seed)``), NaN where it had not ended within
        ``max_steps`` steps."""
        return episode_returns(self.network, self.params, self.env, self.env_params,
                               jax.random.key(seed), episodes, max_steps, greedy)

    def env_wins(self, episodes: int, seed: int, max_steps: int,
                 greedy: bool = False) -> tuple[np.ndarray, int]:
        """``(wins, unfinished)``: float[episodes], 1 where ``env_returns`` is positive (a
        won game of a +1/-1 reward env), and how many episodes had not ended within
        ``max_steps`` steps (they count as not won)."""
        returns = self.env_returns(episodes, seed, max_steps, greedy)
        unfinished = int(np.sum(~np.isfinite(returns)))
        return (np.nan_to_num(returns) > 0).astype(np.float64), unfinished


@partial(jax.jit, static_argnums=0)
def _heads(network, params, obs):
    """``network``'s ``(head, value)`` for a batch of observations (one compile per network
    and batch shape)."""
    return jax.vmap(network.apply, in_axes=(None, 0))(params, obs)
