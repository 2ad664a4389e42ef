"""Observation normalization and reward scaling: the statistics are the ones numpy computes
from the same stream, shared across a vmapped batch when asked, and non-float leaves pass."""

import gymnax
import jax
import jax.numpy as jnp
import numpy as np
from flax import struct
from gymnax.environments import environment, spaces

from jaxenvs.wrappers import NormalizeObservation, RunningMeanStd, ScaleReward


@struct.dataclass
class CounterState(environment.EnvState):
    value: jax.Array
    time: int


class NoisyCounter(environment.Environment):
    """A float observation ``value + noise`` with a boolean mask leaf, reward ``value``;
    episodes last 5 steps, so auto-resets happen."""

    @property
    def default_params(self):
        return environment.EnvParams(max_steps_in_episode=5)

    def step_env(self, key, state, action, params):
        value = state.value + 1.0 + jax.random.normal(key)
        state = CounterState(value=value, time=state.time + 1)
        return self.get_obs(state), state, value, jnp.array(False), {}

    def reset_env(self, key, params):
        state = CounterState(value=jax.random.uniform(key) * 3.0, time=0)
        return self.get_obs(state), state

    def get_obs(self, state, params=None, key=None):
        return {"x": jnp.stack([state.value, 2.0 * state.value + 5.0]),
                "action_mask": jnp.array([True, state.value > 1.0])}

    def observation_space(self, params):
        return spaces.Dict({"x": spaces.Box(-jnp.inf, jnp.inf, (2,)),
                            "action_mask": spaces.Box(0, 1, (2,), jnp.bool_)})

    def action_space(self, params):
        return spaces.Discrete(2)


def rollout(env, num_envs, num_steps, axis_name=None, seed=0):
    """Raw and wrapped outputs of ``num_steps`` steps of ``num_envs`` vmapped copies."""
    params = env.default_params
    reset = jax.vmap(env.reset, in_axes=(0, None), axis_name=axis_name)
    step = jax.vmap(env.step, in_axes=(0, 0, None, None), axis_name=axis_name)

    def body(carry, key):
        obs, state = carry
        out = step(jax.random.split(key, num_envs), state, 0, params)
        return (out[0], out[1]), (out[0], out[2], out[3] | out[4], out[5], out[1])

    key = jax.random.key(seed)
    obs, state = reset(jax.random.split(key, num_envs), params)
    _, outs = jax.lax.scan(body, (obs, state), jax.random.split(key, num_steps))
    return obs, state, outs


def test_per_env_statistics_equal_numpy_over_that_env_stream():
    inner = NoisyCounter()
    raw_first, _, (raw_obs, *_) = rollout(inner, 3, 12)
    wrapped = NormalizeObservation(inner)
    _, _, (obs, _, _, _, states) = rollout(wrapped, 3, 12)
    stream = np.concatenate([np.asarray(raw_first["x"])[None], np.asarray(raw_obs["x"])])
    for env in range(3):
        seen = stream[:, env]  # reset + 12 steps of this env
        n = len(seen) + 1e-4
        mean = seen.sum(axis=0) / n  # the prior sample at mean 0 has weight 1e-4
        np.testing.assert_allclose(states.obs_stats.mean["x"][-1][env], mean, rtol=1e-4, atol=1e-5)
        var = (np.square(seen - mean).sum(axis=0) + 1e-4 * (1 + mean**2)) / n
        np.testing.assert_allclose(states.obs_stats.var["x"][-1][env], var, rtol=1e-3)
        expected = np.clip((seen[-1] - mean) / np.sqrt(var + 1e-8), -10, 10)
        np.testing.assert_allclose(obs["x"][-1, env], expected, rtol=1e-3, atol=1e-4)


def test_batch_statistics_are_shared_by_all_envs_and_cover_the_batch():
    inner = NoisyCounter()
    raw_first, _, (raw_obs, *_) = rollout(inner, 8, 6)
    _, _, (_, _, _, _, states) = rollout(NormalizeObservation(inner, axis_name="envs"), 8, 6,
                                         axis_name="envs")
    means = np.asarray(states.obs_stats.mean["x"][-1])
    np.testing.assert_array_equal(means, np.broadcast_to(means[0], means.shape))
    seen = np.concatenate([np.asarray(raw_first["x"])[None], np.asarray(raw_obs["x"])])
    seen = seen.reshape(-1, 2)
    np.testing.assert_allclose(means[0], seen.sum(axis=0) / (len(seen) + 1e-4), rtol=1e-4)
    np.testing.assert_allclose(states.obs_stats.count[-1][0], len(seen) + 1e-4, rtol=1e-6)


def test_masks_pass_through_and_final_observation_is_normalized_like_obs():
    inner = NoisyCounter()
    _, _, (raw_obs, _, raw_done, raw_info, _) = rollout(inner, 2, 11)
    _, _, (obs, _, done, info, states) = rollout(NormalizeObservation(inner), 2, 11)
    np.testing.assert_array_equal(obs["action_mask"], raw_obs["action_mask"])
    assert obs["action_mask"].dtype == jnp.bool_
    np.testing.assert_array_equal(done, raw_done)
    assert done.any()
    stats = states.obs_stats
    final = (raw_info["final_observation"]["x"] - stats.mean["x"]) / np.sqrt(stats.var["x"] + 1e-8)
    np.testing.assert_allclose(info["final_observation"]["x"], np.clip(final, -10, 10),
                               rtol=1e-5, atol=1e-5)


def test_frozen_statistics_are_applied_unchanged():
    inner = NoisyCounter()
    stats = RunningMeanStd(mean={"x": jnp.array([1.0, 2.0]), "action_mask": None},
                           var={"x": jnp.array([4.0, 9.0]), "action_mask": None},
                           count=jnp.asarray(50.0))
    _, _, (raw_obs, *_) = rollout(inner, 2, 4)
    _, _, (obs, _, _, _, states) = rollout(NormalizeObservation(inner, frozen_stats=stats), 2, 4)
    np.testing.assert_allclose(obs["x"], (raw_obs["x"] - np.array([1.0, 2.0]))
                               / np.sqrt(np.array([4.0, 9.0]) + 1e-8), rtol=1e-5)
    np.testing.assert_array_equal(states.obs_stats.count, 50.0)


def test_scaled_reward_is_reward_over_running_return_std():
    inner = NoisyCounter()
    _, _, (_, raw_reward, raw_done, _, _) = rollout(inner, 1, 11)
    wrapped = ScaleReward(inner, gamma=0.9)
    _, _, (_, reward, done, info, states) = rollout(wrapped, 1, 11)
    np.testing.assert_array_equal(info["unscaled_reward"], raw_reward)
    discounted, returns = 0.0, []
    for r, d in zip(np.asarray(raw_reward)[:, 0], np.asarray(raw_done)[:, 0]):
        discounted = 0.9 * discounted + r
        returns.append(discounted)
        discounted = 0.0 if d else discounted
    returns = np.array(returns)
    n = np.arange(1, len(returns) + 1) + 1e-4
    mean = np.cumsum(returns) / n
    var = (np.array([np.square(returns[:k + 1] - mean[k]).sum() for k in range(len(returns))])
           + 1e-4 * (1 + mean**2)) / n
    np.testing.assert_allclose(states.return_stats.var[:, 0], var, rtol=1e-3)
    expected = np.clip(np.asarray(raw_reward)[:, 0] / np.sqrt(var + 1e-8), -10, 10)
    np.testing.assert_allclose(reward[:, 0], expected, rtol=1e-3)
    assert reward[0, 0] == 10.0  # the first return has almost no spread yet: clipped
    assert reward.dtype == jnp.float32


def test_wrappers_keep_gymnax_spaces_and_params():
    env, params = gymnax.make("CartPole-v1")
    wrapped = ScaleReward(NormalizeObservation(env), 0.99)
    assert wrapped.action_space(params).n == env.action_space(params).n
    obs, state = wrapped.reset(jax.random.key(0), params)
    assert obs.shape == (4,) and obs.dtype == jnp.float32
    out = wrapped.step(jax.random.key(1), state, 1, params)
    assert out[0].shape == (4,) and out[2].shape == ()


def test_a_purejaxrl_shaped_loop_runs_on_pong_through_the_legacy_step_wrapper():
    """PureJaxRL's PPO steps ``LogWrapper``'d envs through the five-value ``step`` of gymnax
    before 1.0; ``LegacyStepAPIWrapper`` gives it that API over a jaxenvs env (README)."""
    import jaxenvs

    env, env_params = jaxenvs.make("Pong", max_score=1)
    env = gymnax.wrappers.LegacyStepAPIWrapper(gymnax.wrappers.LogWrapper(env))
    num_envs, num_steps = 16, 300
    obsv, env_state = jax.vmap(env.reset, in_axes=(0, None))(
        jax.random.split(jax.random.key(0), num_envs), env_params)

    def _env_step(runner_state, rng):  # the shape of PureJaxRL's ppo.py rollout step
        env_state, last_obs = runner_state
        rng, _rng = jax.random.split(rng)
        action = jax.random.randint(_rng, (num_envs,), 0, 3)
        rng_step = jax.random.split(rng, num_envs)
        obsv, env_state, reward, done, info = jax.vmap(
            env.step, in_axes=(0, 0, 0, None))(rng_step, env_state, action, env_params)
        return (env_state, obsv), (reward, done, info["returned_episode_returns"])

    _, (reward, done, returned) = jax.jit(lambda state, obs: jax.lax.scan(
        _env_step, (state, obs), jax.random.split(jax.random.key(1), num_steps)))(
            env_state, obsv)
    reward, done, returned = map(np.asarray, (reward, done, returned))
    assert done.dtype == bool and done.sum() > num_envs  # episodes of one point end often
    # each finished episode's logged return is the sum of its rewards
    episode_sum = np.zeros(num_envs)
    for t in range(num_steps):
        episode_sum += reward[t]
        np.testing.assert_allclose(returned[t][done[t]], episode_sum[done[t]])
        episode_sum[done[t]] = 0
