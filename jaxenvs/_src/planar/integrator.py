"""One physics step: the whole pipeline from a state to the next, as MuJoCo's ``mj_step``
with the Euler or the RK4 integrator.

``forward`` is ``mj_forward``: ``smooth`` (kinematics, smooth forces, unconstrained
acceleration ``qacc_smooth = M^-1 (passive - bias + actuator)``, collision and limits,
constraint rows), then the constrained ``qacc`` from the solver. ``step`` then integrates with
implicit joint damping, as MuJoCo does when any dof has damping: ``qacc = (M + h
diag(damping))^-1 (qfrc_smooth + qfrc_constraint)``, ``qvel += h qacc``, ``qpos += h qvel``
(the new velocity: semi-implicit Euler); or, for a model that asks for RK4, with
``runge_kutta``.

On a CPU ``step`` runs as four XLA:CPU kernels (``jaxenvs._src.cpu_kernels.kernel``), which
avoid a dispatch per fused operation: the two halves of ``smooth`` (dynamics, collision; two
kernels ran faster than one), the solver's Newton iterations (its loop, or each round's Newton
step where a batch takes them in rounds), and the integration (figures: docs/halfcheetah.md,
Design choices).
"""

from __future__ import annotations

import functools
from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxenvs._src import kernel
from jaxenvs._src.planar import constraint, contact, dynamics, kinematics, linalg, solver
from jaxenvs._src.planar.model import MAX_VALUE, PlanarModel, const


@struct.dataclass
class Smooth:
    """What ``forward`` computes before the constraint solver (MuJoCo's names in brackets)."""

    frames: kinematics.Frames
    mass_matrix: jax.Array
    """[nv, nv] (``mj_fullM``)."""
    qfrc_smooth: jax.Array
    """[nv]: passive - bias + actuator (``qfrc_smooth``)."""
    qacc_smooth: jax.Array
    contacts: contact.Contacts
    limits: contact.Limits
    rows: constraint.Rows


@struct.dataclass
class Forward(Smooth):
    """What ``forward`` computes at one state: ``Smooth``'s fields, then the solver's."""

    force: jax.Array
    """[nrow]: force of each row (``efc_force``)."""
    qfrc_constraint: jax.Array
    qacc: jax.Array


def smooth_dynamics(m: PlanarModel, f: kinematics.Frames, qpos: jax.Array, qvel: jax.Array,
                    ctrl: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
    """``(M, qfrc_smooth, qacc_smooth)`` at the configuration of ``f``."""
    M = dynamics.mass_matrix(m, f)
    qfrc_smooth = (dynamics.passive(m, qpos, qvel) - dynamics.bias(m, f, qvel)
                   + dynamics.actuator(m, ctrl, qpos.dtype))
    return M, qfrc_smooth, linalg.solve_spd(M, qfrc_smooth)


def collision(m: PlanarModel, f: kinematics.Frames, qpos: jax.Array,
              qvel: jax.Array) -> tuple[contact.Contacts, contact.Limits, constraint.Rows]:
    """The contacts, the joint limits and their constraint rows at the configuration of ``f``."""
    con = contact.contacts(m, f)
    lim = contact.limits(m, qpos)
    return con, lim, constraint.assemble(m, qvel, lim, con, contact.contact_jacobian(m, f, con))


def smooth(m: PlanarModel, qpos: jax.Array, qvel: jax.Array, ctrl: jax.Array) -> Smooth:
    """``mj_forward`` up to the constraint solver, at ``(qpos, qvel, ctrl)``."""
    f = kinematics.frames(m, qpos)
    M, qfrc_smooth, qacc_smooth = smooth_dynamics(m, f, qpos, qvel, ctrl)
    con, lim, rows = collision(m, f, qpos, qvel)
    return Smooth(frames=f, mass_matrix=M, qfrc_smooth=qfrc_smooth, qacc_smooth=qacc_smooth,
                  contacts=con, limits=lim, rows=rows)


def constraint_force(m: PlanarModel, J: jax.Array, force: jax.Array) -> jax.Array:
    """``qfrc_constraint = J' (weight * force)``: the rows' forces in joint space."""
    return linalg.rmatvec(J, const(constraint.row_weight(m), J.dtype) * force)


def forward(m: PlanarModel, qpos: jax.Array, qvel: jax.Array, ctrl: jax.Array) -> Forward:
    """MuJoCo's ``mj_forward`` at ``(qpos, qvel, ctrl)``; all arrays of one float dtype."""
    s = smooth(m, qpos, qvel, ctrl)
    qacc, force = solver.solve(m, s.mass_matrix, s.qacc_smooth, s.rows)
    return Forward(**vars(s), force=force,
                   qfrc_constraint=constraint_force(m, s.rows.J, force), qacc=qacc)


def integrate(m: PlanarModel, qpos: jax.Array, qvel: jax.Array, mass_matrix: jax.Array,
              qfrc_smooth: jax.Array, qfrc_constraint: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Euler with implicit joint damping (MuJoCo's ``mj_Euler``)."""
    h = m.timestep
    damped = mass_matrix + h * jnp.diag(const(m.dof_damping, qpos.dtype))
    qacc = linalg.solve_spd(damped, qfrc_smooth + qfrc_constraint)
    qvel = qvel + h * qacc
    return qpos + h * qvel, qvel


@functools.cache
def _kernels(m: PlanarModel) -> tuple[Callable, Callable, Callable]:
    """``step``'s stages for model ``m``, each one kernel on the fast path: ``smooth``'s two
    halves from ``qpos``'s ``kinematics.rotations``, and ``integrate`` after the solver."""
    def dynamics(qpos, qvel, ctrl, rotation):
        return smooth_dynamics(m, kinematics.frames(m, qpos, rotation), qpos, qvel, ctrl)

    def rows(qpos, qvel, rotation):
        return collision(m, kinematics.frames(m, qpos, rotation), qpos, qvel)[2]

    def integration(qpos, qvel, mass_matrix, qfrc_smooth, J, force):
        return integrate(m, qpos, qvel, mass_matrix, qfrc_smooth, constraint_force(m, J, force))

    return tuple(kernel.one_kernel(stage) for stage in (dynamics, rows, integration))


def _is_bad(x: jax.Array) -> jax.Array:
    """MuJoCo's ``mju_isBad`` over a vector: any entry NaN or beyond ``MAX_VALUE``."""
    return jnp.any(jnp.isnan(x) | (jnp.abs(x) > MAX_VALUE))


#: MuJoCo's classic fourth-order Runge-Kutta tableau (``mj_RungeKutta``): row ``i``, stage
#: ``i``'s weights of the stages before it (stage 0 is the state itself), then the final
#: weights.
RK4_A = np.array([[0.0, 0.0, 0.0, 0.0], [0.5, 0.0, 0.0, 0.0], [0.0, 0.5, 0.0, 0.0],
                  [0.0, 0.0, 1.0, 0.0]])
RK4_B = np.array([1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0])


def _weighted(weights, vectors) -> jax.Array:
    """``0 + w_0 v_0 + w_1 v_1 + ...`` in MuJoCo's order (``mju_zero``, ``mju_addToScl``).
    Terms after MuJoCo's last one, of weight 0 times a vector 0, leave the sum as it is."""
    total = jnp.zeros_like(vectors[0])
    for j in range(len(vectors)):
        total = total + vectors[j] * weights[j]
    return total


def _constrained(m: PlanarModel, qpos, qvel, ctrl):
    """``forward`` as ``step`` runs it: ``(M, qfrc_smooth, rows, qacc, force)``."""
    dynamics_kernel, rows_kernel, _ = _kernels(m)
    rotation = kinematics.rotations(m, qpos)  # shared by the two kernels of ``smooth``
    M, qfrc_smooth, qacc_smooth = dynamics_kernel(qpos, qvel, ctrl, rotation)
    rows = rows_kernel(qpos, qvel, rotation)
    qacc, force = solver.solve(m, M, qacc_smooth, rows)
    return M, qfrc_smooth, rows, qacc, force


def runge_kutta(m: PlanarModel, qpos, qvel, ctrl) -> tuple[jax.Array, jax.Array, jax.Array]:
    """MuJoCo's ``mj_RungeKutta`` with 4 stages: ``(qpos, qvel)`` after the step, and the
    first stage's ``qacc`` (``forward``'s at the state). Stage ``i`` runs ``forward`` at
    ``qpos + h dq``, ``qvel + h dv`` for the tableau's combinations ``dq``, ``dv`` of the
    earlier stages' velocities and accelerations; the step then adds ``h`` times the final
    combinations. Damping is explicit (in ``passive``). The stages are one loop, so that
    ``forward`` compiles once."""
    h = m.timestep
    dtype = qpos.dtype

    def stage(i, carry):
        velocities, accelerations = carry
        weights = const(RK4_A, dtype)[i]
        stage_qvel = qvel + _weighted(weights, accelerations) * h
        stage_qpos = qpos + _weighted(weights, velocities) * h
        qacc = _constrained(m, stage_qpos, stage_qvel, ctrl)[3]
        return velocities.at[i].set(stage_qvel), accelerations.at[i].set(qacc)

    empty = jnp.zeros((len(RK4_B), m.nv), dtype)
    velocities, accelerations = jax.lax.fori_loop(0, len(RK4_B), stage, (empty, empty))
    weights = const(RK4_B, dtype)
    new_qvel = qvel + _weighted(weights, accelerations) * h
    return qpos + _weighted(weights, velocities) * h, new_qvel, accelerations[0]


@functools.partial(jax.jit, static_argnums=0)
def step(m: PlanarModel, qpos: jax.Array, qvel: jax.Array,
         ctrl: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
    """One ``mj_step`` of model ``m``: ``(qpos, qvel, reset)`` after ``m.timestep`` seconds
    under ``ctrl``.

    ``reset``: MuJoCo's checks found the simulation unstable, a ``qpos`` or ``qvel`` entry bad
    before the step or a ``qacc`` entry after ``forward`` (its BADQPOS, BADQVEL and BADQACC
    warnings), so it reset the data (``mj_resetData``: ``qpos0``, at rest, controls 0) and the
    step ran from there; its result is then ``m.reset_step_qpos/qvel``.

    Jitted so that JAX traces and batches it once however often a caller traces it (the env's
    batch-invariant wrapper traces its step twice); XLA inlines it into the caller."""
    if m.integrator == "rk4":
        new_qpos, new_qvel, qacc = runge_kutta(m, qpos, qvel, ctrl)
    else:
        M, qfrc_smooth, rows, qacc, force = _constrained(m, qpos, qvel, ctrl)
        new_qpos, new_qvel = _kernels(m)[2](qpos, qvel, M, qfrc_smooth, rows.J, force)
    reset = _is_bad(qpos) | _is_bad(qvel) | _is_bad(qacc)
    return (jnp.where(reset, const(m.reset_step_qpos, qpos.dtype), new_qpos),
            jnp.where(reset, const(m.reset_step_qvel, qpos.dtype), new_qvel), reset)
