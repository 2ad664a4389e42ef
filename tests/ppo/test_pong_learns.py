"""Pong's default PPO settings beat the scripted opponent (mean episode return > 0)."""

import dataclasses

import jax
import numpy as np

import jaxenvs
from jaxenvs.ppo import make_train
from jaxenvs.ppo.defaults import default_config


def test_pong_default_config_beats_the_opponent():
    env, params = jaxenvs.make("Pong")
    config = dataclasses.replace(default_config("Pong"), total_timesteps=6_000_000)
    metrics = jax.device_get(jax.jit(make_train(config, env, params))(jax.random.key(0))
                             ["metrics"])
    returns = metrics["episode_return"]
    assert np.nanmean(returns[:5]) < -15  # random play loses nearly every point
    assert np.nanmean(returns[-10:]) > 0
