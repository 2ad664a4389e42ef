"""Observation normalization and reward scaling: the two wrappers gymnax lacks that PPO needs.

Both keep running statistics in the environment state, so they stay pure and work under
``vmap``, ``scan`` and ``jit`` like any gymnax environment. Statistics are per environment
copy by default. Give ``axis_name`` and ``vmap`` the wrapped env with that same
``axis_name`` (as ``make_train`` does) and every step instead folds the whole batch into the
statistics, through ``lax.pmean``, so all copies share one estimate, as in Stable-Baselines'
``VecNormalize`` or Brax's running statistics.

Only floating-point observation leaves are normalized; integer and boolean leaves (an
``action_mask``, card ids) pass through untouched. ``info["final_observation"]`` is
normalized with the same statistics as the observation, so a truncation bootstrap sees what
the policy sees.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from flax import struct
from gymnax.wrappers.purerl import GymnaxWrapper


@struct.dataclass
class RunningMeanStd:
    """Mean and variance of everything seen so far (Chan et al.'s parallel update)."""

    mean: Any
    """Running mean, one leaf per floating observation leaf (shape of that leaf)."""
    var: Any
    """Running (population) variance, same structure as ``mean``."""
    count: jax.Array
    """Number of samples folded in, as float32 (starts at a tiny epsilon, not 0)."""

    @classmethod
    def like(cls, example: Any) -> "RunningMeanStd":
        """Statistics with mean 0 and variance 1 for observations shaped like ``example``."""
        return cls(jax.tree.map(jnp.zeros_like, example), jax.tree.map(jnp.ones_like, example),
                   jnp.asarray(1e-4, jnp.float32))

    @classmethod
    def for_observation(cls, obs: Any) -> "RunningMeanStd":
        """Initial statistics for the floating leaves of observations shaped like ``obs``."""
        return cls.like(_split_floats(obs)[0])

    def update(self, sample: Any, axis_name: str | None) -> "RunningMeanStd":
        """Fold one sample in, or with ``axis_name`` the whole mapped batch of samples."""
        if axis_name is None:
            batch_mean, batch_var, batch_count = sample, jax.tree.map(jnp.zeros_like, sample), 1.0
        else:
            batch_mean = jax.lax.pmean(sample, axis_name)
            batch_var = jax.lax.pmean(
                jax.tree.map(lambda x, m: jnp.square(x - m), sample, batch_mean), axis_name)
            batch_count = jax.lax.psum(1.0, axis_name)
        total = self.count + batch_count

        def combine(mean, var, b_mean, b_var):
            delta = b_mean - mean
            new_mean = mean + delta * batch_count / total
            m2 = var * self.count + b_var * batch_count + jnp.square(delta) * self.count * batch_count / total
            return new_mean, m2 / total

        pairs = jax.tree.map(combine, self.mean, self.var, batch_mean, batch_var)
        is_pair = lambda x: isinstance(x, tuple)  # noqa: E731
        return RunningMeanStd(jax.tree.map(lambda p: p[0], pairs, is_leaf=is_pair),
                              jax.tree.map(lambda p: p[1], pairs, is_leaf=is_pair), total)

    def normalize(self, x: Any, clip: float) -> Any:
        """``(x - mean) / std``, clipped to ``[-clip, clip]``."""
        return jax.tree.map(
            lambda v, m, s: jnp.clip((v - m) / jnp.sqrt(s + 1e-8), -clip, clip).astype(v.dtype),
            x, self.mean, self.var)


def _split_floats(obs: Any) -> tuple[Any, Any]:
    """``(floats, rebuild)``: the floating leaves of ``obs`` (others as ``None``) and a
    function that puts replacement floating leaves back into ``obs``'s structure."""
    is_float = lambda x: jnp.issubdtype(jnp.asarray(x).dtype, jnp.floating)  # noqa: E731
    floats = jax.tree.map(lambda x: x if is_float(x) else None, obs)

    def rebuild(original: Any, new_floats: Any) -> Any:
        leaves, treedef = jax.tree.flatten(original)
        replacement = iter(jax.tree.leaves(new_floats))
        return jax.tree.unflatten(
            treedef, [next(replacement) if is_float(leaf) else leaf for leaf in leaves])

    return floats, rebuild


@struct.dataclass
class NormalizeObservationState:
    """The wrapped env's state and the observation statistics."""

    env_state: Any
    obs_stats: RunningMeanStd


class NormalizeObservation(GymnaxWrapper):
    """Observations shifted and scaled by running mean and std, then clipped.

    ``frozen_stats`` fixes the statistics (no updates), e.g. those saved with a trained
    policy, for evaluation. Without it, statistics start at mean 0, variance 1 and update at
    every reset and step.
    """

    def __init__(self, env, axis_name: str | None = None, clip: float = 10.0,
                 frozen_stats: RunningMeanStd | None = None):
        super().__init__(env)
        self.axis_name = axis_name
        self.clip = clip
        self.frozen_stats = frozen_stats

    def _observe(self, stats: RunningMeanStd, obs: Any) -> tuple[Any, RunningMeanStd]:
        floats, rebuild = _split_floats(obs)
        if self.frozen_stats is None:
            stats = stats.update(floats, self.axis_name)
        else:
            stats = self.frozen_stats
        return rebuild(obs, stats.normalize(floats, self.clip)), stats

    def reset(self, key: jax.Array, params=None):
        obs, env_state = self._env.reset(key, params)
        obs, stats = self._observe(RunningMeanStd.for_observation(obs), obs)
        return obs, NormalizeObservationState(env_state, stats)

    def step(self, key: jax.Array, state: NormalizeObservationState, action, params=None):
        obs, env_state, reward, terminated, truncated, info = self._env.step(
            key, state.env_state, action, params)
        obs, stats = self._observe(state.obs_stats, obs)
        floats, rebuild = _split_floats(info["final_observation"])
        info = {**info, "final_observation": rebuild(info["final_observation"],
                                                     stats.normalize(floats, self.clip))}
        return obs, NormalizeObservationState(env_state, stats), reward, terminated, truncated, info


@struct.dataclass
class ScaleRewardState:
    """The wrapped env's state, the running discounted return and its statistics."""

    env_state: Any
    discounted_return: jax.Array
    """``sum_k gamma^k r_{t-k}`` within the current episode (float32 scalar per env)."""
    return_stats: RunningMeanStd


class ScaleReward(GymnaxWrapper):
    """Rewards divided by the running standard deviation of the discounted return.

    This is the reward scaling of PPO implementations (gym's ``NormalizeReward``): it keeps
    value targets near unit scale whatever the reward's units, without shifting the reward
    (shifting would change which policy is optimal). The unscaled reward is in
    ``info["unscaled_reward"]``, so returns can still be logged in the env's own units.
    """

    def __init__(self, env, gamma: float, axis_name: str | None = None, clip: float = 10.0):
        super().__init__(env)
        self.gamma = gamma
        self.axis_name = axis_name
        self.clip = clip

    def reset(self, key: jax.Array, params=None):
        obs, env_state = self._env.reset(key, params)
        zero = jnp.zeros((), jnp.float32)
        return obs, ScaleRewardState(env_state, zero, RunningMeanStd.like(zero))

    def step(self, key: jax.Array, state: ScaleRewardState, action, params=None):
        obs, env_state, reward, terminated, truncated, info = self._env.step(
            key, state.env_state, action, params)
        discounted = state.discounted_return * self.gamma + reward
        stats = state.return_stats.update(discounted, self.axis_name)
        scaled = jnp.clip(reward / jnp.sqrt(stats.var + 1e-8), -self.clip, self.clip)
        done = terminated | truncated
        state = ScaleRewardState(env_state, jnp.where(done, 0.0, discounted), stats)
        info = {**info, "unscaled_reward": reward}
        return obs, state, scaled.astype(jnp.float32), terminated, truncated, info
