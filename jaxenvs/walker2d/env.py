"""The Walker2d environment: gymnax wiring around the planar physics (``jaxenvs._src.planar``)
of Walker2d's model."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from gymnax.environments import spaces

from jaxenvs._src import param_checks
from jaxenvs._src.planar import batching
from jaxenvs._src.planar.locomotion import control_cost, float_dtype, physics_step
from jaxenvs._src.planar.model import const
from jaxenvs.environment import Environment
from jaxenvs.walker2d._src.model import WALKER2D
from jaxenvs.walker2d.types import Walker2dParams, Walker2dState

#: gymnasium clips the observed velocities to this magnitude.
VELOCITY_CLIP = 10.0


def observe(state: Walker2dState) -> jax.Array:
    """Walker2d-v5's observation (17): ``qpos[1:]`` then ``qvel`` clipped to [-10, 10]."""
    return jnp.concatenate([state.qpos[1:], jnp.clip(state.qvel, -VELOCITY_CLIP,
                                                     VELOCITY_CLIP)])


def is_healthy(qpos: jax.Array, params: Walker2dParams) -> jax.Array:
    """gymnasium's ``is_healthy``: the torso's height and angle strictly inside their ranges."""
    z, angle = qpos[1], qpos[2]
    return ((params.healthy_z_min < z) & (z < params.healthy_z_max)
            & (params.healthy_angle_min < angle) & (angle < params.healthy_angle_max))


class Walker2d(Environment):
    """gymnasium's Walker2d-v5 on a pure-JAX port of MuJoCo's pipeline for its model (RK4).

    Observation: ``[17]`` = ``qpos[1:]`` and ``qvel`` clipped to [-10, 10]. Action:
    ``Box(-1, 1, (6,))``, the six motor controls (gear 100). Reward:
    ``forward_reward_weight * dx / dt + healthy_reward * healthy - ctrl_cost_weight *
    sum(action^2)`` with ``dt = frame_skip * 0.002``, healthy meaning the torso's height and
    angle are inside their ranges after the step; ``info`` carries ``x_position``,
    ``z_distance_from_origin``, ``x_velocity``, ``reward_forward``, ``reward_ctrl`` and
    ``reward_survive`` as gymnasium does, and ``bad_action`` and ``bad_state`` as HalfCheetah.
    Terminates at the first unhealthy state (with ``terminate_when_unhealthy``); truncation
    after ``max_steps_in_episode`` steps. The state's floats are float32, or float64 under
    ``jax_enable_x64``; the reward is float32.
    """

    unrolled_keys_on_cpu = True

    @property
    def name(self) -> str:
        return "Walker2d"

    @property
    def default_params(self) -> Walker2dParams:
        return Walker2dParams()

    def check_params(self, params: Walker2dParams) -> None:
        errors = param_checks.errors(
            *(param_checks.real(params, name) for name in (
                "forward_reward_weight", "ctrl_cost_weight", "healthy_reward", "healthy_z_min",
                "healthy_z_max", "healthy_angle_min", "healthy_angle_max")),
            param_checks.boolean(params, "terminate_when_unhealthy"),
            param_checks.real(params, "reset_noise_scale", 0),
            param_checks.integer(params, "max_steps_in_episode", 1),
            param_checks.integer(params, "frame_skip", 1))
        if errors:
            raise ValueError("Invalid Walker2d parameters: " + "; ".join(errors))

    def step_env(self, key, state: Walker2dState, action, params: Walker2dParams):
        dtype = state.qpos.dtype

        def transition(qpos, qvel, action, forward_weight, ctrl_weight):
            # MuJoCo's check of the controls: one NaN, and the step runs with all of them 0
            # (its BADCTRL warning); the cost, gymnasium's, stays that of the action (NaN)
            ctrl = jnp.where(jnp.any(jnp.isnan(action)), jnp.zeros_like(action), action)
            qpos, qvel, dx, reset = physics_step(WALKER2D, qpos, qvel, ctrl, params.frame_skip)
            x_velocity = dx / (params.frame_skip * WALKER2D.timestep)
            return (qpos, qvel, x_velocity, forward_weight * x_velocity,
                    ctrl_weight * control_cost(action), reset)

        # Everything with float arithmetic runs batch-invariantly (see ``batching``).
        qpos, qvel, x_velocity, reward_forward, ctrl_cost, reset = \
            batching.batch_invariant(transition, shared_argnums=(3, 4))(
                state.qpos, state.qvel, jnp.asarray(action, dtype),
                jnp.asarray(params.forward_reward_weight, dtype),
                jnp.asarray(params.ctrl_cost_weight, dtype))
        healthy = is_healthy(qpos, params)
        reward_survive = jnp.where(healthy, jnp.asarray(params.healthy_reward, dtype), 0)
        reward = (reward_forward + reward_survive - ctrl_cost).astype(jnp.float32)
        state = Walker2dState(qpos=qpos, qvel=qvel, time=state.time + 1)
        info = {"x_position": qpos[0],
                "z_distance_from_origin": qpos[1] - WALKER2D.qpos0[1],
                "x_velocity": x_velocity, "reward_forward": reward_forward,
                "reward_ctrl": -ctrl_cost, "reward_survive": reward_survive,
                "bad_action": jnp.any(jnp.isnan(jnp.asarray(action))), "bad_state": reset}
        terminated = ~healthy & jnp.asarray(params.terminate_when_unhealthy)
        return observe(state), state, reward, terminated, info

    def reset_env(self, key, params: Walker2dParams):
        dtype = float_dtype()
        key_pos, key_vel = jax.random.split(key)
        scale = jnp.asarray(params.reset_noise_scale, dtype)
        noise = [jax.random.uniform(k, (WALKER2D.nv,), dtype, -1, 1) * scale
                 for k in (key_pos, key_vel)]
        state = Walker2dState(qpos=const(WALKER2D.qpos0, dtype) + noise[0], qvel=noise[1],
                              time=jnp.int32(0))
        return observe(state), state

    def is_terminated(self, state: Walker2dState, params: Walker2dParams) -> jax.Array:
        return ~is_healthy(state.qpos, params) & jnp.asarray(params.terminate_when_unhealthy)

    @property
    def num_actions(self) -> int:
        return len(WALKER2D.actuator_gear)

    def action_space(self, params: Walker2dParams | None = None) -> spaces.Box:
        return spaces.Box(-1.0, 1.0, (self.num_actions,), jnp.float32)

    def observation_space(self, params: Walker2dParams | None = None) -> spaces.Box:
        return spaces.Box(-jnp.inf, jnp.inf, (2 * WALKER2D.nv - 1,), float_dtype())

    def state_space(self, params: Walker2dParams | None = None) -> spaces.Dict:
        p = self.default_params if params is None else params
        return spaces.Dict({
            "qpos": spaces.Box(-jnp.inf, jnp.inf, (WALKER2D.nv,), float_dtype()),
            "qvel": spaces.Box(-jnp.inf, jnp.inf, (WALKER2D.nv,), float_dtype()),
            "time": spaces.Discrete(int(p.max_steps_in_episode)),
        })
