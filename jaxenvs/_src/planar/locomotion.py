"""What the planar locomotion envs share around ``integrator.step``: the physics dtype, one
env step's physics (``frame_skip`` MuJoCo steps), gymnasium's control cost, and the env shape
of Hopper-v5 and Walker2d-v5 (``HealthyLocomotion``)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from gymnax.environments import spaces

from jaxenvs._src import param_checks
from jaxenvs._src.planar import batching, integrator, linalg
from jaxenvs._src.planar.model import PlanarModel, const


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


#: gymnasium's ``-v5`` locomotion envs clip the observed velocities to this magnitude.
VELOCITY_CLIP = 10.0


class HealthyLocomotion:
    """The env shape gymnasium's Hopper-v5 and Walker2d-v5 share, mixed into an
    ``Environment`` (with the body's ``model`` and ``state_type``; the subclass adds its own
    health conditions in ``is_healthy``).

    Observation: ``qpos[1:]`` and ``qvel`` clipped to [-10, 10]. Reward:
    ``forward_reward_weight * dx / dt + healthy_reward * healthy - ctrl_cost_weight *
    sum(action^2)``, ``healthy`` the state after the step; ``info`` carries ``x_position``,
    ``z_distance_from_origin``, ``x_velocity``, ``reward_forward``, ``reward_ctrl`` and
    ``reward_survive`` as gymnasium does, and ``bad_action`` (a NaN in the action: the step
    ran with every control 0, MuJoCo's BADCTRL) and ``bad_state`` (MuJoCo's checks restarted
    an unstable simulation, ``physics_step``). Terminates at the first unhealthy state with
    ``terminate_when_unhealthy``. Reset: ``qpos0`` and rest plus ``U(-s, s)`` noise.
    """

    model: PlanarModel
    state_type: type
    unrolled_keys_on_cpu = True

    def is_healthy(self, qpos: jax.Array, qvel: jax.Array, params) -> jax.Array:
        """gymnasium's ``is_healthy``: the torso's height ``qpos[1]`` and angle ``qpos[2]``
        strictly inside their ranges (the subclass may ask more)."""
        z, angle = qpos[1], qpos[2]
        return ((params.healthy_z_min < z) & (z < params.healthy_z_max)
                & (params.healthy_angle_min < angle) & (angle < params.healthy_angle_max))

    def param_errors(self, params) -> list[str | None]:
        """The checks of the shared parameters (``check_params`` raises them together)."""
        return [
            *(param_checks.real(params, name) for name in (
                "forward_reward_weight", "ctrl_cost_weight", "healthy_reward",
                "healthy_angle_min", "healthy_angle_max")),
            param_checks.real(params, "healthy_z_min"),
            param_checks.real(params, "healthy_z_max", infinite=True),
            _ordered(params, "healthy_z_min", "healthy_z_max"),
            _ordered(params, "healthy_angle_min", "healthy_angle_max"),
            param_checks.boolean(params, "terminate_when_unhealthy"),
            param_checks.real(params, "reset_noise_scale", 0),
            param_checks.integer(params, "max_steps_in_episode", 1),
            param_checks.integer(params, "frame_skip", 1)]

    def check_params(self, params) -> None:
        errors = param_checks.errors(*self.param_errors(params))
        if errors:
            raise ValueError(f"Invalid {self.name} parameters: " + "; ".join(errors))

    def observe(self, qpos: jax.Array, qvel: jax.Array) -> jax.Array:
        return jnp.concatenate([qpos[1:], jnp.clip(qvel, -VELOCITY_CLIP, VELOCITY_CLIP)])

    def step_env(self, key, state, action, params):
        m, dtype = self.model, state.qpos.dtype

        def transition(qpos, qvel, action, forward_weight, ctrl_weight):
            # MuJoCo's check of the controls: one NaN, and the step runs with all of them 0
            # (its BADCTRL warning); the cost, gymnasium's, stays that of the action (NaN)
            ctrl = jnp.where(jnp.any(jnp.isnan(action)), jnp.zeros_like(action), action)
            qpos, qvel, dx, reset = physics_step(m, qpos, qvel, ctrl, params.frame_skip)
            x_velocity = dx / (params.frame_skip * m.timestep)
            return (qpos, qvel, x_velocity, forward_weight * x_velocity,
                    ctrl_weight * control_cost(action), reset)

        # Everything with float arithmetic runs batch-invariantly (see ``batching``).
        qpos, qvel, x_velocity, reward_forward, ctrl_cost, reset = \
            batching.batch_invariant(transition, shared_argnums=(3, 4))(
                state.qpos, state.qvel, jnp.asarray(action, dtype),
                jnp.asarray(params.forward_reward_weight, dtype),
                jnp.asarray(params.ctrl_cost_weight, dtype))
        healthy = self.is_healthy(qpos, qvel, params)
        reward_survive = jnp.where(healthy, jnp.asarray(params.healthy_reward, dtype), 0)
        reward = (reward_forward + reward_survive - ctrl_cost).astype(jnp.float32)
        state = self.state_type(qpos=qpos, qvel=qvel, time=state.time + 1)
        info = {"x_position": qpos[0], "z_distance_from_origin": qpos[1] - m.qpos0[1],
                "x_velocity": x_velocity, "reward_forward": reward_forward,
                "reward_ctrl": -ctrl_cost, "reward_survive": reward_survive,
                "bad_action": jnp.any(jnp.isnan(jnp.asarray(action))), "bad_state": reset}
        terminated = ~healthy & jnp.asarray(params.terminate_when_unhealthy)
        return self.observe(qpos, qvel), state, reward, terminated, info

    def reset_env(self, key, params):
        dtype = float_dtype()
        scale = jnp.asarray(params.reset_noise_scale, dtype)
        noise = [jax.random.uniform(k, (self.model.nv,), dtype, -1, 1) * scale
                 for k in jax.random.split(key)]
        qpos = const(self.model.qpos0, dtype) + noise[0]
        state = self.state_type(qpos=qpos, qvel=noise[1], time=jnp.int32(0))
        return self.observe(qpos, noise[1]), state

    def is_terminated(self, state, params) -> jax.Array:
        return (~self.is_healthy(state.qpos, state.qvel, params)
                & jnp.asarray(params.terminate_when_unhealthy))

    @property
    def num_actions(self) -> int:
        return len(self.model.actuator_gear)

    def action_space(self, params=None) -> spaces.Box:
        return spaces.Box(-1.0, 1.0, (self.num_actions,), jnp.float32)

    def observation_space(self, params=None) -> spaces.Box:
        return spaces.Box(-jnp.inf, jnp.inf, (2 * self.model.nv - 1,), float_dtype())

    def state_space(self, params=None) -> spaces.Dict:
        p = self.default_params if params is None else params
        return spaces.Dict({
            "qpos": spaces.Box(-jnp.inf, jnp.inf, (self.model.nv,), float_dtype()),
            "qvel": spaces.Box(-jnp.inf, jnp.inf, (self.model.nv,), float_dtype()),
            "time": spaces.Discrete(int(p.max_steps_in_episode)),
        })


def _ordered(params, low: str, high: str) -> str | None:
    """``low`` must be below ``high`` (the two ends of a range); values that are not numbers
    are left to their own checks."""
    try:
        if bool(getattr(params, low) < getattr(params, high)):
            return None
    except (TypeError, ValueError):
        return None
    return f"{low} must be below {high}, got {getattr(params, low)!r} and " \
           f"{getattr(params, high)!r}"
