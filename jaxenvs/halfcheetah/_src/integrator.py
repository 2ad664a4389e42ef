"""One physics step: the whole pipeline from a state to the next, as MuJoCo's ``mj_step``
with the Euler integrator.

``forward`` is ``mj_forward``: ``smooth`` (kinematics, smooth forces, unconstrained
acceleration ``qacc_smooth = M^-1 (passive - bias + actuator)``, collision and limits,
constraint rows), then the constrained ``qacc`` from the solver. ``step`` then integrates with
implicit joint damping, as MuJoCo does when any dof has damping: ``qacc = (M + h
diag(damping))^-1 (qfrc_smooth + qfrc_constraint)``, ``qvel += h qacc``, ``qpos += h qvel``
(the new velocity: semi-implicit Euler).

On a CPU ``step`` runs as four XLA:CPU kernels (``jaxenvs._src.cpu_kernels.kernel``), which
avoid a dispatch per fused operation: the two halves of ``smooth`` (dynamics, collision; two
kernels ran faster than one), the solver's Newton iterations (its loop, or each round's Newton
step where a batch takes them in rounds), and the integration (figures: docs/halfcheetah.md,
Design choices).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from jaxenvs._src import kernel
from jaxenvs.halfcheetah._src import (constraint, contact, dynamics, kinematics, linalg, model,
                                      solver)
from jaxenvs.halfcheetah._src.model import const


@struct.dataclass
class Smooth:
    """What ``forward`` computes before the constraint solver (MuJoCo's names in brackets)."""

    frames: kinematics.Frames
    mass_matrix: jax.Array
    """[9, 9] (``mj_fullM``)."""
    qfrc_smooth: jax.Array
    """[9]: passive - bias + actuator (``qfrc_smooth``)."""
    qacc_smooth: jax.Array
    contacts: contact.Contacts
    limits: contact.Limits
    rows: constraint.Rows


@struct.dataclass
class Forward(Smooth):
    """What ``forward`` computes at one state: ``Smooth``'s fields, then the solver's."""

    force: jax.Array
    """[54]: force of each row (``efc_force``)."""
    qfrc_constraint: jax.Array
    qacc: jax.Array


def smooth_dynamics(f: kinematics.Frames, qpos: jax.Array, qvel: jax.Array,
                    ctrl: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
    """``(M, qfrc_smooth, qacc_smooth)`` at the configuration of ``f``."""
    M = dynamics.mass_matrix(f)
    qfrc_smooth = (dynamics.passive(qpos, qvel) - dynamics.bias(f, qvel)
                   + dynamics.actuator(ctrl, qpos.dtype))
    return M, qfrc_smooth, linalg.solve_spd(M, qfrc_smooth)


def collision(f: kinematics.Frames, qpos: jax.Array,
              qvel: jax.Array) -> tuple[contact.Contacts, contact.Limits, constraint.Rows]:
    """The contacts, the joint limits and their constraint rows at the configuration of ``f``."""
    con = contact.contacts(f)
    lim = contact.limits(qpos)
    return con, lim, constraint.assemble(qvel, lim, con, contact.contact_jacobian(f, con))


def smooth(qpos: jax.Array, qvel: jax.Array, ctrl: jax.Array) -> Smooth:
    """``mj_forward`` up to the constraint solver, at ``(qpos, qvel, ctrl)``."""
    f = kinematics.frames(qpos)
    M, qfrc_smooth, qacc_smooth = smooth_dynamics(f, qpos, qvel, ctrl)
    con, lim, rows = collision(f, qpos, qvel)
    return Smooth(frames=f, mass_matrix=M, qfrc_smooth=qfrc_smooth, qacc_smooth=qacc_smooth,
                  contacts=con, limits=lim, rows=rows)


def constraint_force(J: jax.Array, force: jax.Array) -> jax.Array:
    """``qfrc_constraint = J' (weight * force)``: the rows' forces in joint space."""
    return linalg.rmatvec(J, const(constraint.ROW_WEIGHT, J.dtype) * force)


def forward(qpos: jax.Array, qvel: jax.Array, ctrl: jax.Array) -> Forward:
    """MuJoCo's ``mj_forward`` at ``(qpos, qvel, ctrl)``; all arrays of one float dtype."""
    s = smooth(qpos, qvel, ctrl)
    qacc, force = solver.solve(s.mass_matrix, s.qacc_smooth, s.rows)
    return Forward(**vars(s), force=force, qfrc_constraint=constraint_force(s.rows.J, force),
                   qacc=qacc)


def integrate(qpos: jax.Array, qvel: jax.Array, mass_matrix: jax.Array,
              qfrc_smooth: jax.Array, qfrc_constraint: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Euler with implicit joint damping (MuJoCo's ``mj_Euler``)."""
    h = model.TIMESTEP
    damped = mass_matrix + h * jnp.diag(const(model.DOF_DAMPING, qpos.dtype))
    qacc = linalg.solve_spd(damped, qfrc_smooth + qfrc_constraint)
    qvel = qvel + h * qacc
    return qpos + h * qvel, qvel


@kernel.one_kernel
def _dynamics_kernel(qpos, qvel, ctrl, rotation):
    """``smooth_dynamics`` from ``qpos``'s ``kinematics.rotations``."""
    return smooth_dynamics(kinematics.frames(qpos, rotation), qpos, qvel, ctrl)


@kernel.one_kernel
def _rows_kernel(qpos, qvel, rotation):
    """``collision``'s constraint rows from ``qpos``'s ``kinematics.rotations``."""
    return collision(kinematics.frames(qpos, rotation), qpos, qvel)[2]


@kernel.one_kernel
def _integrate_kernel(qpos, qvel, mass_matrix, qfrc_smooth, J, force):
    """``integrate`` after the solver's ``force``."""
    return integrate(qpos, qvel, mass_matrix, qfrc_smooth, constraint_force(J, force))


def _is_bad(x: jax.Array) -> jax.Array:
    """MuJoCo's ``mju_isBad`` over a vector: any entry NaN or beyond ``MAX_VALUE``."""
    return jnp.any(jnp.isnan(x) | (jnp.abs(x) > model.MAX_VALUE))


@jax.jit
def step(qpos: jax.Array, qvel: jax.Array,
         ctrl: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
    """One ``mj_step``: ``(qpos, qvel, reset)`` after ``model.TIMESTEP`` seconds under ``ctrl``.

    ``reset``: MuJoCo's checks found the simulation unstable, a ``qpos`` or ``qvel`` entry bad
    before the step or a ``qacc`` entry after ``forward`` (its BADQPOS, BADQVEL and BADQACC
    warnings), so it reset the data (``mj_resetData``: ``qpos0``, at rest, controls 0) and the
    step ran from there; its result is then ``model.RESET_STEP_QPOS/QVEL``.

    Jitted so that JAX traces and batches it once however often a caller traces it (the env's
    batch-invariant wrapper traces its step twice); XLA inlines it into the caller."""
    rotation = kinematics.rotations(qpos)  # shared by the two kernels of ``smooth``
    M, qfrc_smooth, qacc_smooth = _dynamics_kernel(qpos, qvel, ctrl, rotation)
    rows = _rows_kernel(qpos, qvel, rotation)
    qacc, force = solver.solve(M, qacc_smooth, rows)
    new_qpos, new_qvel = _integrate_kernel(qpos, qvel, M, qfrc_smooth, rows.J, force)
    reset = _is_bad(qpos) | _is_bad(qvel) | _is_bad(qacc)
    return (jnp.where(reset, const(model.RESET_STEP_QPOS, qpos.dtype), new_qpos),
            jnp.where(reset, const(model.RESET_STEP_QVEL, qpos.dtype), new_qvel), reset)
