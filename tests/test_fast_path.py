"""The XLA:CPU fast path's gate (``jaxenvs._src.gate``), and every env's two paths compared.

The same random-legal-action rollout on the fast path and in the plain ``vmap`` form
(``JAXENVS_CPU_KERNELS=0``) gives the same trajectory, every leaf of observation, state,
reward, flags and info, bit for bit. HalfCheetah's float32 physics compiles to other kernels in
the two forms, and XLA:CPU contracts multiply-adds per kernel, so there the plain form steps
once from each state of the fast path's rollout and agrees within HalfCheetah's one-step
bound against MuJoCo (relative 2e-3; measured: 1.3e-4)."""

import jax
import numpy as np
import pytest

import jaxenvs
from jaxenvs import bench
from jaxenvs._src import gate
from tests.fast_path import fast_path_only

BATCH = 12
#: Steps per rollout, and a shorter episode where the default one outlasts them: each
#: rollout crosses auto-resets (the test checks). PokeJAX plays its heuristic opponent, the
#: policy with the most code.
ROLLOUTS = {
    "Pong": (300, {"max_steps_in_episode": 40}),
    "PongContinuous": (300, {"max_steps_in_episode": 40}),
    "HalfCheetah": (60, {"max_steps_in_episode": 25}),
    "Hopper": (60, {"max_steps_in_episode": 25}),
    "Walker2d": (60, {"max_steps_in_episode": 25}),
    "PokeJAX": (80, {"opponent": 2}),
    "PokeJAX2P": (120, {"max_steps_in_episode": 90}),
    "TCGJax": (80, {}),
    "TCGJax2P": (80, {}),
}
#: Envs whose float physics is compared one step at a time, within this relative bound
#: (of ``max(|x|, 1)``): HalfCheetah's float32 one-step bound against MuJoCo.
PHYSICS = {"HalfCheetah": 2e-3, "Hopper": 2e-3, "Walker2d": 2e-3}


def _rollout(env_id: str):
    """``(env, params, (states, keys, actions, outputs))`` of a rollout of ``BATCH`` envs
    (``ROLLOUTS``): each step's state before it, its env keys and actions, and what ``step``
    returned, stacked over the steps."""
    num_steps, overrides = ROLLOUTS[env_id]
    env, params = jaxenvs.make(env_id, **overrides)
    space = env.action_space(params)
    reset_keys = jax.random.split(jax.random.key(7), BATCH)

    @jax.jit
    def run(step_keys):
        obs, state = jax.vmap(env.reset, (0, None))(reset_keys, params)

        def body(carry, key):
            obs, state = carry
            action_keys, env_keys = jax.random.split(key, (2, BATCH))
            actions = bench.random_actions(space, action_keys, obs)
            out = jax.vmap(env.step, (0, 0, 0, None))(env_keys, state, actions, params)
            return (out[0], out[1]), (state, env_keys, actions, out)

        return jax.lax.scan(body, (obs, state), step_keys)[1]

    return env, params, run(jax.random.split(jax.random.key(11), num_steps))


def _arrays(tree) -> list[np.ndarray]:
    """The leaves of ``tree`` as NumPy arrays (key data for keys)."""
    return [np.asarray(jax.random.key_data(x)
                       if jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key) else x)
            for x in jax.tree.leaves(tree)]


def _plain(monkeypatch, fun):
    """``fun()`` traced and run in the plain form, JAX's caches cleared on the way in and out
    so that no trace of one path serves the other."""
    jax.clear_caches()
    monkeypatch.setenv(gate.ENV_VAR, "0")
    try:
        assert not gate.enabled()
        return fun()
    finally:
        monkeypatch.undo()
        jax.clear_caches()


@fast_path_only
@pytest.mark.parametrize("env_id", [e for e in ROLLOUTS if e not in PHYSICS])
def test_the_plain_form_gives_the_fast_paths_trajectory(env_id, monkeypatch):
    _, _, (_, _, _, fast) = _rollout(env_id)
    terminated, truncated = np.asarray(fast[3]), np.asarray(fast[4])
    assert np.any(terminated | truncated), "the rollout crosses no auto-reset"
    _, _, (_, _, _, plain) = _plain(monkeypatch, lambda: _rollout(env_id))
    fast, plain = _arrays(fast), _arrays(plain)
    assert len(plain) == len(fast)
    for k, (a, b) in enumerate(zip(fast, plain)):
        assert a.dtype == b.dtype and a.shape == b.shape, k
        assert np.array_equal(a, b, equal_nan=True), f"leaf {k} of the rollout differs"


@fast_path_only
@pytest.mark.parametrize("env_id", list(PHYSICS))
def test_the_plain_form_steps_as_the_fast_path_from_the_same_states(env_id, monkeypatch):
    env, params, (states, keys, actions, fast) = _rollout(env_id)
    assert np.any(np.asarray(fast[3]) | np.asarray(fast[4])), "no auto-reset in the rollout"

    def one_step_each():
        flat = lambda tree: jax.tree.map(lambda x: x.reshape((-1, *x.shape[2:])), tree)
        return jax.jit(jax.vmap(env.step, (0, 0, 0, None)))(
            flat(keys), flat(states), flat(actions), params)

    plain = _plain(monkeypatch, one_step_each)
    fast, plain = _arrays(fast), _arrays(plain)
    assert len(plain) == len(fast)
    for k, (a, b) in enumerate(zip(fast, plain)):
        a = a.reshape(b.shape)
        if np.issubdtype(a.dtype, np.floating):
            error = np.abs(a - b) / np.maximum(np.abs(a), 1.0)
            assert error.max() <= PHYSICS[env_id], f"leaf {k}: {error.max():.2e}"
        else:
            assert np.array_equal(a, b), f"leaf {k} of the step differs"


def test_every_registered_env_is_compared():
    assert set(jaxenvs.registered_envs) == set(ROLLOUTS)


def test_the_switch_takes_0_and_1_and_refuses_other_values(monkeypatch):
    monkeypatch.setenv(gate.ENV_VAR, "0")
    assert gate.switched_off() and gate.kernels() is None and not gate.enabled()
    monkeypatch.setenv(gate.ENV_VAR, "1")
    assert not gate.switched_off()
    monkeypatch.delenv(gate.ENV_VAR)
    assert not gate.switched_off()
    monkeypatch.setenv(gate.ENV_VAR, "off")
    with pytest.raises(ValueError, match="JAXENVS_CPU_KERNELS='off'"):
        gate.kernels()


def test_only_the_tested_jax_versions_pass():
    low, high = (".".join(map(str, v)) for v in gate.TESTED_JAX)
    assert gate.tested_jax(low, low)
    assert gate.tested_jax(f"{low}.dev20260101", low)
    assert not gate.tested_jax("0.9.2", low)
    assert not gate.tested_jax(low, "0.9.2")
    assert not gate.tested_jax(high, low)


def test_an_untested_jax_runs_the_plain_form_with_a_warning(monkeypatch):
    monkeypatch.delenv(gate.ENV_VAR, raising=False)
    monkeypatch.setattr(gate, "tested_jax", lambda: False)
    gate._warn_untested.cache_clear()
    with pytest.warns(RuntimeWarning, match="plain vmap form"):
        assert gate.kernels() is None
    gate._warn_untested.cache_clear()
