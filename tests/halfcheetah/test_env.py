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
    from jaxenvs.halfcheetah.reference import mujoco_c as reference
    env = HalfCheetah()
    params = env.default_params
    rng = np.random.default_rng(0)
    ref = reference.Reference()
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
        np.testing.assert_allclose(obs, reference.observation(qpos1, qvel1), rtol=2e-3, atol=2e-3)
        assert abs(float(reward) - expected) <= 2e-3 * (1 + abs(expected))
        assert abs(float(info["reward_ctrl"]) + 0.1 * np.sum(action ** 2)) < 1e-5
        assert not bool(terminated)
        assert mujoco is not None
