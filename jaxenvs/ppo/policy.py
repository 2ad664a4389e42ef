"""A trained policy loaded for play outside the trainer: its env, network and parameters.

The L4 transfer checks (``jaxenvs.tcgjax.transfer``, ``jaxenvs.pokejax.transfer``) play one
checkpoint both in its JAX env and in a reference engine. ``TrainedPolicy.load`` rebuilds what
they share: the env the checkpoint was trained on (with its parameter overrides) and the
network applied to that env's observations; ``env_wins`` plays it in the JAX env.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jax
import numpy as np

from jaxenvs.ppo.checkpoint import config_from_description, load_checkpoint
from jaxenvs.ppo.defaults import make_env
from jaxenvs.ppo.evaluate import episode_returns
from jaxenvs.ppo.train import make_network


@dataclass
class TrainedPolicy:
    """A loaded checkpoint: the env it was trained on, its network and parameters."""

    env: Any
    env_params: Any
    network: Any
    params: Any

    @classmethod
    def load(cls, checkpoint: str | Path, env_id: str) -> "TrainedPolicy":
        """The policy of a ``jaxenvs train ENV_ID`` checkpoint (its parameters as nested dicts,
        which ``network.apply`` takes as they are: no template, so nothing to compile).

        Raises ``ValueError`` if it was trained on another env, or with normalized
        observations (whose frozen statistics the reference side would have to apply too)."""
        params, description = load_checkpoint(checkpoint)
        if description["env_id"] != env_id:
            raise ValueError(f"{checkpoint} was trained on {description['env_id']}, not "
                             f"{env_id}")
        config = config_from_description(description)
        if config.normalize_observations:
            raise ValueError(f"{checkpoint}: normalize_observations is not supported here")
        env, env_params = make_env(env_id, **description["env_overrides"])
        return cls(env, env_params, make_network(config, env, env_params), params)

    def env_wins(self, episodes: int, seed: int, max_steps: int,
                 greedy: bool = False) -> tuple[np.ndarray, int]:
        """``(wins, unfinished)``: float[episodes], 1 where the first episode of each of
        ``episodes`` parallel envs (from ``jax.random.key(seed)``) had a positive return (a
        won game of a +1/-1 reward env), and how many had not ended within ``max_steps``
        steps (they count as not won)."""
        returns = episode_returns(self.network, self.params, self.env, self.env_params,
                                  jax.random.key(seed), episodes, max_steps, greedy)
        unfinished = int(np.sum(~np.isfinite(returns)))
        return (np.nan_to_num(returns) > 0).astype(np.float64), unfinished
