"""The Walker2d environment: gymnasium's Walker2d-v5 env shape
(``locomotion.HealthyLocomotion``) on the planar physics of Walker2d's model."""

from __future__ import annotations

from jaxenvs._src.planar.locomotion import HealthyLocomotion
from jaxenvs.environment import Environment
from jaxenvs.walker2d._src.model import WALKER2D
from jaxenvs.walker2d.types import Walker2dParams, Walker2dState


class Walker2d(HealthyLocomotion, Environment):
    """gymnasium's Walker2d-v5 on a pure-JAX port of MuJoCo's pipeline for its model (RK4).

    Observation: ``[17]`` = ``qpos[1:]`` and ``qvel`` clipped to [-10, 10]. Action:
    ``Box(-1, 1, (6,))``, the six motor controls (gear 100). Reward: forward velocity, a
    survival reward while healthy (torso height in (0.8, 2) m and angle in (-1, 1) rad by
    default) and the control cost; termination when unhealthy; truncation after
    ``max_steps_in_episode`` steps (``HealthyLocomotion``). The state's floats are float32,
    or float64 under ``jax_enable_x64``; the reward is float32.
    """

    model = WALKER2D
    state_type = Walker2dState

    @property
    def name(self) -> str:
        return "Walker2d"

    @property
    def default_params(self) -> Walker2dParams:
        return Walker2dParams()
