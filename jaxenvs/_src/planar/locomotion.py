"""What the planar locomotion envs share around ``integrator.step``: the physics dtype, one
env step's physics (``frame_skip`` MuJoCo steps) and gymnasium's control cost."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxenvs._src.planar import integrator, linalg
from jaxenvs._src.planar.model import PlanarModel


def float_dtype():
    """The physics dtype: float64 when ``jax_enable_x64`` is on, else float32."""
    return jnp.zeros(()).dtype


def physics_step(m: PlanarModel, qpos: jax.Array, qvel: jax.Array, action: jax.Array,
                 frame_skip: int) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array]:
    """``frame_skip`` MuJoCo steps of model ``m`` under ``ctrl = action`` (clamped to the
    control range by the actuators). Returns ``(qpos, qvel, dx, reset)``: ``dx`` the root's x
    displacement summed over the substeps (equal to the difference of ``qpos[0]``, without
    its rounding at large x); ``reset`` whether MuJoCo's checks reset an unstable simulation
    in a substep (see ``integrator.step``), after which the substeps left run with controls
    0, as MuJoCo's."""
    def body(_, carry):
        qpos, qvel, ctrl, dx, reset = carry
        new_qpos, new_qvel, now_reset = integrator.step(m, qpos, qvel, ctrl)
        moved = new_qpos[0] - qpos[0]
        if m.integrator == "euler":  # the substep moved x by exactly h * qvel
            moved = jnp.where(now_reset, moved, m.timestep * new_qvel[0])
        return (new_qpos, new_qvel, jnp.where(now_reset, jnp.zeros_like(ctrl), ctrl),
                dx + moved, reset | now_reset)
    qpos, qvel, _, dx, reset = jax.lax.fori_loop(
        0, frame_skip, body,
        (qpos, qvel, action, jnp.zeros((), qpos.dtype), jnp.bool_(False)))
    return qpos, qvel, dx, reset


def control_cost(action: jax.Array) -> jax.Array:
    """``sum(action^2)``, in a fixed order (``linalg.ordered_sum``)."""
    return linalg.ordered_sum(action[i] * action[i] for i in range(action.shape[0]))
