"""The HalfCheetah environment: gymnax wiring around the planar physics
(``jaxenvs._src.planar``) of HalfCheetah's model."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from gymnax.environments import spaces

from jaxenvs._src import param_checks
from jaxenvs.environment import Environment
from jaxenvs._src.planar import batching
from jaxenvs._src.planar.locomotion import control_cost, float_dtype, physics_step
from jaxenvs.halfcheetah._src.model import HALF_CHEETAH
from jaxenvs.halfcheetah.types import HalfCheetahParams, HalfCheetahState


def observe(state: HalfCheetahState) -> jax.Array:
    """HalfCheetah-v5's observation (17): ``qpos[1:]`` then ``qvel``."""
    return jnp.concatenate([state.qpos[1:], state.qvel])


class HalfCheetah(Environment):
    """gymnasium's HalfCheetah-v5 on a pure-JAX port of MuJoCo's pipeline for its model.

    Observation: ``[17]`` = ``qpos[1:]`` and ``qvel``. Action: ``Box(-1, 1, (6,))``, the six
    motor controls (gears 120, 90, 60, 120, 60, 30). Reward: ``forward_reward_weight * dx / dt
    - ctrl_cost_weight * sum(action^2)`` with ``dt = frame_skip * 0.01``; ``info`` carries
    ``x_position``, ``x_velocity``, ``reward_forward`` and ``reward_ctrl`` as gymnasium does,
    and ``bad_action``: the action held a NaN, so the step ran with every control 0 as MuJoCo
    runs it (its BADCTRL warning), its reward NaN as gymnasium's (the state stays finite). An
    infinite control is clamped to its range, as MuJoCo does (no warning; the reward is then
    -inf, as gymnasium's). ``bad_state``: the simulation went unstable (a NaN, an infinity or
    a value beyond 1e10 in a state given to ``step``, or in an acceleration), and MuJoCo's
    checks restarted it from rest at ``qpos0`` within the step
    (``locomotion.physics_step``).
    No termination; truncation after ``max_steps_in_episode`` steps. The state's floats are
    float32, or float64 under ``jax_enable_x64``; the reward is float32.
    """

    model = HALF_CHEETAH
    state_type = HalfCheetahState
    unrolled_keys_on_cpu = True

    @property
    def name(self) -> str:
        return "HalfCheetah"

    @property
    def default_params(self) -> HalfCheetahParams:
        return HalfCheetahParams()

    def check_params(self, params: HalfCheetahParams) -> None:
        errors = param_checks.errors(
            param_checks.real(params, "forward_reward_weight"),
            param_checks.real(params, "ctrl_cost_weight"),
            param_checks.real(params, "reset_noise_scale", 0),
            param_checks.integer(params, "max_steps_in_episode", 1),
            param_checks.integer(params, "frame_skip", 1))
        if errors:
            raise ValueError("Invalid HalfCheetah parameters: " + "; ".join(errors))

    def step_env(self, key, state: HalfCheetahState, action, params: HalfCheetahParams):
        dtype = state.qpos.dtype

        def transition(qpos, qvel, action, forward_weight, ctrl_weight):
            # MuJoCo's check of the controls: one NaN, and the step runs with all of them 0
            # (its BADCTRL warning); the cost, gymnasium's, stays that of the action (NaN)
            ctrl = jnp.where(jnp.any(jnp.isnan(action)), jnp.zeros_like(action), action)
            qpos, qvel, dx, reset = physics_step(HALF_CHEETAH, qpos, qvel, ctrl, params.frame_skip)
            x_velocity = dx / (params.frame_skip * HALF_CHEETAH.timestep)
            reward_forward = forward_weight * x_velocity
            ctrl_cost = ctrl_weight * control_cost(action)
            reward = (reward_forward - ctrl_cost).astype(jnp.float32)
            return qpos, qvel, x_velocity, reward_forward, ctrl_cost, reward, reset

        # Everything with float arithmetic runs batch-invariantly (see ``batching``).
        qpos, qvel, x_velocity, reward_forward, ctrl_cost, reward, reset = \
            batching.batch_invariant(transition, shared_argnums=(3, 4))(
                state.qpos, state.qvel, jnp.asarray(action, dtype),
                jnp.asarray(params.forward_reward_weight, dtype),
                jnp.asarray(params.ctrl_cost_weight, dtype))
        state = HalfCheetahState(qpos=qpos, qvel=qvel, time=state.time + 1)
        info = {"x_position": qpos[0], "x_velocity": x_velocity,
                "reward_forward": reward_forward, "reward_ctrl": -ctrl_cost,
                "bad_action": jnp.any(jnp.isnan(jnp.asarray(action))), "bad_state": reset}
        return observe(state), state, reward, jnp.bool_(False), info

    def reset_env(self, key, params: HalfCheetahParams):
        dtype = float_dtype()
        key_pos, key_vel = jax.random.split(key)
        scale = jnp.asarray(params.reset_noise_scale, dtype)
        qpos = jax.random.uniform(key_pos, (HALF_CHEETAH.nv,), dtype, -1, 1) * scale
        qvel = scale * jax.random.normal(key_vel, (HALF_CHEETAH.nv,), dtype)
        state = HalfCheetahState(qpos=qpos, qvel=qvel, time=jnp.int32(0))
        return observe(state), state

    def is_terminated(self, state: HalfCheetahState, params: HalfCheetahParams) -> jax.Array:
        return jnp.bool_(False)

    @property
    def num_actions(self) -> int:
        return len(HALF_CHEETAH.actuator_gear)

    def action_space(self, params: HalfCheetahParams | None = None) -> spaces.Box:
        return spaces.Box(-1.0, 1.0, (self.num_actions,), jnp.float32)

    def observation_space(self, params: HalfCheetahParams | None = None) -> spaces.Box:
        return spaces.Box(-jnp.inf, jnp.inf, (2 * HALF_CHEETAH.nv - 1,), float_dtype())

    def state_space(self, params: HalfCheetahParams | None = None) -> spaces.Dict:
        p = self.default_params if params is None else params
        return spaces.Dict({
            "qpos": spaces.Box(-jnp.inf, jnp.inf, (HALF_CHEETAH.nv,), float_dtype()),
            "qvel": spaces.Box(-jnp.inf, jnp.inf, (HALF_CHEETAH.nv,), float_dtype()),
            "time": spaces.Discrete(int(p.max_steps_in_episode)),
        })
