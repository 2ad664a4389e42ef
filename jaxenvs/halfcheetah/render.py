"""HalfCheetah frames: a pure-JAX side view.

``render(state, params)`` draws the model's 8 capsules at the body poses of its
``qpos`` (``kinematics.frames``), seen from the side (-y, looking along +y, x to the right and
z up, as MuJoCo's ``track`` camera in gymnasium's XML) in an orthographic projection: a pixel
is ``pixels_per_metre`` wide and the image is centred on the torso's x, so the camera follows
the cheetah; the floor (z < 0) is drawn with stripes every ``STRIPE_METRES`` so that running is
visible. Capsule colours are those of gymnasium's XML (shins and feet pink). Each pixel's
coverage by a capsule is computed from its distance to the capsule's segment, with one pixel
of anti-aliasing, and there is no Python control flow on state values, so ``render`` can be
jitted and vmapped over states (``jaxenvs.rendering.rollout_frames``).

MuJoCo's own picture of a pose is ``jaxenvs.planar_reference.mujoco_c.render``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxenvs._src.planar import kinematics
from jaxenvs._src.planar.model import const
from jaxenvs.halfcheetah._src.model import HALF_CHEETAH
from jaxenvs.halfcheetah.types import HalfCheetahParams, HalfCheetahState

SKY = (214, 229, 242)
FLOOR = (120, 140, 120)
FLOOR_STRIPE = (95, 112, 95)
#: Capsule colours from gymnasium's ``half_cheetah.xml`` (geom rgba): the default
#: (0.8, 0.6, 0.4) and (0.9, 0.6, 0.6) for the shins and feet.
BODY = (204, 153, 102)
LIMB = (230, 153, 153)
GEOM_COLOUR = np.array([BODY, BODY, BODY, LIMB, LIMB, BODY, LIMB, LIMB], np.uint8)
#: Width of the floor's alternating stripes (m).
STRIPE_METRES = 0.5
#: Fraction of the frame's height above the floor line.
HORIZON = 0.8


def capsule_segments(qpos: jax.Array) -> tuple[jax.Array, jax.Array]:
    """The capsules' segment end points in world (x, z): two ``[8, 2]`` arrays (``+axis`` end,
    ``-axis`` end); each capsule is the set of points within its radius of its segment."""
    m = HALF_CHEETAH
    f = kinematics.frames(m, qpos)
    body = m.geom_body
    dtype = qpos.dtype
    cos, sin = f.cos[body], f.sin[body]
    centre = f.origin[body] + kinematics.rotate(cos, sin, const(m.geom_pos, dtype))
    half = kinematics.rotate(cos, sin, const(m.geom_axis, dtype)) * const(
        m.geom_halflength, dtype)[:, None]
    torso = jnp.stack([qpos[0], f.root_z])
    return torso + centre + half, torso + centre - half


def to_pixels(x, z, camera_x, height: int, width: int, pixels_per_metre: float):
    """Continuous ``(col, row)`` image coordinates of world points ``(x, z)`` when the image is
    centred on ``camera_x``; pixel ``(r, c)`` covers ``[c, c+1) x [r, r+1)``."""
    col = width / 2 + (x - camera_x) * pixels_per_metre
    row = HORIZON * height - z * pixels_per_metre
    return col, row


def render(state: HalfCheetahState, params: HalfCheetahParams | None = None, *,
           height: int = 240, width: int = 320, pixels_per_metre: float = 100.0,
           follow: bool = True) -> jax.Array:
    """The side view of ``state``: ``uint8[height, width, 3]`` RGB.

    ``params`` is unused (the picture does not depend on it); it is accepted for the
    ``render(state, params)`` convention of ``jaxenvs.rendering``. ``follow``: centre the image
    on the torso's x (the default), else on x = 0.
    """
    del params
    if min(height, width) < 1 or not pixels_per_metre > 0:
        raise ValueError("height, width and pixels_per_metre must be positive")
    qpos = jnp.asarray(state.qpos, jnp.float32)
    camera_x = qpos[0] if follow else jnp.float32(0)
    cols = jnp.arange(width, dtype=jnp.float32) + 0.5                      # pixel centres
    rows = jnp.arange(height, dtype=jnp.float32) + 0.5

    def pixels(point):
        return jnp.stack(to_pixels(point[..., 0], point[..., 1], camera_x, height, width,
                                   pixels_per_metre), -1)

    origin_col, floor_row = to_pixels(jnp.float32(0), 0.0, camera_x, height, width,
                                      pixels_per_metre)
    stripe_px = STRIPE_METRES * pixels_per_metre
    stripe = jnp.floor((cols - origin_col) / stripe_px).astype(jnp.int32) % 2 == 1
    floor = jnp.where(stripe[None, :, None], jnp.array(FLOOR_STRIPE, jnp.float32),
                      jnp.array(FLOOR, jnp.float32))
    image = jnp.where((rows > floor_row)[:, None, None], floor, jnp.array(SKY, jnp.float32))

    # Distance of each pixel centre to each capsule's segment, in pixels.
    start, end = (pixels(p) for p in capsule_segments(qpos))               # [8, 2] each
    point = jnp.stack(jnp.broadcast_arrays(cols[None, :], rows[:, None]), -1)  # [H, W, 2]
    seg = end - start
    t = jnp.einsum("hwk,gk->ghw", point, seg) - (start * seg).sum(-1)[:, None, None]
    t = jnp.clip(t / (seg * seg).sum(-1)[:, None, None], 0, 1)
    nearest = start[:, None, None, :] + t[..., None] * seg[:, None, None, :]
    dist = jnp.linalg.norm(point[None] - nearest, axis=-1)                 # [8, H, W]
    radius = const(HALF_CHEETAH.geom_radius, jnp.float32)[:, None, None] * pixels_per_metre
    coverage = jnp.clip(radius - dist + 0.5, 0, 1)
    colours = jnp.asarray(GEOM_COLOUR, jnp.float32)
    for g in range(HALF_CHEETAH.ngeom):
        image = image + coverage[g][..., None] * (colours[g] - image)
    return jnp.round(image).astype(jnp.uint8)
