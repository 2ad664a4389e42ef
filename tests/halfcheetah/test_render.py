"""HalfCheetah rendering: the pure-JAX side view, checked against MuJoCo's geometry, and
MuJoCo's own renderer where OpenGL is available."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxenvs.halfcheetah import HalfCheetah
from jaxenvs.halfcheetah.render import (FLOOR, FLOOR_STRIPE, HORIZON, SKY, render,
                                        to_pixels)
from jaxenvs.halfcheetah.types import HalfCheetahState
from jaxenvs.rendering import rollout_frames

H, W, PPM = 120, 200, 60.0


def _state(qpos) -> HalfCheetahState:
    qpos = jnp.asarray(qpos, jnp.float32)
    return HalfCheetahState(qpos=qpos, qvel=jnp.zeros(9, jnp.float32), time=jnp.int32(0))


_render = jax.jit(lambda qpos, follow: render(
    _state(qpos), None, height=H, width=W, pixels_per_metre=PPM, follow=follow),
    static_argnums=1)

#: The rest pose and two poses within the joint ranges, the torso pitched either way.
POSES = np.array([
    [0.0, 0.0, 0.0, 0, 0, 0, 0, 0, 0],
    [0.7, 0.1, 0.25, 0.9, -0.6, 0.5, -0.8, 0.7, -0.4],
    [-1.3, -0.05, -0.3, -0.4, 0.7, -0.3, 0.6, -1.0, 0.4],
])


def _is_cheetah(frame: np.ndarray) -> np.ndarray:
    """bool[H, W]: the pixels (partly) covered by some capsule: neither sky nor floor."""
    background = np.array([SKY, FLOOR, FLOOR_STRIPE], np.uint8)
    return ~(frame[:, :, None, :] == background[None, None]).all(-1).any(-1)


def test_frame_shape_dtype_and_params_convention():
    """``render(state, params)`` gives 240 x 320 RGB frames and vmaps over states with
    ``in_axes=(0, None)``, as ``jaxenvs.rendering.rollout_frames`` calls it."""
    params = HalfCheetah().default_params
    states = jax.vmap(_state)(jnp.asarray(POSES))
    frames = jax.jit(jax.vmap(render, (0, None)))(states, params)
    assert frames.shape == (len(POSES), 240, 320, 3) and frames.dtype == jnp.uint8
    assert not np.array_equal(frames[0], frames[1])


@pytest.mark.slow
def test_rollout_frames():
    """The env, its reset and auto-reset included, renders through ``rollout_frames``."""
    env = HalfCheetah()
    frames = rollout_frames(env, env.default_params, render, jax.random.key(1), 3)
    assert frames.shape == (3, 240, 320, 3) and frames.dtype == np.uint8


@pytest.mark.parametrize("pose", range(len(POSES)))
def test_capsules_are_where_mujoco_puts_them(pose):
    """Pixels on every capsule's axis (from MuJoCo's ``geom_xpos``/``geom_xmat`` after
    ``mj_forward``, not our kinematics) are capsule-coloured, and pixels more than a radius
    plus 1.5 px from every MuJoCo capsule, above the floor, are sky."""
    mujoco = pytest.importorskip("mujoco")
    from jaxenvs.planar_reference.mujoco_c import load_model

    qpos = POSES[pose]
    m = load_model("HalfCheetah")
    d = mujoco.MjData(m)
    d.qpos[:] = qpos
    mujoco.mj_forward(m, d)
    capsules = [g for g in range(m.ngeom) if m.geom_type[g] == mujoco.mjtGeom.mjGEOM_CAPSULE]
    assert len(capsules) == 8
    centre = d.geom_xpos[capsules][:, [0, 2]]
    axis = d.geom_xmat[capsules].reshape(-1, 3, 3)[:, [0, 2], 2]  # local z axis, (x, z)
    half = m.geom_size[capsules, 1]
    radius = m.geom_size[capsules, 0]

    frame = np.asarray(_render(qpos, True))
    cheetah = _is_cheetah(frame)
    for c, a, h in zip(centre, axis, half):
        for s in np.linspace(-1, 1, 9):
            x, z = c + s * h * a
            col, row = to_pixels(x, z, qpos[0], H, W, PPM)
            assert cheetah[int(row), int(col)], (pose, x, z)

    cols, rows = np.meshgrid(np.arange(W) + 0.5, np.arange(H) + 0.5)
    x = qpos[0] + (cols - W / 2) / PPM
    z = (HORIZON * H - rows) / PPM
    point = np.stack([x, z], -1)[:, :, None, :]
    t = np.clip(((point - centre) * axis).sum(-1), -half, half)
    dist = np.linalg.norm(point - (centre + t[..., None] * axis), axis=-1)
    far = ((dist - radius) * PPM > 1.5).all(-1) & (z > 1.5 / PPM)
    assert far.sum() > H * W / 2
    np.testing.assert_array_equal(frame[far], np.broadcast_to(np.array(SKY, np.uint8),
                                                              frame[far].shape))
    near = ((dist - radius) * PPM < -1.5).any(-1)
    assert cheetah[near].all()


def test_cheetah_moves_with_rootx_unless_followed():
    """With a fixed camera, adding 0.5 m to rootx shifts the cheetah by 0.5 m of pixels; with
    the following camera the cheetah stays put and the floor's stripes shift instead."""
    pose = POSES[1]
    shift = 0.5
    moved = pose + np.eye(9)[0] * shift
    cols = int(shift * PPM)
    fixed, fixed_moved = (np.asarray(_render(q, False), np.int32) for q in (pose, moved))
    assert _is_cheetah(fixed.astype(np.uint8)).sum() > 100
    # Equal up to rounding of the anti-aliased edges (computed at other coordinates).
    above_floor = slice(0, int(HORIZON * H))  # the floor's stripes do not move
    assert np.abs(fixed_moved[above_floor, cols:] - fixed[above_floor, :-cols]).max() <= 1
    assert np.abs(fixed_moved - fixed).max() > 50
    followed, followed_moved = (np.asarray(_render(q, True)) for q in (pose, moved))
    np.testing.assert_array_equal(_is_cheetah(followed), _is_cheetah(followed_moved))
    floor = followed[-1], followed_moved[-1]  # the bottom row: floor only
    np.testing.assert_array_equal(floor[1][:-cols], floor[0][cols:])
    assert not np.array_equal(floor[0], floor[1])


def test_render_mujoco_where_opengl_exists():
    """MuJoCo's own renderer (EGL, in a subprocess so that ``MUJOCO_GL`` is set before MuJoCo
    is imported) returns an RGB frame that changes with the pose; skipped without OpenGL."""
    if importlib.util.find_spec("mujoco") is None:
        pytest.skip("mujoco is not installed")
    code = (
        "import numpy as np\n"
        "from jaxenvs.planar_reference.mujoco_c import render\n"
        f"poses = np.array({POSES.tolist()})\n"
        "a, b = (render(q, 'HalfCheetah', height=60, width=80) for q in poses[:2])\n"
        "assert a.shape == (60, 80, 3) and a.dtype == np.uint8, (a.shape, a.dtype)\n"
        "assert (a != b).any()\n"
        "print('ok')\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env={**os.environ, "MUJOCO_GL": os.environ.get("MUJOCO_GL", "egl")},
                            timeout=120)
    if result.returncode != 0 and any(gl in result.stderr for gl in ("OpenGL", "EGL")):
        pytest.skip(f"MuJoCo has no OpenGL backend here: {result.stderr.splitlines()[-1]}")
    assert result.returncode == 0 and "ok" in result.stdout, result.stderr[-2000:]
