"""Pong's state and parameters, field for field as PufferLib 3.0.0's C struct holds them.

The state's physical fields carry the names of the C struct (and of the golden files'
``pre_*``/``post_*`` arrays), so a recorded C state can be injected directly.
"""

from __future__ import annotations

import jax
from flax import struct

#: Largest int32: the default episode length limit, i.e. no truncation (as in PufferLib).
NO_TIME_LIMIT = 2**31 - 1


@struct.dataclass
class PongParams:
    """Pong's parameters. Defaults are PufferLib 3.0.0's, with the training config's frameskip 8.

    All lengths are in pixels of the 500 x 640 field (x grows to the right, y grows upward;
    the agent's paddle is on the right). Float fields are float32 in the simulation, as in C.
    """

    width: float = 500.0
    """Field width (x extent)."""
    height: float = 640.0
    """Field height (y extent)."""
    paddle_width: float = 20.0
    """Paddle width. Unused by the dynamics (C never reads it); kept for rendering."""
    paddle_height: float = 70.0
    """Paddle height; a paddle's bottom edge ranges over [-h/2, height - h/2]."""
    ball_width: float = 32.0
    """Ball width."""
    ball_height: float = 32.0
    """Ball height."""
    paddle_speed: float = 8.0
    """Paddle movement per frame, for the agent and the opponent's maximum."""
    ball_initial_speed_x: float = 10.0
    """Horizontal ball speed; it never changes in magnitude."""
    ball_initial_speed_y: float = 1.0
    """Serve vertical speed scale: a serve draws vy in {-1, 0} times this."""
    ball_speed_y_increment: float = 3.0
    """Change of vy when the agent returns the ball with a moving paddle."""
    ball_max_speed_y: float = 13.0
    """Bound on |vy| after an agent return."""
    max_score: int = 21
    """Points that end a game (int32)."""
    max_steps_in_episode: int = NO_TIME_LIMIT
    """Truncation limit in env steps. PufferLib has none; the default never truncates."""
    frameskip: int = struct.field(pytree_node=False, default=8)
    """Frames simulated per env step (static: a compile-time loop length)."""


@struct.dataclass
class PongState:
    """One Pong game, exactly the C env's internal state plus what the quirks need.

    Float fields are float32 and always integer-valued with the default parameters.
    """

    paddle_yl: jax.Array
    """Opponent (left) paddle's bottom edge y, float32 in [-h/2, height - h/2]."""
    paddle_yr: jax.Array
    """Agent (right) paddle's bottom edge y, float32 in [-h/2, height - h/2]."""
    ball_x: jax.Array
    """Ball's left edge x, float32; may be slightly negative (C clips only at the right)."""
    ball_y: jax.Array
    """Ball's bottom edge y, float32; may leave [0, height - ball_h] by < max vy for a frame."""
    ball_vx: jax.Array
    """Ball x velocity per frame, float32, +-ball_initial_speed_x."""
    ball_vy: jax.Array
    """Ball y velocity per frame, float32, in [-ball_max_speed_y, ball_max_speed_y]."""
    score_l: jax.Array
    """Opponent's points in this game, int32 in [0, max_score)."""
    score_r: jax.Array
    """Agent's points in this game, int32 in [0, max_score)."""
    last_obs: jax.Array
    """float32[8]: the last observation C computed. C returns it unchanged on a step that
    scores a non-final point (quirk 2), so it is part of the state."""
    time: jax.Array
    """int32: env steps since the episode began (for gymnax truncation)."""

