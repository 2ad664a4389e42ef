"""Pong's environment wiring: the env step is step_deterministic with a drawn serve; actions."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxenvs
from jaxenvs.pong._src import rules
from jaxenvs.pong._src.rules import step_deterministic
from jaxenvs.pong.env import draw_serve


def _rollout_states(env, params, num_envs=16, num_steps=300, seed=0):
    """States visited by random play (stacked [num_steps * num_envs])."""

    def one(key):
        _, state = env.reset(key, params)

        def body(state, k):
            ka, ks = jax.random.split(k)
            action = env.action_space(params).sample(ka)
            _, next_state, *_ = env.step(ks, state, action, params)
            return next_state, state

        _, states = jax.lax.scan(body, state, jax.random.split(key, num_steps))
        return states

    states = jax.jit(jax.vmap(one))(jax.random.split(jax.random.key(seed), num_envs))
    return jax.tree.map(lambda x: x.reshape((-1,) + x.shape[2:]), states)


def test_env_step_is_step_deterministic_with_the_drawn_serve():
    env, params = jaxenvs.make("Pong", max_score=3)
    states = _rollout_states(env, params)
    n = states.time.shape[0]
    keys = jax.random.split(jax.random.key(1), n)
    actions = jax.random.randint(jax.random.key(2), (n,), 0, 3)

    def both(key, state, action):
        obs, s, reward, terminated, truncated, info = env.step(key, state, action, params)
        key_step, key_reset = jax.random.split(key)
        # gymnax's step: step_env's serve comes from key_step, a new game's from key_reset.
        _, _, _, ends = step_deterministic(state, action, 0.0, params)
        serve = jnp.where(ends, draw_serve(key_reset, params), draw_serve(key_step, params))
        return (obs, s, reward, terminated), step_deterministic(state, action, serve, params)

    ours, expected = jax.jit(jax.vmap(both))(keys, states, actions)
    assert int(expected[3].sum()) > 0, "the sample should contain game-ending steps"
    chex_equal = jax.tree.map(lambda a, b: np.array_equal(np.asarray(a), np.asarray(b)),
                              ours, expected)
    assert all(jax.tree.leaves(chex_equal))


@pytest.mark.parametrize("bad_action", [3, -1, 100])
def test_out_of_range_discrete_actions_stay_as_in_c(bad_action):
    _, params = jaxenvs.make("Pong")
    states = _rollout_states(*jaxenvs.make("Pong"), num_envs=4, num_steps=50)
    step = jax.jit(jax.vmap(lambda s, a: step_deterministic(s, a, -1.0, params),
                            in_axes=(0, None)))
    stay, bad = step(states, 0), step(states, bad_action)
    assert all(jax.tree.leaves(jax.tree.map(
        lambda a, b: np.array_equal(np.asarray(a), np.asarray(b)), stay, bad)))


def test_continuous_matches_discrete_at_the_same_direction_and_clips():
    _, params = jaxenvs.make("Pong")
    states = _rollout_states(*jaxenvs.make("Pong"), num_envs=4, num_steps=80)

    def run(action, continuous):
        f = jax.vmap(lambda s: step_deterministic(s, action, 0.0, params, continuous))
        return jax.jit(f)(states)

    def same(a, b):
        return all(jax.tree.leaves(jax.tree.map(
            lambda x, y: np.array_equal(np.asarray(x), np.asarray(y)), a, b)))

    assert same(run(1, False), run(jnp.array([1.0]), True))
    assert same(run(2, False), run(jnp.array([-1.0]), True))
    assert same(run(0, False), run(jnp.array([0.0]), True))
    assert same(run(jnp.array([5.0]), True), run(jnp.array([1.0]), True))
    half = run(jnp.array([0.5]), True)[1]
    assert not np.array_equal(np.asarray(half.paddle_yr), np.asarray(run(0, False)[1].paddle_yr))


def test_serves_are_uniform_over_c_values():
    _, params = jaxenvs.make("Pong")
    n = 20000
    serves = np.asarray(jax.vmap(lambda k: draw_serve(k, params))(
        jax.random.split(jax.random.key(3), n)))
    assert set(np.unique(serves)) == {-1.0, 0.0}
    # Binomial(n, 1/2): 5 standard deviations.
    assert abs((serves == 0).sum() - n / 2) < 5 * np.sqrt(n / 4)
    # C computes the int (rand() % 2 - 1) times a float: 0 gives +0.0, never -0.0.
    zero = serves[serves == 0]
    assert not np.signbit(zero).any()


def test_reset_observation_is_the_c_start_observation():
    env, params = jaxenvs.make("Pong")
    obs, state = env.reset(jax.random.key(0), params)
    np.testing.assert_array_equal(np.asarray(obs[:5]), np.float32([0.5, 0.5, 0.2, 0.475, 1.0]))
    assert float(obs[5]) in (np.float32(12 / 26), np.float32(0.5))
    assert np.array_equal(np.asarray(obs), np.asarray(rules.observe(state, params)))
