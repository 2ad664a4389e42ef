"""``Environment.step`` with ``loop_on_cpu`` (each env's step, and its reset only where its
episode ended, in turn in one kernel) gives exactly gymnax's reset-every-step auto-reset.

A small env whose episodes end after a random number of steps (so a batch has a few finished
envs at most steps, and sometimes none or many) and whose reset draws from its key: the two
auto-resets must agree on every output, ``info`` included, unbatched and at several batch
sizes. Then the game envs that loop on a CPU: their loop form (what a CPU runs) against
their ``vmap`` form (what a GPU runs), over random-action rollouts that end episodes. And
``unrolled_keys_on_cpu``: the same draws as the caller's key gives; ``supports_x64``: the
game engines refuse x64 mode with a readable error.
"""

import copy

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import struct
from gymnax.environments import spaces

import jaxenvs
from jaxenvs._src import gate
from jaxenvs.environment import Environment
from tests.fast_path import fast_path_only
from tests.x64 import run_in_x64


@struct.dataclass
class _State:
    time: jax.Array
    length: jax.Array
    value: jax.Array


@struct.dataclass
class _Params:
    max_length: int = 8
    max_steps_in_episode: int = 6


class _Countdown(Environment):
    """Episodes that end after 1..max_length steps (truncated after max_steps_in_episode);
    the observation is a random value plus the step."""

    @property
    def default_params(self):
        return _Params()

    def reset_env(self, key, params):
        length_key, value_key = jax.random.split(key)
        state = _State(time=jnp.int32(0),
                       length=jax.random.randint(length_key, (), 1, params.max_length + 1),
                       value=jax.random.uniform(value_key))
        return jnp.stack([state.value, 0.0]), state

    def step_env(self, key, state, action, params):
        state = state.replace(time=state.time + 1, value=state.value + action)
        obs = jnp.stack([state.value, state.time.astype(jnp.float32)])
        return obs, state, state.value, state.time >= state.length, {"time": state.time}

    def action_space(self, params=None):
        return spaces.Box(-1.0, 1.0, (), jnp.float32)


class _CountdownLooped(_Countdown):
    loop_on_cpu = True


class _CountdownUnrolled(_Countdown):
    unrolled_keys_on_cpu = True


def _rollout(env, batch, steps=30, params=None):
    """Every step's outputs (and state) of ``batch`` envs (0: one, unbatched) under random
    actions."""
    params = env.default_params if params is None else params
    space = env.action_space(params)

    def one(key):
        _, state = env.reset(key, params)

        def body(state, t):
            step_key, action_key = jax.random.split(jax.random.fold_in(key, t))
            action = space.sample(action_key)
            obs, state, reward, terminated, truncated, info = env.step(step_key, state,
                                                                        action, params)
            return state, (obs, state, reward, terminated, truncated, info)

        return jax.lax.scan(body, state, jnp.arange(steps))[1]

    keys = jax.random.split(jax.random.key(batch), max(batch, 1))
    if batch == 0:  # unbatched
        return jax.jit(one)(keys[0])
    return jax.jit(jax.vmap(one))(keys)


@pytest.mark.parametrize("batch", [0, 1, 2, 9, 200])
def test_resetting_only_finished_envs_matches_gymnax(batch):
    dense, sparse = _rollout(_Countdown(), batch), _rollout(_CountdownLooped(), batch)
    terminated, truncated = np.asarray(dense[3]), np.asarray(dense[4])
    assert terminated.any() and truncated.any() and not (terminated | truncated).all()
    assert jax.tree.structure(dense) == jax.tree.structure(sparse)
    for a, b in zip(jax.tree.leaves(dense), jax.tree.leaves(sparse)):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


@pytest.mark.parametrize("batch", [0, 9])
def test_unrolled_keys_give_gymnax_draws(batch):
    """``unrolled_keys_on_cpu``: ``reset``, ``step`` and the auto-reset draw the same numbers
    as with the caller's threefry key."""
    plain, unrolled = _rollout(_Countdown(), batch), _rollout(_CountdownUnrolled(), batch)
    assert np.asarray(plain[3]).any()
    for a, b in zip(jax.tree.leaves(plain), jax.tree.leaves(unrolled)):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_halfcheetah_unrolled_keys_give_gymnax_draws():
    """HalfCheetah sets ``unrolled_keys_on_cpu``: its resets (the auto-reset's too, here
    every 3 steps) are those of the plain threefry key."""
    unrolled, params = jaxenvs.make("HalfCheetah", max_steps_in_episode=3)
    plain = copy.copy(unrolled)  # make's instance is shared
    plain.unrolled_keys_on_cpu = False
    assert unrolled.unrolled_keys_on_cpu
    obs, state = plain.reset(jax.random.key(0), params)
    action = jnp.zeros(6)
    rolled = ["threefry" in env.step.lower(env, jax.random.key(1), state, action, params)
              .as_text() for env in (plain, unrolled)]  # JAX's hash function, a rolled loop
    assert rolled == [True, not gate.enabled()]  # unrolled on the fast path only
    want, got = (_rollout(env, 2, steps=7, params=params) for env in (plain, unrolled))
    assert np.asarray(want[4]).any()
    for a, b in zip(jax.tree.leaves(want), jax.tree.leaves(got)):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


@fast_path_only
@pytest.mark.parametrize("env_id", ["PokeJAX", "PokeJAX2P", "TCGJax", "TCGJax2P"])
def test_game_envs_loop_form_is_their_vmap_form(env_id):
    """On the fast path, each env's rules as real branches, one env after another, against
    its ``vmap`` form there (every branch run for every env, shared tables unbroadcast, and
    selected): every output and state field, bit for bit."""
    looped, params = jaxenvs.make(env_id)
    vmapped = copy.copy(looped)  # make's instance is shared
    vmapped.loop_on_cpu = False
    assert looped.loop_on_cpu
    loop_out = _rollout(looped, 3, steps=120, params=params)
    vmap_out = _rollout(vmapped, 3, steps=120, params=params)
    assert np.asarray(loop_out[3]).any(), "no episode ended: the auto-reset went untested"
    assert jax.tree.structure(loop_out) == jax.tree.structure(vmap_out)
    for a, b in zip(jax.tree.leaves(loop_out), jax.tree.leaves(vmap_out)):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_envs_without_x64_support_refuse_x64_mode_readably():
    """With x64 on (its own process: the mode is set at start-up), the game engines' ``reset``
    and ``step`` raise an error that says what to do (their traces had failed on a mismatch
    of int32 and int64 loop carries); an env that supports x64 runs."""
    script = """if True:
        import jax, jax.numpy as jnp
        import jaxenvs
        key = jax.random.key(0)
        pong, pong_params = jaxenvs.make("Pong")
        pong.step(key, pong.reset(key, pong_params)[1], jnp.int32(1), pong_params)
        for env_id in ("PokeJAX", "TCGJax2P"):
            env, params = jaxenvs.make(env_id)
            assert not env.supports_x64
            for call in (lambda: env.reset(key, params),
                         lambda: env.step(key, None, jnp.int32(0), params)):
                try:
                    call()
                except RuntimeError as e:
                    assert "32-bit mode only" in str(e) and "jax_enable_x64" in str(e), e
                else:
                    raise AssertionError(env_id + " ran in x64 mode")
        print("refused")
    """
    assert run_in_x64(script) == "refused"
