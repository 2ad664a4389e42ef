"""Evaluating a trained policy: the returns of whole episodes, one per parallel env."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxenvs.ppo.networks import policy_distribution


def episode_returns(network, params: Any, env, env_params, key: jax.Array,
                    num_episodes: int, max_steps: int, greedy: bool = False) -> np.ndarray:
    """Returns of the first episode of each of ``num_episodes`` parallel envs.

    Each env runs until its first episode ends (at most ``max_steps`` steps; the loop stops
    once all have ended); an env whose episode did not end gives NaN. ``greedy`` takes the
    most likely action instead of sampling.
    """
    space = env.action_space(env_params)
    batch_apply = jax.vmap(network.apply, in_axes=(None, 0))

    def step(obs, state, total, running, key):
        action_key, step_key = jax.random.split(key)
        policy = policy_distribution(batch_apply(params, obs)[0])
        action = policy.mode() if greedy else policy.sample(seed=action_key)
        if network.continuous:
            action = jnp.clip(action, space.low, space.high)
        obs, state, reward, terminated, truncated, _ = jax.vmap(
            env.step, in_axes=(0, 0, 0, None))(
            jax.random.split(step_key, num_episodes), state, action, env_params)
        total = total + jnp.where(running, reward, 0.0)
        running = running & ~(terminated | truncated)
        return obs, state, total, running

    @jax.jit
    def run(key):
        reset_key, steps_key = jax.random.split(key)
        obs, state = jax.vmap(env.reset, in_axes=(0, None))(
            jax.random.split(reset_key, num_episodes), env_params)
        step_keys = jax.random.split(steps_key, max_steps)
        carry = (obs, state, jnp.zeros(num_episodes), jnp.ones(num_episodes, bool), 0)
        # Stop as soon as every episode has ended: max_steps is only a bound.
        _, _, total, running, _ = jax.lax.while_loop(
            lambda c: c[3].any() & (c[4] < max_steps),
            lambda c: (*step(*c[:4], step_keys[c[4]]), c[4] + 1), carry)
        return jnp.where(running, jnp.nan, total)

    return np.asarray(run(key))
