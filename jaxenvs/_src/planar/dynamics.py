"""Smooth dynamics: mass matrix, bias forces (Coriolis/centrifugal and gravity), passive and
actuator forces. MuJoCo's ``qM`` (``mj_crb`` + armature), ``qfrc_bias`` (``mj_rne`` at zero
acceleration), ``qfrc_passive`` and ``qfrc_actuator`` for a planar model.

In the plane a body's angular velocity is along y, so its gyroscopic torque ``w x I w`` has no
y component and only ``I_yy`` enters; the bias is then the linear momentum rate of each body's
centre of mass at zero joint acceleration, mapped to the dofs by the body's Jacobian (the
backward pass of recursive Newton-Euler, summed subtree by subtree through the Jacobian's
sparsity).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxenvs._src.planar import kinematics, linalg
from jaxenvs._src.planar.kinematics import Frames
from jaxenvs._src.planar.model import PlanarModel, const


def mass_matrix(m: PlanarModel, f: Frames) -> jax.Array:
    """``[nv, nv]`` joint-space inertia, armature included (MuJoCo's ``mj_fullM``).

    ``M = sum_b m_b Jc_b' Jc_b + I_b w_b w_b'`` with ``Jc_b`` the Jacobian of body b's centre of
    mass and ``w_b`` the row ``d angle_b / d qpos`` (each hinge that rotates it, signed):
    entry (i, j) collects the bodies in the common subtree of dofs i and j, the sum the
    composite-rigid-body algorithm accumulates.
    """
    dtype = f.com.dtype
    jac = kinematics.com_jacobian(m, f)                               # [nbody, 2, nv]
    turns = const(m.turns, dtype)                                     # [nbody, nv]
    mass = const(m.body_mass, dtype)[:, None, None]
    iyy = const(m.body_iyy, dtype)[:, None, None]
    per_body = (mass * (jac[:, 0, :, None] * jac[:, 0, None, :]
                        + jac[:, 1, :, None] * jac[:, 1, None, :])
                + iyy * turns[:, :, None] * turns[:, None, :])
    return linalg.tree_sum(per_body) + jnp.diag(const(m.dof_armature, dtype))


def com_acceleration(m: PlanarModel, f: Frames, qvel: jax.Array) -> jax.Array:
    """``[nbody, 2]``: each centre of mass's acceleration at zero joint acceleration (centripetal
    terms of the rotating chain; the forward pass of RNE). A body's hinge anchor is fixed in its
    parent, so it accelerates as a point of the parent: anchor to anchor down the chain."""
    omega2 = kinematics.angular_velocity(m, qvel) ** 2
    has_parent = (m.body_parent >= 0)[:, None]
    parent = np.maximum(m.body_parent, 0)  # the root's entry is masked out
    step = omega2[parent][:, None] * (f.anchor - f.anchor[parent])
    anchor_acc = -linalg.select_sum(m.chain, jnp.where(has_parent, step, 0))
    return anchor_acc - omega2[:, None] * (f.com - f.anchor)


def _generalized(m: PlanarModel, f: Frames, force: jax.Array) -> jax.Array:
    """Map forces ``[nbody, 2]`` applied at the centres of mass to the dofs:
    ``sum_b Jc_b' F_b``."""
    jac = kinematics.com_jacobian(m, f)
    return linalg.tree_sum(jac[:, 0] * force[:, 0, None] + jac[:, 1] * force[:, 1, None])


def coriolis(m: PlanarModel, f: Frames, qvel: jax.Array) -> jax.Array:
    """Coriolis and centrifugal part of ``qfrc_bias``: ``qfrc_bias(q, v) - qfrc_bias(q, 0)``."""
    mass = const(m.body_mass, qvel.dtype)
    return _generalized(m, f, mass[:, None] * com_acceleration(m, f, qvel))


def gravity(m: PlanarModel, f: Frames) -> jax.Array:
    """Gravity part of ``qfrc_bias`` (the force that holds the configuration still)."""
    dtype = f.com.dtype
    weight = -const(m.body_mass, dtype) * m.gravity_z
    return _generalized(m, f, jnp.stack([jnp.zeros_like(weight), weight], axis=-1))


def bias(m: PlanarModel, f: Frames, qvel: jax.Array) -> jax.Array:
    """MuJoCo's ``qfrc_bias``: Coriolis, centrifugal and gravity forces."""
    mass = const(m.body_mass, qvel.dtype)
    acc = com_acceleration(m, f, qvel) - jnp.array([0.0, m.gravity_z], qvel.dtype)
    return _generalized(m, f, mass[:, None] * acc)


def passive(m: PlanarModel, qpos: jax.Array, qvel: jax.Array) -> jax.Array:
    """MuJoCo's ``qfrc_passive``: joint springs (resting at 0) and dampers."""
    dtype = qpos.dtype
    return -const(m.dof_stiffness, dtype) * qpos - const(m.dof_damping, dtype) * qvel


def actuator(m: PlanarModel, ctrl: jax.Array, dtype) -> jax.Array:
    """MuJoCo's ``qfrc_actuator``: motors with ``ctrl`` clamped to the control range."""
    lo, hi = m.ctrl_range
    torque = const(m.actuator_gear, dtype) * jnp.clip(jnp.asarray(ctrl, dtype), lo, hi)
    # The motors drive the last dofs (``PlanarModel.actuated_dofs``); a concatenation, not
    # a scatter, so that it can go in an XLA:CPU kernel (``jaxenvs._src.cpu_kernels.kernel``).
    return jnp.concatenate([jnp.zeros(m.actuated_dofs[0], dtype), torque])
