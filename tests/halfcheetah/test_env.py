"""The HalfCheetah env: HalfCheetah-v5 semantics and one step against MuJoCo.

The gymnax contract (``jaxenvs.api_test``) is checked for every registered env by
``tests/test_api_test.py``; bitwise batch invariance by ``test_batch_invariance.py``."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxenvs.halfcheetah import HalfCheetah, HalfCheetahState


def test_params_are_checked():
    env = HalfCheetah()
    with pytest.raises(ValueError, match="reset_noise_scale"):
        env.make_params(reset_noise_scale=-1.0)
    with pytest.raises(ValueError, match="frame_skip"):
        env.make_params(frame_skip=0)


def test_reset_noise_and_spaces():
    env = HalfCheetah()
    params = env.default_params
    obs, state = jax.vmap(env.reset, (0, None))(jax.random.split(jax.random.key(0), 2000), params)
    assert obs.shape == (2000, 17) and obs.dtype == jnp.float32
    assert float(jnp.max(jnp.abs(state.qpos))) <= 0.1
    assert abs(float(jnp.std(state.qvel)) - 0.1) < 0.005
    np.testing.assert_array_equal(obs[:, :8], state.qpos[:, 1:])
    assert env.action_space(params).shape == (6,)


def test_step_reward_and_info_match_mujoco():
    mujoco = pytest.importorskip("mujoco")
    from jaxenvs.planar_reference import mujoco_c as reference
    env = HalfCheetah()
    params = env.default_params
    rng = np.random.default_rng(0)
    ref = reference.Reference("HalfCheetah")
    for _ in range(3):
        qpos, qvel = rng.uniform(-0.1, 0.1, 9), rng.normal(size=9)
        action = rng.uniform(-1.3, 1.3, 6)  # beyond the range: clamped by MuJoCo, cost unclipped
        state = HalfCheetahState(qpos=jnp.asarray(qpos, jnp.float32),
                                 qvel=jnp.asarray(qvel, jnp.float32), time=jnp.int32(0))
        obs, _, reward, terminated, info = env.step_env(
            jax.random.key(0), state, jnp.asarray(action, jnp.float32), params)
        qpos1, qvel1 = ref.step(qpos, qvel, action)
        x_velocity = (qpos1[0] - qpos[0]) / 0.05
        expected = x_velocity - 0.1 * np.sum(action ** 2)
        np.testing.assert_allclose(obs, reference.observation(qpos1, qvel1, "HalfCheetah"), rtol=2e-3, atol=2e-3)
        assert abs(float(reward) - expected) <= 2e-3 * (1 + abs(expected))
        assert abs(float(info["reward_ctrl"]) + 0.1 * np.sum(action ** 2)) < 1e-5
        assert not bool(terminated)
        assert mujoco is not None


def test_a_nan_action_steps_as_mujoco_and_gymnasium_step_it_and_is_flagged():
    """MuJoCo runs a step whose controls hold a NaN with every control 0 (its BADCTRL
    warning); gymnasium's reward is then NaN, the state finite, and the next step normal. An
    infinite or huge control is clamped to its range, without a warning (reward -inf)."""
    gymnasium = pytest.importorskip("gymnasium")
    mujoco = pytest.importorskip("mujoco")
    ref = gymnasium.make("HalfCheetah-v5").unwrapped
    ref.reset(seed=0)
    env = HalfCheetah()
    params = env.default_params
    state = HalfCheetahState(qpos=jnp.asarray(ref.data.qpos, jnp.float32),
                             qvel=jnp.asarray(ref.data.qvel, jnp.float32), time=jnp.int32(0))
    warnings = ref.data.warning[int(mujoco.mjtWarning.mjWARN_BADCTRL)]
    for action, bad in (([np.nan, 0, 0, 0, 0, 0.5], True), ([0.3, -0.2, 0.1, 0.5, -1, 0.5],
                                                              False),
                        ([np.inf, 0, 0, -2e10, 0, 0.5], False), ([0.1] * 6, False)):
        before = warnings.number
        action = np.asarray(action)
        want_obs, want_reward, *_, want_info = ref.step(action)
        obs, state, reward, _, info = env.step_env(
            jax.random.key(0), state, jnp.asarray(action, jnp.float32), params)
        np.testing.assert_allclose(obs, want_obs, rtol=2e-3, atol=2e-3)
        assert bool(info["bad_action"]) == bad == (warnings.number > before)
        assert np.isnan(float(reward)) == np.isnan(want_reward) == bad
        assert np.all(np.isfinite(obs))
        assert np.isnan(float(info["reward_ctrl"])) == np.isnan(want_info["reward_ctrl"])
        if not bad and np.isfinite(want_reward):
            assert abs(float(reward) - want_reward) <= 2e-3 * (1 + abs(want_reward))
        elif not bad:
            assert float(reward) == want_reward


@pytest.mark.parametrize("qpos_edit, qvel_edit, warning", [
    ((4, np.nan), None, "BADQPOS"), ((0, 2e10), None, "BADQPOS"),
    (None, (0, np.inf), "BADQVEL"), (None, (3, 1e11), "BADQVEL"),
    (None, (3, 1e9), "BADQACC"), (None, (3, 20.0), None)])
def test_an_unstable_state_is_reset_as_mujoco_resets_it_and_is_flagged(qpos_edit, qvel_edit,
                                                                       warning):
    """MuJoCo's ``mj_step`` resets the simulation (``mj_resetData``: ``qpos0``, at rest, controls
    0) when a ``qpos`` or ``qvel`` entry is NaN or beyond 1e10, or a ``qacc`` entry after the
    forward dynamics is; the substeps left then run with controls 0. A velocity of 1e9 passes
    the state's check and fails the acceleration's; 20 fails neither."""
    gymnasium = pytest.importorskip("gymnasium")
    mujoco = pytest.importorskip("mujoco")
    ref = gymnasium.make("HalfCheetah-v5").unwrapped
    ref.reset(seed=1)
    qpos, qvel = ref.data.qpos.copy(), ref.data.qvel.copy()
    for vector, edit in ((qpos, qpos_edit), (qvel, qvel_edit)):
        if edit:
            vector[edit[0]] = edit[1]
    ref.set_state(qpos, qvel)
    counts = {name: ref.data.warning[int(getattr(mujoco.mjtWarning, "mjWARN_" + name))]
              for name in ("BADQPOS", "BADQVEL", "BADQACC")}
    before = {name: count.number for name, count in counts.items()}
    action = np.full(6, 0.5)
    want_obs, want_reward, *_, want_info = ref.step(action)
    raised = [name for name, count in counts.items() if count.number > before[name]]
    assert raised == ([warning] if warning else [])
    env = HalfCheetah()
    state = HalfCheetahState(qpos=jnp.asarray(qpos, jnp.float32),
                             qvel=jnp.asarray(qvel, jnp.float32), time=jnp.int32(0))
    obs, state, reward, _, info = env.step_env(jax.random.key(0), state,
                                               jnp.asarray(action, jnp.float32),
                                               env.default_params)
    assert bool(info["bad_state"]) == bool(warning)
    np.testing.assert_allclose(obs, want_obs, rtol=2e-3, atol=2e-3)
    assert np.isnan(float(reward)) == np.isnan(want_reward)
    assert abs(float(reward) - want_reward) <= 2e-3 * (1 + abs(want_reward))
    velocity = want_info["x_velocity"]
    assert abs(float(info["x_velocity"]) - velocity) <= 2e-3 * (1 + abs(velocity))
