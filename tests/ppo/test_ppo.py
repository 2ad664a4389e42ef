"""The PPO core: CartPole learns, runs are reproducible, masks hold, GAE and config checks."""

import dataclasses

import gymnax
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxenvs
from jaxenvs.ppo import ActorCritic, PPOConfig, gae, make_train, policy_distribution
from jaxenvs.ppo.train import Transition


@pytest.fixture(scope="module")
def cartpole_run():
    env, params = gymnax.make("CartPole-v1")
    train = jax.jit(make_train(PPOConfig(), env, params))
    return train, jax.device_get(train(jax.random.key(0))["metrics"])


def test_cartpole_learns(cartpole_run):
    _, metrics = cartpole_run
    returns = metrics["episode_return"]
    assert np.nanmean(returns[:10]) < 100
    assert np.nanmean(returns[-20:]) >= 450


def test_same_seed_same_metrics(cartpole_run):
    train, metrics = cartpole_run
    again = jax.device_get(train(jax.random.key(0))["metrics"])
    for name, values in metrics.items():
        np.testing.assert_array_equal(values, again[name], err_msg=name)


def test_cartpole_learns_with_normalized_observations_and_scaled_rewards():
    env, params = gymnax.make("CartPole-v1")
    config = PPOConfig(normalize_observations=True, scale_rewards=True)
    out = jax.jit(make_train(config, env, params))(jax.random.key(0))
    returns = jax.device_get(out["metrics"]["episode_return"])  # in CartPole's own units
    assert np.nanmean(returns[:10]) < 100
    assert np.nanmean(returns[-20:]) >= 450
    stats = out["env_state"].obs_stats  # shared by the batch: every env holds the same
    np.testing.assert_array_equal(stats.mean, np.broadcast_to(stats.mean[0], stats.mean.shape))
    assert stats.count[0] == pytest.approx(config.num_envs * (config.num_updates * config.num_steps + 1), rel=1e-6)


def test_vmap_over_seeds_equals_separate_runs():
    env, params = gymnax.make("CartPole-v1")
    config = PPOConfig(num_envs=4, num_steps=16, total_timesteps=3 * 4 * 16)
    train = make_train(config, env, params)
    keys = jax.random.split(jax.random.key(7), 3)
    together = jax.device_get(jax.jit(jax.vmap(train))(keys)["metrics"])
    for seed in range(3):
        alone = jax.device_get(jax.jit(train)(keys[seed])["metrics"])
        for name, values in alone.items():
            np.testing.assert_allclose(together[name][seed], values, rtol=1e-5, atol=1e-6,
                                       err_msg=name)


def test_masked_policy_never_samples_illegal_actions_and_stays_finite():
    net = ActorCritic(action_dim=5)
    mask = jnp.array([False, False, True, False, False])
    obs = {"features": jnp.ones(3), "action_mask": mask}
    params = net.init(jax.random.key(0), obs)
    head, value = net.apply(params, obs)
    policy = policy_distribution(head)
    samples = policy.sample(seed=jax.random.key(1), sample_shape=(2000,))
    assert (np.asarray(samples) == 2).all()
    assert np.isfinite(float(policy.entropy())) and abs(float(policy.entropy())) < 1e-6
    assert np.isfinite(float(policy.log_prob(2))) and np.isfinite(float(value))
    two = {"features": jnp.ones(3), "action_mask": mask.at[4].set(True)}
    samples = policy_distribution(net.apply(params, two)[0]).sample(
        seed=jax.random.key(2), sample_shape=(2000,))
    assert set(np.unique(np.asarray(samples))) == {2, 4}


def test_gae_matches_a_hand_computation_and_stops_at_done():
    gamma, lam = 0.9, 0.5
    reward = jnp.array([[1.0], [2.0], [3.0]])
    value = jnp.array([[0.5], [1.0], [1.5]])
    done = jnp.array([[False], [True], [False]])
    traj = Transition(obs=jnp.zeros((3, 1, 1)), action=jnp.zeros((3, 1), jnp.int32),
                      log_prob=jnp.zeros((3, 1)), value=value, reward=reward, done=done)
    advantages, targets = gae(traj, jnp.array([2.0]), gamma, lam)
    d2 = 3.0 + gamma * 2.0 - 1.5
    d1 = 2.0 - 1.0  # done: no bootstrap across the episode boundary
    d0 = 1.0 + gamma * 1.0 - 0.5
    expected = np.array([d0 + gamma * lam * d1, d1, d2])
    np.testing.assert_allclose(np.asarray(advantages)[:, 0], expected, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(targets), np.asarray(advantages) + np.asarray(value))


@pytest.mark.parametrize("clip_value", [True, False])
def test_continuous_actions_train_without_nans(clip_value):
    env, params = jaxenvs.make("PongContinuous")
    config = PPOConfig(total_timesteps=2 * 4 * 16, num_envs=4, num_steps=16,
                       clip_value=clip_value)
    out = jax.jit(make_train(config, env, params))(jax.random.key(0))
    metrics = jax.device_get(out["metrics"])
    for name in ("loss", "value_loss", "policy_loss", "entropy"):
        assert np.isfinite(metrics[name]).all(), name
    assert "log_std" in out["train_state"].params["params"]


def test_gaussian_policy_starts_at_log_std_init():
    net = ActorCritic(action_dim=3, continuous=True, log_std_init=-2.0)
    params = net.init(jax.random.key(0), jnp.ones(8))
    np.testing.assert_array_equal(params["params"]["log_std"], np.full(3, -2.0, np.float32))


def test_batched_gaussian_policy_has_one_action_per_env():
    net = ActorCritic(action_dim=1, continuous=True)
    params = net.init(jax.random.key(0), jnp.ones(8))
    head, _ = jax.vmap(net.apply, in_axes=(None, 0))(params, jnp.ones((4, 8)))
    policy = policy_distribution(head)
    action = policy.sample(seed=jax.random.key(1))
    assert action.shape == (4, 1) and policy.log_prob(action).shape == (4,)


@pytest.mark.parametrize("change, message", [
    ({"num_minibatches": 3}, "must divide"),
    ({"total_timesteps": 10}, "less than one update"),
    ({"num_envs": 0}, "num_envs"),
    ({"gamma": 1.5}, "gamma"),
    ({"activation": "gelu"}, "activation"),
])
def test_invalid_config_is_refused(change, message):
    with pytest.raises(ValueError, match=message):
        dataclasses.replace(PPOConfig(), **change)
