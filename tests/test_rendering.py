"""The generic rollout-to-frames and GIF helpers."""

from __future__ import annotations

import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from PIL import Image

import jaxenvs
from jaxenvs.pong.render import RIGHT_PADDLE, render
from jaxenvs.rendering import rollout_frames, save_gif


def first_row_of(frames: np.ndarray, colour) -> list[int]:
    """For each frame, the first row holding a pixel of ``colour``."""
    hits = np.all(frames == np.array(colour, np.uint8), axis=-1).any(axis=-1)
    return [int(np.argmax(rows)) for rows in hits]


@pytest.mark.parametrize("action, rows", [(1, [285, 277, 269]), (2, [285, 293, 301])])
def test_rollout_frames_follows_the_policy(action, rows):
    env, params = jaxenvs.make("Pong", frameskip=1)
    frames = rollout_frames(env, params, render, jax.random.key(0), 3,
                            policy=lambda key, obs: jnp.int32(action))
    assert isinstance(frames, np.ndarray)
    assert frames.shape == (3, 640, 620, 3) and frames.dtype == np.uint8
    # Frame 0 is the reset state (agent paddle's top at row 640 - 285 - 70 = 285); each
    # step moves the paddle 8 px up (action 1) or down (action 2).
    assert first_row_of(frames, RIGHT_PADDLE) == rows


def test_rollout_frames_random_actions_are_reproducible():
    env, params = jaxenvs.make("PongContinuous", frameskip=1)
    frames = rollout_frames(env, params, render, jax.random.key(1), 4)
    again = rollout_frames(env, params, render, jax.random.key(1), 4)
    np.testing.assert_array_equal(frames, again)
    assert frames.shape == (4, 640, 620, 3)


def test_rollout_frames_works_for_any_gymnax_env():
    """A non-Pong env: the 'frame' is one pixel holding the step counter."""
    import gymnax

    env, params = gymnax.make("CartPole-v1")

    def counter(state, params):
        return jnp.full((1, 1, 3), state.time, jnp.uint8)

    frames = rollout_frames(env, params, counter, jax.random.key(0), 5,
                            policy=lambda key, obs: jnp.int32(0))
    assert frames[:, 0, 0, 0].tolist() == [0, 1, 2, 3, 4]


def test_rollout_frames_rejects_bad_num_steps():
    env, params = jaxenvs.make("Pong")
    for num_steps in (0, -1, 2.0):
        with pytest.raises(ValueError, match="num_steps"):
            rollout_frames(env, params, render, jax.random.key(0), num_steps)


def test_save_gif_round_trip(tmp_path):
    colours = np.array([(255, 0, 0), (0, 255, 0), (0, 0, 255)], np.uint8)
    frames = np.broadcast_to(colours[:, None, None, :], (3, 6, 8, 3)).copy()
    frames[:, 0, 0] = (6, 24, 24)
    path = tmp_path / "clip.gif"
    save_gif(frames, path, fps=20)
    with Image.open(path) as gif:
        assert gif.n_frames == 3
        assert gif.size == (8, 6)
        assert gif.info["duration"] == 50
        for t in range(3):
            gif.seek(t)
            np.testing.assert_array_equal(np.asarray(gif.convert("RGB")), frames[t])


@pytest.mark.parametrize("frames, message", [
    (np.zeros((2, 4, 4, 3), np.float32), "uint8"),
    (np.zeros((4, 4, 3), np.uint8), r"\[T, H, W, 3\]"),
    (np.zeros((2, 4, 4, 4), np.uint8), r"\[T, H, W, 3\]"),
    (np.zeros((0, 4, 4, 3), np.uint8), "non-empty"),
])
def test_save_gif_rejects_bad_frames(tmp_path, frames, message):
    with pytest.raises(ValueError, match=message):
        save_gif(frames, tmp_path / "bad.gif")
    assert not (tmp_path / "bad.gif").exists()


def test_save_gif_rejects_bad_fps(tmp_path):
    with pytest.raises(ValueError, match="fps"):
        save_gif(np.zeros((1, 2, 2, 3), np.uint8), tmp_path / "bad.gif", fps=0)


def test_save_gif_without_pillow_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL", None)  # makes `import PIL` raise ImportError
    with pytest.raises(ImportError, match=r'pip install "jaxenvs\[render\]"'):
        save_gif(np.zeros((1, 2, 2, 3), np.uint8), tmp_path / "clip.gif")
