"""One physics step: the whole pipeline from a state to the next, as MuJoCo's ``mj_step``
with the Euler integrator.

``forward`` is ``mj_forward``: kinematics, smooth forces, unconstrained acceleration
``qacc_smooth = M^-1 (passive - bias + actuator)``, collision and limits, constraint rows and the
constrained ``qacc``. ``step`` then integrates with implicit joint damping, as MuJoCo does when
any dof has damping: ``qacc = (M + h diag(damping))^-1 (qfrc_smooth + qfrc_constraint)``,
``qvel += h qacc``, ``qpos += h qvel`` (the new velocity: semi-implicit Euler).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from jaxenvs.halfcheetah import constraint, contact, dynamics, kinematics, linalg, model, solver
from jaxenvs.halfcheetah.model import const


@struct.dataclass
class Forward:
    """What ``forward`` computes at one state (MuJoCo's names in brackets)."""

    frames: kinematics.Frames
    mass_matrix: jax.Array
    """[9, 9] (``mj_fullM``)."""
    qfrc_smooth: jax.Array
    """[9]: passive - bias + actuator (``qfrc_smooth``)."""
    qacc_smooth: jax.Array
    contacts: contact.Contacts
    limits: contact.Limits
    rows: constraint.Rows
    force: jax.Array
    """[54]: force of each row (``efc_force``)."""
    qfrc_constraint: jax.Array
    qacc: jax.Array


def forward(qpos: jax.Array, qvel: jax.Array, ctrl: jax.Array) -> Forward:
    """MuJoCo's ``mj_forward`` at ``(qpos, qvel, ctrl)``; all arrays of one float dtype."""
    f = kinematics.frames(qpos)
    M = dynamics.mass_matrix(f)
    qfrc_smooth = (dynamics.passive(qpos, qvel) - dynamics.bias(f, qvel)
                   + dynamics.actuator(ctrl, qpos.dtype))
    qacc_smooth = linalg.solve_spd(M, qfrc_smooth)
    con = contact.contacts(f)
    lim = contact.limits(qpos)
    rows = constraint.assemble(qvel, lim, con, contact.contact_jacobian(f, con))
    qacc, force = solver.solve(M, qacc_smooth, rows)
    weight = const(constraint.ROW_WEIGHT, qpos.dtype)
    qfrc_constraint = linalg.rmatvec(rows.J, weight * force)
    return Forward(frames=f, mass_matrix=M, qfrc_smooth=qfrc_smooth, qacc_smooth=qacc_smooth,
                   contacts=con, limits=lim, rows=rows, force=force,
                   qfrc_constraint=qfrc_constraint, qacc=qacc)


def integrate(qpos: jax.Array, qvel: jax.Array, fwd: Forward) -> tuple[jax.Array, jax.Array]:
    """Euler with implicit joint damping (MuJoCo's ``mj_Euler``)."""
    h = model.TIMESTEP
    damped = fwd.mass_matrix + h * jnp.diag(const(model.DOF_DAMPING, qpos.dtype))
    qacc = linalg.solve_spd(damped, fwd.qfrc_smooth + fwd.qfrc_constraint)
    qvel = qvel + h * qacc
    return qpos + h * qvel, qvel


@jax.jit
def step(qpos: jax.Array, qvel: jax.Array, ctrl: jax.Array) -> tuple[jax.Array, jax.Array]:
    """One ``mj_step``: ``(qpos, qvel)`` after ``model.TIMESTEP`` seconds under ``ctrl``.

    Jitted so that JAX traces and batches it once however often a caller traces it (the env's
    batch-invariant wrapper traces its step twice); XLA inlines it into the caller."""
    return integrate(qpos, qvel, forward(qpos, qvel, ctrl))


def multi_step(qpos: jax.Array, qvel: jax.Array, ctrl: jax.Array,
               nstep: int) -> tuple[jax.Array, jax.Array]:
    """``nstep`` physics steps under a constant ``ctrl`` (a rolled loop)."""
    def body(_, state):
        return step(*state, ctrl)
    return jax.lax.fori_loop(0, nstep, body, (qpos, qvel))
