"""Pong's rules: a float32 translation of PufferLib 3.0.0 ``pong.h``, with its quirks.

Everything here is a pure function of (state, action, serve, params); randomness enters only
as the serve value ``serve_vy``, which the environment draws from its key and tests inject
from recorded C runs. The quirks of the C env are reproduced on purpose (see
``jaxenvs/pong/golden/README.md``):

1. ``obs[6:8]`` are ``score // max_score`` in unsigned integer arithmetic, hence always 0.
2. A step that scores a non-final point returns the last observation computed before the
   scoring frame (carried in ``PongState.last_obs``).
3. A final point resets the game inside the step and returns the fresh observation.
4. The reward is assigned, not summed, across the frameskip frames.
5. A point ends the step at once; the remaining frames are not simulated.
6. No truncation (``PongParams.max_steps_in_episode`` defaults to "never").
7. The ball is clipped into the field only in frames where the agent returns it.
8. After an agent return ``vy`` changes by ``3 * paddle_dir`` and becomes +3 when near 0.
9. The opponent aligns its paddle's centre with the ball's bottom edge.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxenvs.pong.types import PongParams, PongState

F32 = jnp.float32
#: float32 0.1, the reward for an agent return (bits 0x3DCCCCCD, as in C).
RETURN_REWARD = F32(0.1)


def _f(x) -> jax.Array:
    return jnp.asarray(x, F32)


def exact_div(num: jax.Array, den: jax.Array) -> jax.Array:
    """IEEE float32 ``num / den``, correctly rounded as C's ``/`` is.

    XLA rewrites ``x / broadcast(y)`` (a scalar divisor, which every parameter is under
    ``vmap``) into ``x * (1 / y)``, which is off by one ulp for values such as 110 / 500.
    Giving the divisor the numerator's shape through ``+ num * 0`` (which XLA may not fold
    for floats) keeps a true element-wise division. The golden tests catch any regression.
    """
    num = jnp.asarray(num, F32)
    return num / (_f(den) + num * F32(0))


def observe(state: PongState, params: PongParams) -> jax.Array:
    """C's ``compute_observations``: 8 float32 values, each one float32 operation as in C."""
    min_y = -_f(params.paddle_height) / 2
    max_y = _f(params.height) - _f(params.paddle_height) / 2
    max_score = jnp.asarray(params.max_score, jnp.int32)
    return jnp.stack([
        exact_div(state.paddle_yl - min_y, max_y - min_y),
        exact_div(state.paddle_yr - min_y, max_y - min_y),
        exact_div(state.ball_x, params.width),
        exact_div(state.ball_y, params.height),
        exact_div(state.ball_vx + _f(params.ball_initial_speed_x),
                  2 * _f(params.ball_initial_speed_x)),
        exact_div(state.ball_vy + _f(params.ball_max_speed_y), 2 * _f(params.ball_max_speed_y)),
        # Quirk 1: unsigned integer division, truncating to 0 for every reachable score.
        (state.score_l // max_score).astype(F32),
        (state.score_r // max_score).astype(F32),
    ]).astype(F32)


def serve_vy_from_bit(bit: jax.Array, params: PongParams) -> jax.Array:
    """C's serve ``(rand() % 2 - 1) * ball_initial_speed_y`` for ``bit = rand() % 2``."""
    return (jnp.asarray(bit, jnp.int32) - 1).astype(F32) * _f(params.ball_initial_speed_y)


def serve(state: PongState, serve_vy: jax.Array, params: PongParams) -> PongState:
    """C's ``reset_round``: paddles centred, ball at (width/5, centre), moving right."""
    centre_paddle = _f(params.height) / 2 - _f(params.paddle_height) / 2
    return state.replace(
        paddle_yl=centre_paddle,
        paddle_yr=centre_paddle,
        ball_x=exact_div(params.width, 5),
        ball_y=_f(params.height) / 2 - _f(params.ball_height) / 2,
        ball_vx=_f(params.ball_initial_speed_x),
        ball_vy=_f(serve_vy),
    )


def reset_state(serve_vy: jax.Array, params: PongParams) -> PongState:
    """C's ``c_reset``: a served round at 0-0 and its observation."""
    zero_f = F32(0)
    state = PongState(
        paddle_yl=zero_f, paddle_yr=zero_f, ball_x=zero_f, ball_y=zero_f,
        ball_vx=zero_f, ball_vy=zero_f,
        score_l=jnp.int32(0), score_r=jnp.int32(0),
        last_obs=jnp.zeros(8, F32), time=jnp.int32(0),
    )
    state = serve(state, serve_vy, params)
    return state.replace(last_obs=observe(state, params))


def paddle_direction(action: jax.Array, continuous: bool) -> jax.Array:
    """The agent paddle's direction in {-1, 0, +1} (discrete) or [-1, 1] (continuous).

    Discrete: 0 stays, 1 moves up (+y), 2 moves down; any other value stays, as in C.
    Continuous: the action itself, clipped to the action space [-1, 1] (C applies it
    unclipped; within the space the two agree); a NaN stays (in C it would make the paddle's
    position NaN for the rest of the game).
    """
    if continuous:
        action = jnp.asarray(action, F32).reshape(())
        return jnp.where(jnp.isnan(action), F32(0), jnp.clip(action, -1.0, 1.0))
    action = jnp.asarray(action)
    return jnp.where(action == 1, F32(1), jnp.where(action == 2, F32(-1), F32(0)))


def _frame(carry, paddle_dir: jax.Array, params: PongParams):
    """One C frame, applied only while no point has been scored in this step.

    ``carry = (state, reward, point, frames)``: ``point`` is +1 once the agent scored, -1
    once the opponent scored, 0 while play goes on; ``frames`` counts completed frames
    (those after which C computed an observation). A scoring frame leaves the physical
    fields as they were (they are re-served anyway), so after the loop they hold the state
    of the last completed frame, from which C's last observation was computed.
    """
    s, reward, point, frames = carry
    live = point == 0
    speed = _f(params.paddle_speed)
    ph = _f(params.paddle_height)
    min_y = -ph / 2
    max_y = _f(params.height) - ph / 2

    yr = s.paddle_yr + speed * paddle_dir
    opp_delta = jnp.clip(s.ball_y - (s.paddle_yl + ph / 2), -speed, speed)
    yl = s.paddle_yl + opp_delta
    yr = jnp.clip(yr, min_y, max_y)
    yl = jnp.clip(yl, min_y, max_y)

    x = s.ball_x + s.ball_vx
    y = s.ball_y + s.ball_vy
    bw, bh = _f(params.ball_width), _f(params.ball_height)
    wall = (y < 0) | (y + bh > _f(params.height))
    vy = jnp.where(wall, -s.ball_vy, s.ball_vy)

    at_left = x < 0
    left_block = (y + bh > yl) & (y < yl + ph)
    left_miss = at_left & ~left_block
    vx = jnp.where(at_left & left_block, -s.ball_vx, s.ball_vx)

    at_right = (x + bw > _f(params.width)) & ~left_miss
    right_block = (y + bh > yr) & (y < yr + ph)
    right_hit = at_right & right_block
    right_miss = at_right & ~right_block
    max_vy = _f(params.ball_max_speed_y)
    hit_vy = jnp.clip(vy + _f(params.ball_speed_y_increment) * paddle_dir, -max_vy, max_vy)
    hit_vy = jnp.where(jnp.abs(hit_vy) < F32(0.01), _f(params.ball_speed_y_increment), hit_vy)
    vx = jnp.where(right_hit, -vx, vx)
    vy = jnp.where(right_hit, hit_vy, vy)
    x = jnp.where(right_hit, jnp.clip(x, 0, _f(params.width) - bw), x)
    y = jnp.where(right_hit, jnp.clip(y, 0, _f(params.height) - bh), y)

    this_point = jnp.where(left_miss, 1, jnp.where(right_miss, -1, 0)).astype(jnp.int32)
    completes = live & (this_point == 0)

    def keep(new, old):
        return jnp.where(completes, new, old)

    s = s.replace(
        paddle_yl=keep(yl, s.paddle_yl), paddle_yr=keep(yr, s.paddle_yr),
        ball_x=keep(x, s.ball_x), ball_y=keep(y, s.ball_y),
        ball_vx=keep(vx, s.ball_vx), ball_vy=keep(vy, s.ball_vy),
    )
    reward = jnp.where(completes & right_hit, RETURN_REWARD, reward)
    point = jnp.where(live, this_point, point)
    return s, reward, point, frames + completes.astype(jnp.int32)


def play(state: PongState, paddle_dir: jax.Array, serve_vy: jax.Array, params: PongParams):
    """Simulate one env step up to (not including) C's full reset after a final point.

    Returns ``(obs, state, reward, terminated)``. On a non-final point the round is re-served
    with ``serve_vy``. On a final point the returned state holds the final score (one side at
    ``max_score``) with the round re-served, and ``obs`` is the stale observation of quirk 2;
    the caller resets the game (``step_deterministic`` does it with the same serve, the gymnax
    env through its auto-reset).
    """
    carry = (state, F32(0), jnp.int32(0), jnp.int32(0))
    # A rolled loop: unrolling the frames makes XLA's CPU backend generate pathologically slow
    # code for small batches, and gains nothing at large ones (``benchmarks/README.md``, "What
    # bounds Pong").
    s, reward, point, frames = jax.lax.fori_loop(
        0, params.frameskip, lambda _, c: _frame(c, paddle_dir, params), carry)

    obs = jnp.where(frames > 0, observe(s, params), state.last_obs)
    scored = point != 0
    s = s.replace(
        score_r=s.score_r + (point == 1).astype(jnp.int32),
        score_l=s.score_l + (point == -1).astype(jnp.int32),
        time=s.time + 1,
    )
    s = jax.tree.map(lambda a, b: jnp.where(scored, a, b), serve(s, serve_vy, params), s)
    s = s.replace(last_obs=obs)
    reward = jnp.where(scored, point.astype(F32), reward)
    max_score = jnp.asarray(params.max_score, jnp.int32)
    terminated = (s.score_l == max_score) | (s.score_r == max_score)
    return obs, s, reward, terminated


def step_deterministic(
    state: PongState, action: jax.Array, serve_vy: jax.Array, params: PongParams,
    continuous: bool = False,
):
    """One C ``c_step``, with the serve value given: ``(obs, state, reward, terminated)``.

    ``serve_vy`` is the ball's vertical speed for a serve in this step (C's
    ``(rand() % 2 - 1) * ball_initial_speed_y``: -1.0 or 0.0 by default); it is used only if a
    point is scored. When the game ends, the state is the fresh 0-0 game served with it and
    ``obs`` its observation, exactly as C returns them. This is the function the golden
    tests inject recorded states and serves into; ``Pong.step`` draws the serve from its key.
    """
    obs, s, reward, terminated = play(
        state, paddle_direction(action, continuous), serve_vy, params)
    fresh = reset_state(serve_vy, params)
    s = jax.tree.map(lambda a, b: jnp.where(terminated, a, b), fresh, s)
    obs = jnp.where(terminated, fresh.last_obs, obs)
    return obs, s, reward, terminated
