"""The planar stages on each body's model against MuJoCo 4.0 from the same states (L1).

HalfCheetah, Hopper and Walker2d differ in what the stages must handle: hinge anchors away from
the body origin, hinges about -y and a slide reference (Hopper, Walker2d), friction per capsule
(Hopper, Walker2d), contact margins and frictionless capsule-capsule contacts (Hopper). Per body, 60 random states (root anywhere in x, from 1 m below its reference height
to 0.1 above it, at any angle; hinges inside and beyond their ranges; random velocities and
controls), in float64: body poses, centres of mass and hinge anchors within 1e-12, the mass
matrix 1e-12, bias 1e-9, passive and actuator forces exact to rounding; the contacts (200
states for Hopper, so that its capsules meet each other often enough), ``qacc`` and one
``mj_step`` (Euler, RK4), against MuJoCo run to its minimiser (1e-9 relative).
"""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from tests.x64 import run_tests_in_x64

mujoco = pytest.importorskip("mujoco")
pytest.importorskip("gymnasium")

from jaxenvs._src.planar import dynamics, integrator, kinematics  # noqa: E402
from jaxenvs.halfcheetah._src.model import HALF_CHEETAH  # noqa: E402
from jaxenvs.hopper._src.model import HOPPER  # noqa: E402
from jaxenvs.planar_reference import bodies as planar_bodies  # noqa: E402
from jaxenvs.walker2d._src.model import WALKER2D  # noqa: E402

MODELS = {"HalfCheetah": HALF_CHEETAH, "Hopper": HOPPER, "Walker2d": WALKER2D}
#: States per body where contacts are compared: Hopper's capsules also collide with each
#: other, in about one state in eight.
STATES = {"HalfCheetah": 60, "Hopper": 200, "Walker2d": 60}

requires_x64 = pytest.mark.skipif(not jax.config.jax_enable_x64,
                                  reason="float64 check: run with JAX_ENABLE_X64=1")
in_float32 = pytest.mark.skipif(jax.config.jax_enable_x64, reason="runs without x64")


@in_float32
def test_float64_stages_match_mujoco():
    """This file's float64 tests, in a process with x64 on from its start."""
    run_tests_in_x64([__file__], timeout=600)


def _mujoco_model(body: str):
    model = planar_bodies.BODIES[body].load_model()
    model.opt.tolerance = 0  # run the solver to its minimiser
    model.opt.iterations = 1000
    return model


def _states(model, count: int = 60):
    """``count`` random ``(qpos, qvel, ctrl)``."""
    rng = np.random.default_rng(0)
    for _ in range(count):
        qpos = model.qpos0.copy()
        qpos[0] = rng.uniform(-1, 1)
        qpos[1] += rng.uniform(-1.0, 0.1)
        qpos[2] = rng.uniform(-np.pi, np.pi)
        qpos[3:] = rng.uniform(-2.8, 1.0, model.nv - 3)
        yield qpos, rng.normal(0, 2, model.nv), rng.uniform(-1, 1, model.nu)


@requires_x64
@pytest.mark.parametrize("body", list(MODELS))
def test_kinematics_and_smooth_dynamics(body):
    m, model = MODELS[body], _mujoco_model(body)
    data = mujoco.MjData(model)
    for qpos, qvel, ctrl in _states(model):
        data.qpos[:], data.qvel[:], data.ctrl[:] = qpos, qvel, ctrl
        mujoco.mj_forward(model, data)
        q, v = jnp.asarray(qpos), jnp.asarray(qvel)
        f = kinematics.frames(m, q)
        world = np.array([qpos[0], float(f.root_z)])
        np.testing.assert_allclose(f.origin + world, data.xpos[1:, ::2], rtol=0, atol=1e-12)
        np.testing.assert_allclose(f.com + world, data.xipos[1:, ::2], rtol=0, atol=1e-12)
        np.testing.assert_allclose(f.anchor + world, data.xanchor[2:, ::2], rtol=0,
                                   atol=1e-12)
        np.testing.assert_allclose(f.cos, data.xmat[1:, 0], rtol=0, atol=1e-12)
        np.testing.assert_allclose(f.sin, data.xmat[1:, 2], rtol=0, atol=1e-12)
        full = np.zeros((model.nv, model.nv))
        mujoco.mj_fullM(model, data, full)
        np.testing.assert_allclose(dynamics.mass_matrix(m, f), full, rtol=0, atol=1e-12)
        np.testing.assert_allclose(dynamics.bias(m, f, v), data.qfrc_bias, rtol=0, atol=1e-9)
        np.testing.assert_allclose(dynamics.passive(m, q, v), data.qfrc_passive, rtol=0,
                                   atol=1e-12)
        np.testing.assert_allclose(dynamics.actuator(m, jnp.asarray(ctrl), q.dtype),
                                   data.qfrc_actuator, rtol=0, atol=1e-12)


@requires_x64
@pytest.mark.parametrize("body", list(MODELS))
def test_forward_with_contacts(body):
    m, model = MODELS[body], _mujoco_model(body)
    data = mujoco.MjData(model)
    forward = jax.jit(functools.partial(integrator.forward, m))
    touching = capsule_pairs = 0
    for qpos, qvel, ctrl in _states(model, STATES[body]):
        data.qpos[:], data.qvel[:], data.ctrl[:] = qpos, qvel, ctrl
        mujoco.mj_forward(model, data)
        ours = forward(jnp.asarray(qpos), jnp.asarray(qvel), jnp.asarray(ctrl))
        assert int(ours.contacts.active.sum()) == data.ncon
        touching += data.ncon > 0
        capsule_pairs += np.any(data.contact.geom[:, 0] > 0)  # not the floor
        np.testing.assert_allclose(np.sort(ours.contacts.dist[ours.contacts.active]),
                                   np.sort(data.contact.dist), rtol=0, atol=1e-12)
        scale = 1 + np.max(np.abs(data.qacc))
        np.testing.assert_allclose(ours.qacc / scale, data.qacc / scale, rtol=0, atol=1e-9)
    assert touching >= 10  # the states exercise the contacts
    assert capsule_pairs >= 10 if m.npair else capsule_pairs == 0


@requires_x64
@pytest.mark.parametrize("body", list(MODELS))
def test_one_physics_step(body):
    """``integrator.step`` (Euler for HalfCheetah, RK4 for the others) against ``mj_step``."""
    m, model = MODELS[body], _mujoco_model(body)
    data = mujoco.MjData(model)
    step = jax.jit(functools.partial(integrator.step, m))
    for qpos, qvel, ctrl in _states(model, STATES[body]):
        data.qpos[:], data.qvel[:], data.ctrl[:] = qpos, qvel, ctrl
        mujoco.mj_step(model, data)
        new_qpos, new_qvel, reset = step(jnp.asarray(qpos), jnp.asarray(qvel), jnp.asarray(ctrl))
        assert not reset
        np.testing.assert_allclose(new_qpos, data.qpos, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(new_qvel, data.qvel, rtol=1e-9, atol=1e-9)
