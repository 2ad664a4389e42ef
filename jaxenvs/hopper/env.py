"""The Hopper environment: gymnasium's Hopper-v5 env shape (``locomotion.HealthyLocomotion``)
on the planar physics of Hopper's model."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxenvs._src import param_checks
from jaxenvs._src.planar.locomotion import HealthyLocomotion
from jaxenvs.environment import Environment
from jaxenvs.hopper._src.model import HOPPER
from jaxenvs.hopper.types import HopperParams, HopperState


class Hopper(HealthyLocomotion, Environment):
    """gymnasium's Hopper-v5 on a pure-JAX port of MuJoCo's pipeline for its model (RK4,
    contact margins, the capsules' contacts with each other).

    Observation: ``[11]`` = ``qpos[1:]`` and ``qvel`` clipped to [-10, 10]. Action:
    ``Box(-1, 1, (3,))``, the three motor controls (gear 200). Reward: forward velocity, a
    survival reward while healthy (torso height above 0.7 m, angle in (-0.2, 0.2) rad and
    every other ``qpos`` and ``qvel`` entry in (-100, 100) by default) and the control cost;
    termination when unhealthy; truncation after ``max_steps_in_episode`` steps
    (``HealthyLocomotion``). The state's floats are float32, or float64 under
    ``jax_enable_x64``; the reward is float32.
    """

    model = HOPPER
    state_type = HopperState

    @property
    def name(self) -> str:
        return "Hopper"

    @property
    def default_params(self) -> HopperParams:
        return HopperParams()

    def is_healthy(self, qpos: jax.Array, qvel: jax.Array, params: HopperParams) -> jax.Array:
        """gymnasium's: height and angle in range, and ``qpos[2:]`` and ``qvel`` (its
        ``state_vector()[2:]``) strictly inside ``(healthy_state_min, healthy_state_max)``."""
        rest = jnp.concatenate([qpos[2:], qvel])
        in_range = jnp.all((params.healthy_state_min < rest) & (rest < params.healthy_state_max))
        return super().is_healthy(qpos, qvel, params) & in_range

    def param_errors(self, params: HopperParams) -> list[str | None]:
        return [*super().param_errors(params),
                param_checks.real(params, "healthy_state_min"),
                param_checks.real(params, "healthy_state_max")]
