"""Smooth dynamics: mass matrix, bias forces (Coriolis/centrifugal and gravity), passive and
actuator forces. MuJoCo's ``qM`` (``mj_crb`` + armature), ``qfrc_bias`` (``mj_rne`` at zero
acceleration), ``qfrc_passive`` and ``qfrc_actuator`` for this model.

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

from jaxenvs.halfcheetah._src import kinematics, linalg, model
from jaxenvs.halfcheetah._src.kinematics import Frames
from jaxenvs.halfcheetah._src.model import const


def mass_matrix(f: Frames) -> jax.Array:
    """``[9, 9]`` joint-space inertia, armature included (MuJoCo's ``mj_fullM``).

    ``M = sum_b m_b Jc_b' Jc_b + I_b w_b w_b'`` with ``Jc_b`` the Jacobian of body b's centre of
    mass and ``w_b`` the 0/1 row of hinges that rotate it: entry (i, j) collects the bodies in
    the common subtree of dofs i and j, the sum the composite-rigid-body algorithm accumulates.
    """
    dtype = f.com.dtype
    jac = kinematics.com_jacobian(f)                                  # [7, 2, 9]
    rotates = const(model.ROTATES, dtype)                             # [7, 9]
    mass = const(model.BODY_MASS, dtype)[:, None, None]
    iyy = const(model.BODY_IYY, dtype)[:, None, None]
    per_body = (mass * (jac[:, 0, :, None] * jac[:, 0, None, :]
                        + jac[:, 1, :, None] * jac[:, 1, None, :])
                + iyy * rotates[:, :, None] * rotates[:, None, :])
    return linalg.tree_sum(per_body) + jnp.diag(const(model.DOF_ARMATURE, dtype))


def com_acceleration(f: Frames, qvel: jax.Array) -> jax.Array:
    """``[7, 2]``: each centre of mass's acceleration at zero joint acceleration (centripetal
    terms of the rotating chain; the forward pass of RNE)."""
    omega2 = kinematics.angular_velocity(qvel) ** 2
    has_parent = (model.BODY_PARENT >= 0)[:, None]
    parent = np.maximum(model.BODY_PARENT, 0)  # the torso's entry is masked out
    step = omega2[parent][:, None] * (f.origin - f.origin[parent])
    origin_acc = -linalg.select_sum(model.CHAIN, jnp.where(has_parent, step, 0))
    return origin_acc - omega2[:, None] * (f.com - f.origin)


def _generalized(f: Frames, force: jax.Array) -> jax.Array:
    """Map forces ``[7, 2]`` applied at the centres of mass to the dofs: ``sum_b Jc_b' F_b``."""
    jac = kinematics.com_jacobian(f)
    return linalg.tree_sum(jac[:, 0] * force[:, 0, None] + jac[:, 1] * force[:, 1, None])


def coriolis(f: Frames, qvel: jax.Array) -> jax.Array:
    """Coriolis and centrifugal part of ``qfrc_bias``: ``qfrc_bias(q, v) - qfrc_bias(q, 0)``."""
    mass = const(model.BODY_MASS, qvel.dtype)
    return _generalized(f, mass[:, None] * com_acceleration(f, qvel))


def gravity(f: Frames) -> jax.Array:
    """Gravity part of ``qfrc_bias`` (the force that holds the configuration still)."""
    dtype = f.com.dtype
    weight = -const(model.BODY_MASS, dtype) * model.GRAVITY_Z
    return _generalized(f, jnp.stack([jnp.zeros_like(weight), weight], axis=-1))


def bias(f: Frames, qvel: jax.Array) -> jax.Array:
    """MuJoCo's ``qfrc_bias``: Coriolis, centrifugal and gravity forces."""
    mass = const(model.BODY_MASS, qvel.dtype)
    acc = com_acceleration(f, qvel) - jnp.array([0.0, model.GRAVITY_Z], qvel.dtype)
    return _generalized(f, mass[:, None] * acc)


def passive(qpos: jax.Array, qvel: jax.Array) -> jax.Array:
    """MuJoCo's ``qfrc_passive``: joint springs (resting at 0) and dampers."""
    dtype = qpos.dtype
    return -const(model.DOF_STIFFNESS, dtype) * qpos - const(model.DOF_DAMPING, dtype) * qvel


def actuator(ctrl: jax.Array, dtype) -> jax.Array:
    """MuJoCo's ``qfrc_actuator``: motors with ``ctrl`` clamped to the control range."""
    lo, hi = model.CTRL_RANGE
    torque = const(model.ACTUATOR_GEAR, dtype) * jnp.clip(jnp.asarray(ctrl, dtype), lo, hi)
    # The motors drive the last dofs (``model.ACTUATED_DOFS``); a concatenation, not a
    # scatter, so that it can go in an XLA:CPU kernel (``jaxenvs._src.cpu_kernels.kernel``).
    return jnp.concatenate([jnp.zeros(model.ACTUATED_DOFS[0], dtype), torque])
