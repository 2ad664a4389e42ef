"""The Pong environment: gymnax wiring around the pure rules in ``jaxenvs.pong._src.rules``."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from gymnax.environments import spaces

from jaxenvs._src import param_checks
from jaxenvs.environment import Environment
from jaxenvs.pong._src import rules
from jaxenvs.pong.types import PongParams, PongState


def _fmix32(h: jax.Array) -> jax.Array:
    """MurmurHash3's 32-bit finalizer: a bijective mixer in which every input bit affects
    every output bit."""
    h = h ^ (h >> 16)
    h = h * jnp.uint32(0x85EBCA6B)
    h = h ^ (h >> 13)
    h = h * jnp.uint32(0xC2B2AE35)
    return h ^ (h >> 16)


def draw_serve(key: jax.Array, params: PongParams) -> jax.Array:
    """A serve's vertical speed, uniform over C's two values ``{-1, 0} * ball_initial_speed_y``.

    The bit comes from a hash of the key's words rather than ``jax.random.bits``: a key the
    env receives is already a threefry output (gymnax splits it in ``step``), and on CPU a
    threefry draw is a separate loop kernel that XLA cannot fuse, a large part of a short step
    (``benchmarks/README.md``, "What bounds Pong"), while the hash fuses with the game's
    arithmetic.
    """
    h = jnp.uint32(0x9E3779B9)
    for word in jax.random.key_data(key).reshape(-1):
        h = _fmix32(h ^ word.astype(jnp.uint32))
    return rules.serve_vy_from_bit(h & 1, params)


class Pong(Environment):
    """PufferLib 3.0.0 Ocean Pong, translated exactly from its C source.

    The agent is the right paddle against a scripted opponent; the game ends when a side
    reaches ``max_score`` points. Reward: +1/-1 per point, 0.1 for returning the ball.
    Observation: float32[8] = ``[(paddle_yl + 35)/640, (paddle_yr + 35)/640, ball_x/500,
    ball_y/640, (ball_vx + 10)/20, (ball_vy + 13)/26, 0, 0]`` with the default sizes (the last
    two are C's always-zero score entries). Actions (``Discrete(3)``): 0 stay, 1 up, 2 down; any
    other integer stays, as in C. With ``continuous=True`` (id ``"PongContinuous"``) the action
    is a float32[1] paddle direction in [-1, 1], clipped to that range; a NaN stays, and
    ``info["bad_action"]`` says so.

    ``step`` draws the serve of a non-final point from its key and runs
    ``rules.play``; after a final point gymnax's auto-reset serves the new game from the reset
    key. That is C's ``c_step`` with a different random source for the serve (see
    ``rules.step_deterministic``, which takes the serve as an argument). On a final point
    ``info["final_observation"]`` is the stale observation C holds at that moment (quirk 2).
    """

    def __init__(self, continuous: bool = False):
        super().__init__()
        self.continuous = continuous

    @property
    def name(self) -> str:
        return "PongContinuous" if self.continuous else "Pong"

    @property
    def default_params(self) -> PongParams:
        return PongParams()

    def check_params(self, params: PongParams) -> None:
        positive = ("width", "height", "paddle_height", "ball_width", "ball_height",
                    "paddle_speed", "ball_initial_speed_x", "ball_max_speed_y")
        errors = param_checks.errors(
            *(param_checks.real(params, name, 0, above=True) for name in positive),
            *(param_checks.real(params, name, 0) for name in (
                "paddle_width", "ball_initial_speed_y", "ball_speed_y_increment")),
            param_checks.integer(params, "frameskip", 1),
            param_checks.integer(params, "max_score", 1),
            param_checks.integer(params, "max_steps_in_episode", 1))
        if not errors and (float(params.ball_width) >= float(params.width)
                           or float(params.ball_height) >= float(params.height)):
            errors.append("the ball must be smaller than the field")
        if errors:
            raise ValueError("Invalid Pong parameters: " + "; ".join(errors))

    def step_env(self, key, state: PongState, action, params: PongParams):
        direction = rules.paddle_direction(action, self.continuous)
        obs, state, reward, terminated = rules.play(
            state, direction, draw_serve(key, params), params)
        info = {"bad_action": jnp.any(jnp.isnan(action))} if self.continuous else {}
        return obs, state, reward, terminated, info

    def reset_env(self, key, params: PongParams):
        state = rules.reset_state(draw_serve(key, params), params)
        return state.last_obs, state

    def is_terminated(self, state: PongState, params: PongParams) -> jax.Array:
        max_score = jnp.asarray(params.max_score, jnp.int32)
        return (state.score_l == max_score) | (state.score_r == max_score)

    @property
    def num_actions(self) -> int:
        return 1 if self.continuous else 3

    def action_space(self, params: PongParams | None = None):
        if self.continuous:
            return spaces.Box(-1.0, 1.0, (1,), jnp.float32)
        return spaces.Discrete(3)

    def observation_space(self, params: PongParams | None = None) -> spaces.Box:
        """The exact range of what the env emits.

        C declares Box(0, 1), but the ball's entries leave it slightly (the ball is clipped
        only at the right edge, and the wall test lets it overshoot for one frame), so the
        declared bounds here are the true ones: ``x`` in ``[-vx, width - ball_w] / width`` and
        ``y`` in ``[-max_vy, height - ball_h + max_vy] / height``.
        """
        p = self.default_params if params is None else params
        low = jnp.array([0, 0, -p.ball_initial_speed_x / p.width,
                         -p.ball_max_speed_y / p.height, 0, 0, 0, 0], jnp.float32)
        high = jnp.array([1, 1, (p.width - p.ball_width) / p.width,
                          (p.height - p.ball_height + p.ball_max_speed_y) / p.height,
                          1, 1, 1, 1], jnp.float32)
        return spaces.Box(low, high, (8,), jnp.float32)

    def state_space(self, params: PongParams | None = None) -> spaces.Dict:
        p = self.default_params if params is None else params
        f_big = jnp.finfo(jnp.float32).max
        return spaces.Dict({
            "paddle_yl": spaces.Box(-p.paddle_height / 2, p.height - p.paddle_height / 2, ()),
            "paddle_yr": spaces.Box(-p.paddle_height / 2, p.height - p.paddle_height / 2, ()),
            "ball_x": spaces.Box(-p.ball_initial_speed_x, p.width - p.ball_width, ()),
            "ball_y": spaces.Box(-p.ball_max_speed_y,
                                 p.height - p.ball_height + p.ball_max_speed_y, ()),
            "ball_vx": spaces.Box(-p.ball_initial_speed_x, p.ball_initial_speed_x, ()),
            "ball_vy": spaces.Box(-p.ball_max_speed_y, p.ball_max_speed_y, ()),
            "score_l": spaces.Discrete(int(p.max_score)),
            "score_r": spaces.Discrete(int(p.max_score)),
            "last_obs": spaces.Box(-f_big, f_big, (8,)),
            "time": spaces.Discrete(int(p.max_steps_in_episode)),
        })
