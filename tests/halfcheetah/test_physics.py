"""HalfCheetah's pipeline against MuJoCo 4.0 from the same states (L1 per stage, L2 one env step).

185 states from ``agreement.mujoco_states`` (MuJoCo rollouts under random actions, a sine
gait, zero action and the trained policy, plus resting, flipped, deep-penetration and
beyond-joint-limit states).
Tolerances: float64 stages within 1e-9 (rounding of different summation orders; constraint
forces and qacc 1e-7, MuJoCo's solver tolerance), one env step max |dobs| <= 1e-7; float32
max |dobs| / (1 + |obs|) <= 2e-3 and median |dobs| <= 1e-5 (``agreement.check``; the slow
``test_agreement.py`` runs the same at 10,000 states).
"""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

pytest.importorskip("mujoco")

from jaxenvs._src.planar import constraint, dynamics, integrator, kinematics  # noqa: E402
from jaxenvs.halfcheetah._src.model import HALF_CHEETAH  # noqa: E402
from jaxenvs.planar_reference import agreement  # noqa: E402
from jaxenvs.planar_reference import mujoco_c as reference  # noqa: E402


@pytest.fixture(scope="module")
def states():
    ref = reference.Reference("HalfCheetah")
    s = agreement.mujoco_states("HalfCheetah", 185, ref=ref)
    return ref, s.qpos, s.qvel, s.ctrl, s


@pytest.mark.skipif(jax.config.jax_enable_x64, reason="float32 check: run without x64")
def test_one_env_step_float32(states):
    assert not _one_env_step_failures(states, "float32")


#: float64 checks need x64 from the process start (toggling it inside one process breaks
#: jax's eager indexing): run them with ``JAX_ENABLE_X64=1 python -m pytest tests/halfcheetah``.
requires_x64 = pytest.mark.skipif(not jax.config.jax_enable_x64,
                                  reason="float64 check: run with JAX_ENABLE_X64=1")


@requires_x64
def test_smooth_stages_match_mujoco(states):
    ref, qpos, qvel, ctrl, _ = states
    for i in range(0, len(qpos), 7):
        r = ref.forward(qpos[i], qvel[i], ctrl[i])
        q, v = jnp.asarray(qpos[i]), jnp.asarray(qvel[i])
        m = HALF_CHEETAH
        f = kinematics.frames(m, q)
        M = np.asarray(dynamics.mass_matrix(m, f))
        np.testing.assert_allclose(M, r.mass_matrix, rtol=0, atol=1e-12)
        np.testing.assert_array_equal(M, M.T)
        assert np.all(np.linalg.eigvalsh(M) > 0)
        np.testing.assert_allclose(dynamics.bias(m, f, v), r.qfrc_bias, rtol=0, atol=1e-9)
        np.testing.assert_allclose(dynamics.gravity(m, f), r.qfrc_gravity, rtol=0, atol=1e-9)
        np.testing.assert_allclose(dynamics.coriolis(m, f, v), r.qfrc_bias - r.qfrc_gravity,
                                   rtol=0, atol=1e-9)
        np.testing.assert_allclose(dynamics.passive(m, q, v), r.qfrc_passive, rtol=0, atol=1e-12)
        np.testing.assert_allclose(dynamics.actuator(m, jnp.asarray(ctrl[i]), q.dtype),
                                   r.qfrc_actuator, rtol=0, atol=1e-12)


@requires_x64
def test_energy_is_conserved_without_contacts_damping_or_actuation():
    """Free flight with springs only: kinetic + potential energy changes only by the
    integrator's O(h) drift (a wrong mass matrix or bias term breaks this)."""
    q = jnp.zeros(9).at[1].set(5.0).at[3:].set(0.3)
    v = jnp.zeros(9).at[2].set(1.0).at[4].set(-2.0)

    def energy(q, v):
        f = kinematics.frames(HALF_CHEETAH, q)
        kinetic = 0.5 * v @ dynamics.mass_matrix(HALF_CHEETAH, f) @ v
        height = f.root_z + f.com[:, 1]
        potential = -HALF_CHEETAH.gravity_z * jnp.sum(HALF_CHEETAH.body_mass * height)
        return kinetic + potential + 0.5 * jnp.sum(HALF_CHEETAH.dof_stiffness * q * q)

    def rk_step(q, v):
        f = kinematics.frames(HALF_CHEETAH, q)
        qacc = jnp.linalg.solve(dynamics.mass_matrix(HALF_CHEETAH, f),
                                -dynamics.bias(HALF_CHEETAH, f, v) - HALF_CHEETAH.dof_stiffness * q)
        return q + 1e-4 * (v + 0.5e-4 * qacc), v + 1e-4 * qacc

    e0 = energy(q, v)
    for _ in range(20):
        q, v = jax.jit(rk_step)(q, v)
    assert abs(float(energy(q, v) - e0)) < 1e-3 * abs(float(e0))


@requires_x64
def test_contacts_limits_and_constraints_match_mujoco(states):
    ref, qpos, qvel, ctrl, _ = states
    fwd = jax.jit(functools.partial(integrator.forward, HALF_CHEETAH))
    for i in range(len(qpos)):
        r = ref.forward(qpos[i], qvel[i], ctrl[i])
        f = fwd(jnp.asarray(qpos[i]), jnp.asarray(qvel[i]), jnp.asarray(ctrl[i]))
        assert int(f.contacts.active.sum()) == len(r.contacts)
        for c in r.contacts:
            k = 2 * (c.geom - 1)
            k += int(abs(f.contacts.dist[k + 1] - c.dist) < abs(f.contacts.dist[k] - c.dist))
            assert f.contacts.active[k]
            assert abs(float(f.contacts.dist[k]) - c.dist) < 1e-12
            assert abs(float(f.contacts.world_z[k]) - c.pos[2]) < 1e-12
            assert abs(float(f.contacts.point[k, 0]) + qpos[i][0] - c.pos[0]) < 1e-12
            np.testing.assert_allclose(c.frame[0], [0, 0, 1])
        assert int(f.limits.active.sum()) == int(np.sum(r.efc["efc_type"] == 3))
        active = np.asarray(f.rows.active)
        weight = constraint.row_weight(HALF_CHEETAH).astype(int)
        # Rows: exact formulas (1e-9). Forces and qacc: MuJoCo stops its Newton solver at
        # a cost improvement of 1e-8, so it is the looser side (1e-7 relative).
        for name, ours, tol in (("efc_R", f.rows.R, 1e-9), ("efc_aref", f.rows.aref, 1e-9),
                                ("efc_pos", f.rows.pos, 1e-9), ("efc_force", f.force, 1e-7)):
            mine = np.sort(np.repeat(np.asarray(ours)[active], weight[active]))
            np.testing.assert_allclose(mine, np.sort(r.efc[name]), rtol=tol, atol=tol,
                                       err_msg=name)
        np.testing.assert_allclose(f.qfrc_constraint, r.qfrc_constraint, rtol=1e-7, atol=1e-7)
        np.testing.assert_allclose(f.qacc, r.qacc, rtol=1e-7, atol=1e-7)


def _one_env_step_failures(states, dtype):
    ref, *_, s = states
    return agreement.check(agreement.summarise(s, agreement.errors("HalfCheetah", s, ref)), dtype)


@requires_x64
def test_one_env_step_float64(states):
    assert not _one_env_step_failures(states, "float64")
