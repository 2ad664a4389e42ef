"""Hopper's state and parameters."""

from __future__ import annotations

import jax
from flax import struct


@struct.dataclass
class HopperParams:
    """Hopper-v5's constructor arguments (gymnasium's defaults) and the episode limit."""

    forward_reward_weight: float = 1.0
    """Weight of the torso's forward velocity (x after minus x before, over ``dt``)."""
    ctrl_cost_weight: float = 1e-3
    """Weight of the control cost ``sum(action^2)`` (of the unclipped action)."""
    healthy_reward: float = 1.0
    """Reward for each step that ends healthy."""
    terminate_when_unhealthy: bool = True
    """End the episode at the first unhealthy state."""
    healthy_state_min: float = -100.0
    """Healthy: every entry of ``qpos[2:]`` and ``qvel`` strictly above this..."""
    healthy_state_max: float = 100.0
    """...and strictly below this."""
    healthy_z_min: float = 0.7
    """Healthy: the torso's height ``qpos[1]`` strictly above this (m)..."""
    healthy_z_max: float = float("inf")
    """...and strictly below this (no bound by default)."""
    healthy_angle_min: float = -0.2
    """Healthy: the torso's angle ``qpos[2]`` strictly above this (rad)..."""
    healthy_angle_max: float = 0.2
    """...and strictly below this."""
    reset_noise_scale: float = 5e-3
    """Reset: ``qpos = qpos0 + U(-s, s)``, ``qvel = U(-s, s)``."""
    max_steps_in_episode: int = 1000
    """Truncation limit in env steps (gymnasium's TimeLimit of Hopper-v5)."""
    frame_skip: int = struct.field(pytree_node=False, default=4)
    """Physics steps of the model's timestep (0.002 s) per env step (static: a loop length)."""


@struct.dataclass
class HopperState:
    """MuJoCo's state of the hopper, in MuJoCo's order, plus the step counter.

    Floats are float32, or float64 when ``jax_enable_x64`` is on.
    """

    qpos: jax.Array
    """[6]: rootx (m), rootz (m, the torso's height), rooty (rad), then the hinges thigh, leg
    and foot (rad)."""
    qvel: jax.Array
    """[6]: their velocities (m/s, rad/s)."""
    time: jax.Array
    """int32: env steps since the episode began (for truncation)."""
