"""Pong frames in pure JAX, laid out as PufferLib 3.0.0's raylib client (``pong.h`` ``render``).

The window is the field plus a margin of ``x_pad = 3 * paddle_width`` on each side, so it is
``height`` rows by ``width + 2 * x_pad`` columns (640 x 620 with the default sizes). The
simulation's y axis grows upward and the screen's rows grow downward, so an object of height
``h`` at ``y`` starts at row ``height - y - h``. Where C draws the ball as a texture we draw a
white square, and where C uses raylib's font we use a built-in 3 x 5 digit font scaled to C's
font size 30.

The image is built by comparing pixel-centre coordinates with rectangles, with no Python
control flow on state values, so ``render`` can be jitted and vmapped over states. The frame's
size must be known when tracing, so ``params.width``, ``params.height`` and
``params.paddle_width`` must be concrete: close over ``params``, or make it static
(``jax.jit(render, static_argnums=1)``; ``PongParams`` of Python numbers are hashable), rather
than passing it as a traced ``jit`` argument; ``vmap`` over states takes ``in_axes=(0, None)``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxenvs.pong.types import PongParams, PongState

BACKGROUND = (6, 24, 24)
LEFT_PADDLE = (255, 0, 0)
RIGHT_PADDLE = (0, 255, 255)
BALL = (255, 255, 255)
SCORE = (0, 187, 187)

#: Score text: C's ``DrawText(..., y=10, fontSize=30)``, centred 50 px either side of the middle.
SCORE_TOP = 10
SCORE_OFFSET_X = 50
#: Each font pixel is a GLYPH_SCALE x GLYPH_SCALE block, so a glyph is 5 * 6 = 30 px tall.
GLYPH_SCALE = 6

# 3 x 5 glyphs of the digits 0-9, rows top to bottom.
_GLYPH_ROWS = (
    "111 101 101 101 111", "010 110 010 010 111", "111 001 111 100 111",
    "111 001 111 001 111", "101 101 111 001 001", "111 100 111 001 111",
    "111 100 111 101 111", "111 001 001 001 001", "111 101 111 101 111",
    "111 101 111 001 111",
)
#: bool[10, 5, 3]: FONT[digit, row, col] is set where the digit's glyph is lit.
FONT = np.array([[[c == "1" for c in row] for row in g.split()] for g in _GLYPH_ROWS])
_POWERS_OF_10 = np.array([10**k for k in range(10)], np.int32)  # every int32 has <= 10 digits


def frame_shape(params: PongParams, scale: int = 1) -> tuple[int, int]:
    """``(rows, cols)`` of the frame ``render(state, params, scale=scale)`` returns.

    Raises ``TypeError`` if the sizes it depends on are traced values.
    """
    try:
        x_pad = 3 * float(params.paddle_width)
        height, width = int(float(params.height)), int(float(params.width) + 2 * x_pad)
    except jax.errors.ConcretizationTypeError as err:
        raise TypeError(
            "render needs concrete params.width, params.height and params.paddle_width (they "
            "set the frame's shape); close over params instead of passing them to jit as an "
            "argument, or vmap with in_axes=None for params"
        ) from err
    return -(-height // scale), -(-width // scale)


def _rect(rows: jax.Array, cols: jax.Array, left, top, width, height) -> jax.Array:
    """bool[rows, cols]: the pixel centres inside the rectangle ``[left, left+width) x
    [top, top+height)`` in screen coordinates."""
    in_cols = (cols >= left) & (cols < left + width)
    in_rows = (rows >= top) & (rows < top + height)
    return in_rows[:, None] & in_cols[None, :]


def _number(rows: jax.Array, cols: jax.Array, value: jax.Array, centre_x: jax.Array,
            top: int) -> jax.Array:
    """bool[rows, cols]: the decimal digits of ``value`` (clipped to >= 0), centred at
    ``centre_x`` with their top at row ``top``.

    Each pixel finds its digit slot and glyph cell by integer division, so the cost does not
    depend on the number of digits (which may be traced).
    """
    value = jnp.maximum(jnp.asarray(value, jnp.int32), 0)
    num_digits = 1 + jnp.sum(value >= _POWERS_OF_10[1:])
    advance = 4 * GLYPH_SCALE  # 3 lit columns and 1 blank
    left = centre_x - (num_digits * advance - GLYPH_SCALE) // 2
    x = cols - left
    y = rows - top
    slot = x // advance
    in_cols = (x >= 0) & (slot < num_digits) & (x % advance < 3 * GLYPH_SCALE)
    in_rows = (y >= 0) & (y < 5 * GLYPH_SCALE)
    power = jnp.asarray(_POWERS_OF_10)[jnp.clip(num_digits - 1 - slot, 0, 9)]
    digit = (value // power) % 10
    glyph_col = jnp.clip((x % advance) // GLYPH_SCALE, 0, 2)
    glyph_row = jnp.clip(y // GLYPH_SCALE, 0, 4)
    lit = jnp.asarray(FONT)[digit[None, :], glyph_row[:, None], glyph_col[None, :]]
    return lit & in_rows[:, None] & in_cols[None, :]


def render(state: PongState, params: PongParams, *, scale: int = 1) -> jax.Array:
    """The frame C's client draws for ``state``: ``uint8[rows, cols, 3]`` RGB.

    ``rows, cols = frame_shape(params, scale)``: 640 x 620 with the default sizes. ``scale``
    (a Python int >= 1) keeps every ``scale``-th pixel in each direction, i.e. it equals
    ``render(state, params)[::scale, ::scale]`` without computing the skipped pixels; use it
    for small GIFs. Drawn in C's order: background, opponent (left, red) paddle, agent
    (right, cyan) paddle, ball, then the opponent's and the agent's scores.
    """
    if isinstance(scale, bool) or not isinstance(scale, int) or scale < 1:
        raise ValueError(f"scale must be an int >= 1, got {scale!r}")
    num_rows, num_cols = frame_shape(params, scale)
    rows = jnp.arange(num_rows, dtype=jnp.int32) * scale
    cols = jnp.arange(num_cols, dtype=jnp.int32) * scale
    row_centres, col_centres = rows + 0.5, cols + 0.5

    f32 = jnp.float32
    width, height = jnp.asarray(params.width, f32), jnp.asarray(params.height, f32)
    paddle_w = jnp.asarray(params.paddle_width, f32)
    paddle_h = jnp.asarray(params.paddle_height, f32)
    ball_w, ball_h = jnp.asarray(params.ball_width, f32), jnp.asarray(params.ball_height, f32)
    x_pad = 3 * paddle_w

    def rect(left, bottom_y, w, h):
        return _rect(row_centres, col_centres, left, height - bottom_y - h, w, h)

    centre_x = jnp.floor(width / 2 + x_pad).astype(jnp.int32)
    layers = (
        (rect(x_pad - paddle_w, state.paddle_yl, paddle_w, paddle_h), LEFT_PADDLE),
        (rect(width + x_pad, state.paddle_yr, paddle_w, paddle_h), RIGHT_PADDLE),
        (rect(x_pad + state.ball_x, state.ball_y, ball_w, ball_h), BALL),
        (_number(rows, cols, state.score_l, centre_x - SCORE_OFFSET_X, SCORE_TOP), SCORE),
        (_number(rows, cols, state.score_r, centre_x + SCORE_OFFSET_X, SCORE_TOP), SCORE),
    )
    image = jnp.broadcast_to(jnp.array(BACKGROUND, jnp.uint8), (num_rows, num_cols, 3))
    for mask, colour in layers:
        image = jnp.where(mask[:, :, None], jnp.array(colour, jnp.uint8), image)
    return image
