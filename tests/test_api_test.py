"""api_test passes for every registered env, and fails, naming the check, for broken ones."""

import jax
import jax.numpy as jnp
import pytest
from gymnax.environments import spaces

import jaxenvs
from jaxenvs.pong import Pong


#: Registered envs whose api_test is not a fast test: minutes of XLA compile on 2 cores. Their
#: own test folders cover the same properties with smaller compiles in the fast suite.
_SLOW_API_TEST = {"HalfCheetah", "PokeJAX", "PokeJAX2P", "TCGJax", "TCGJax2P"}


def _marks(env_id):
    return [pytest.mark.slow] if env_id in _SLOW_API_TEST else []


@pytest.mark.parametrize("env_id", [pytest.param(env_id, marks=_marks(env_id))
                                    for env_id in jaxenvs.registered_envs])
def test_registered_envs_pass(env_id):
    env, params = jaxenvs.make(env_id)
    report = jaxenvs.api_test(env, params)
    assert report.episodes_ended > 0
    assert "auto-reset" in report.checks and "batch invariance" in report.checks


def test_pong_passes_with_terminations_within_the_run():
    env, params = jaxenvs.make("Pong", max_score=1)
    assert jaxenvs.api_test(env, params).episodes_ended > 0


class StepChangesDtype(Pong):
    """Returns a float16 observation from step but float32 from reset."""

    def step(self, key, state, action, params=None):
        obs, *rest = super().step(key, state, action, params)
        return (obs.astype(jnp.float16), *rest)


class StepRaises(Pong):
    """A step that cannot be traced (gymnax's select rejects mismatched dtypes)."""

    def step_env(self, key, state, action, params):
        obs, state, reward, terminated, info = super().step_env(key, state, action, params)
        return obs.astype(jnp.float16), state, reward, terminated, info


class NoAutoReset(Pong):
    """Ignores gymnax's auto-reset: returns the terminal observation and state."""

    def step(self, key, state, action, params=None):
        params = self.default_params if params is None else params
        obs, state, reward, terminated, info = self.step_env(key, state, action, params)
        truncated = jnp.zeros((), bool)
        return obs, state, reward, terminated, truncated, {"final_observation": obs}


class TooSmallObservationSpace(Pong):
    """Declares a space that the ball's entries leave."""

    def observation_space(self, params=None):
        return spaces.Box(0.0, 0.3, (8,), jnp.float32)


@pytest.mark.parametrize("broken, check", [
    (StepChangesDtype, "output signature"),
    (StepRaises, "jit and vmap"),
    (NoAutoReset, "auto-reset"),
    (TooSmallObservationSpace, "observation space"),
])
def test_broken_envs_fail_with_the_check_named(broken, check):
    env = broken()
    params = env.make_params(max_score=1)
    with pytest.raises(jaxenvs.ApiTestError, match=check):
        jaxenvs.api_test(env, params, num_envs=2, num_steps=32)


def test_step_traces_once_over_many_calls():
    env, params = jaxenvs.make("Pong")
    step = jax.jit(env.step)
    _, state = env.reset(jax.random.key(0), params)
    before = step._cache_size()
    for t in range(5):
        _, state, *_ = step(jax.random.key(t), state, t % 3, params)
    assert step._cache_size() - before == 1
