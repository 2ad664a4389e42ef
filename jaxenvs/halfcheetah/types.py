"""HalfCheetah's state and parameters."""

from __future__ import annotations

import jax
from flax import struct


@struct.dataclass
class HalfCheetahParams:
    """HalfCheetah-v5's constructor arguments (gymnasium's defaults) and the episode limit."""

    forward_reward_weight: float = 1.0
    """Weight of the forward velocity of the torso (x after minus x before, over ``dt``)."""
    ctrl_cost_weight: float = 0.1
    """Weight of the control cost ``sum(action^2)`` (of the unclipped action)."""
    reset_noise_scale: float = 0.1
    """Reset: ``qpos = U(-s, s)``, ``qvel = s * N(0, 1)`` around the model's rest state."""
    max_steps_in_episode: int = 1000
    """Truncation limit in env steps (gymnasium's TimeLimit of HalfCheetah-v5)."""
    frame_skip: int = struct.field(pytree_node=False, default=5)
    """Physics steps of the model's timestep (0.01 s) per env step (static: a loop length)."""


@struct.dataclass
class HalfCheetahState:
    """MuJoCo's state of the cheetah, in MuJoCo's order, plus the step counter.

    Floats are float32, or float64 when ``jax_enable_x64`` is on.
    """

    qpos: jax.Array
    """[9]: rootx (m), rootz (m, relative to the torso's rest height 0.7), rooty (rad), then
    the hinges bthigh, bshin, bfoot, fthigh, fshin, ffoot (rad)."""
    qvel: jax.Array
    """[9]: their velocities (m/s, rad/s)."""
    time: jax.Array
    """int32: env steps since the episode began (for truncation)."""
