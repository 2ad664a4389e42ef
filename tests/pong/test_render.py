"""Pong frames: layout as PufferLib's C client, pixel for pixel on a hand-built state."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxenvs.pong import PongParams, PongState
from jaxenvs.pong.render import (BACKGROUND, BALL, LEFT_PADDLE, RIGHT_PADDLE, SCORE, frame_shape,
                                 render)

PARAMS = PongParams()
# One compilation per (params, scale), shared by the tests.
render_jit = jax.jit(render, static_argnums=1, static_argnames="scale")


def make_state(paddle_yl=100.0, paddle_yr=300.0, ball_x=200.0, ball_y=400.0,
               score_l=3, score_r=15) -> PongState:
    f32 = jnp.float32
    return PongState(
        paddle_yl=f32(paddle_yl), paddle_yr=f32(paddle_yr), ball_x=f32(ball_x),
        ball_y=f32(ball_y), ball_vx=f32(10), ball_vy=f32(-1),
        score_l=jnp.int32(score_l), score_r=jnp.int32(score_r),
        last_obs=jnp.zeros(8, f32), time=jnp.int32(0),
    )


def pixels_of(frame: np.ndarray, colour) -> tuple[np.ndarray, np.ndarray]:
    """Rows and columns of the pixels of ``colour``."""
    return np.nonzero(np.all(frame == np.array(colour, np.uint8), axis=-1))


def bbox(frame: np.ndarray, colour) -> tuple[int, int, int, int]:
    """``(first row, last row, first col, last col)`` of the pixels of ``colour``."""
    rows, cols = pixels_of(frame, colour)
    return rows.min(), rows.max(), cols.min(), cols.max()


@pytest.fixture(scope="module")
def frame() -> np.ndarray:
    return np.asarray(render_jit(make_state(), PARAMS))


def test_shape_and_dtype(frame):
    assert frame.shape == (640, 620, 3)  # height x (width + 2 * 3 * paddle_width)
    assert frame.dtype == np.uint8
    assert frame_shape(PARAMS) == (640, 620)
    assert frame_shape(PARAMS.replace(width=300.0, height=200.0, paddle_width=10.0)) == (200, 360)


def test_objects_at_c_positions(frame):
    # Left paddle: x = x_pad - paddle_w = 40, row = 640 - 100 - 70 = 470, 20 x 70.
    assert bbox(frame, LEFT_PADDLE) == (470, 539, 40, 59)
    assert len(pixels_of(frame, LEFT_PADDLE)[0]) == 20 * 70
    # Right paddle: x = width + x_pad = 560, row = 640 - 300 - 70 = 270.
    assert bbox(frame, RIGHT_PADDLE) == (270, 339, 560, 579)
    assert len(pixels_of(frame, RIGHT_PADDLE)[0]) == 20 * 70
    # Ball: x = x_pad + 200 = 260, row = 640 - 400 - 32 = 208, 32 x 32.
    assert bbox(frame, BALL) == (208, 239, 260, 291)
    assert len(pixels_of(frame, BALL)[0]) == 32 * 32
    # Everything else is background, e.g. the field's centre and the corners.
    for row, col in ((320, 310), (0, 0), (639, 619), (469, 40), (270, 580)):
        assert tuple(frame[row, col]) == BACKGROUND


def test_scores_left_3_right_15(frame):
    rows, cols = pixels_of(frame, SCORE)
    left, right = cols < 310, cols >= 310
    # "3" is 3 x 5 cells of 6 px centred at x = 310 - 50; "15" is two glyphs 6 px apart
    # centred at x = 310 + 50; both start at row 10 and are 30 px tall.
    assert (rows[left].min(), rows[left].max(), cols[left].min(), cols[left].max()) == \
        (10, 39, 251, 268)
    assert (rows[right].min(), rows[right].max(), cols[right].min(), cols[right].max()) == \
        (10, 39, 339, 380)
    # Lit cells: "3" has 11, "1" has 8, "5" has 11; each cell is 6 x 6 px.
    assert left.sum() == 11 * 36
    assert right.sum() == (8 + 11) * 36


def test_y_axis_is_flipped():
    high = np.asarray(render_jit(make_state(ball_y=600.0), PARAMS))
    low = np.asarray(render_jit(make_state(ball_y=0.0), PARAMS))
    assert bbox(high, BALL)[:2] == (8, 39)  # 640 - 600 - 32 = 8: near the top
    assert bbox(low, BALL)[:2] == (608, 639)  # y = 0: the bottom rows


def test_jit_and_vmap_agree():
    states = [make_state(), make_state(paddle_yl=-35.0, ball_x=-5.0, ball_y=620.0,
                                       score_l=0, score_r=20)]
    batch = jax.tree.map(lambda *leaves: jnp.stack(leaves), *states)
    frames = np.asarray(jax.jit(jax.vmap(lambda s: render(s, PARAMS)))(batch))
    assert frames.shape == (2, 640, 620, 3)
    for state, batched in zip(states, frames):
        np.testing.assert_array_equal(batched, np.asarray(render_jit(state, PARAMS)))
    assert not np.array_equal(frames[0], frames[1])


def test_scale_strides(frame):
    small = np.asarray(render_jit(make_state(), PARAMS, scale=2))
    assert small.shape == (320, 310, 3) == (*frame_shape(PARAMS, 2), 3)
    np.testing.assert_array_equal(small, frame[::2, ::2])


def test_traced_sizes_and_bad_scale_are_rejected():
    with pytest.raises(TypeError, match="concrete params"):
        jax.jit(render)(make_state(), PARAMS)
    for scale in (0, 1.5, True):
        with pytest.raises(ValueError, match="scale"):
            render(make_state(), PARAMS, scale=scale)
