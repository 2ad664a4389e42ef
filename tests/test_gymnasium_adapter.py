"""``jaxenvs.gymnasium_env``: every env passes Gymnasium's own ``check_env``; the Gymnasium
env plays the jaxenvs env's trajectory for a seed, ends episodes as Gymnasium's do, and the
vector env resets in the same step with the last observations in ``info``."""

import warnings

import gymnasium
import jax
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import jaxenvs


@pytest.mark.parametrize("env_id", jaxenvs.registered_envs)
def test_every_env_passes_gymnasiums_checker(env_id):
    env = jaxenvs.gymnasium_env(env_id)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env, skip_render_check=True)
    complaints = [str(w.message) for w in caught if "WARN" in str(w.message)
                  and "infinity" not in str(w.message)]  # unbounded physics, as gymnasium's
    assert not complaints
    masked = "action_mask" in env.observation_space.spaces \
        if isinstance(env.observation_space, gymnasium.spaces.Dict) else False
    obs, info = env.reset(seed=0)
    assert ("action_mask" in info) == masked


def test_a_seed_gives_the_jaxenvs_trajectory_and_episodes_end_as_gymnasiums_do():
    env = jaxenvs.gymnasium_env("Pong", max_score=1)
    ours, params = jaxenvs.make("Pong", max_score=1)
    key = jax.random.key(5)
    key, reset_key = jax.random.split(key)
    want_obs, state = ours.reset(reset_key, params)
    obs, _ = env.reset(seed=5)
    np.testing.assert_array_equal(obs, np.asarray(want_obs))
    rng = np.random.default_rng(0)
    for t in range(2000):
        action = int(rng.integers(3))
        key, step_key = jax.random.split(key)
        _, state, want_reward, want_term, want_trunc, info = ours.step(step_key, state, action,
                                                                       params)
        obs, reward, terminated, truncated, _ = env.step(action)
        np.testing.assert_array_equal(obs, np.asarray(info["final_observation"]))
        assert reward == float(want_reward) and terminated == bool(want_term)
        if terminated or truncated:
            break
    assert terminated, "no episode ended"
    again, _ = env.reset(seed=5)
    np.testing.assert_array_equal(again, np.asarray(want_obs))


def test_the_vector_env_steps_a_batch_and_gives_last_observations_in_info():
    envs = jaxenvs.gymnasium_env("TCGJax", num_envs=4)
    assert isinstance(envs, gymnasium.vector.VectorEnv) and envs.num_envs == 4
    obs, info = envs.reset(seed=1)
    assert obs["action_mask"].shape == (4, 68) and info["action_mask"].dtype == bool
    ended = 0
    for _ in range(400):
        legal = [np.flatnonzero(mask) for mask in obs["action_mask"]]
        actions = np.array([row[0] for row in legal])
        obs, reward, terminated, truncated, info = envs.step(actions)
        assert reward.shape == terminated.shape == (4,)
        done = terminated | truncated
        np.testing.assert_array_equal(info["_final_obs"], done)
        ended += done.sum()
        assert envs.observation_space.contains(obs)
    assert ended > 0
    with pytest.raises(ValueError, match="num_envs"):
        jaxenvs.gymnasium_env("Pong", num_envs=0)
