"""Kinematics: where each body, centre of mass and point is, and the Jacobians of points.

The model is planar (x-z plane, rotations about y), so a body's pose is an angle and a 2-vector.
Positions are kept *relative to the torso origin*: the dynamics do not depend on where the
cheetah is, and relative coordinates keep float32 exact to its own size however far the
cheetah has run (MuJoCo's world coordinates would lose ~1e-5 m at x = 100 in float32). Only
the height of the torso origin, ``root_z``, is needed in world coordinates (for contacts).

A rotation by angle ``a`` about y maps ``(x, z)`` to ``(x cos a + z sin a, -x sin a + z cos a)``
(MuJoCo's right-handed convention), and a hinge's unit rate moves a point at ``r`` from its
anchor with velocity ``e_y x r = (r_z, -r_x)``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxenvs.halfcheetah._src import linalg, model
from jaxenvs.halfcheetah._src.model import const


@struct.dataclass
class Frames:
    """Body poses at one configuration. Shapes are for one state; dtype is the state's."""

    root_z: jax.Array
    """World z of the torso origin (m)."""
    cos: jax.Array
    """[7]: cos of each body's angle about y."""
    sin: jax.Array
    """[7]: sin of each body's angle about y."""
    origin: jax.Array
    """[7, 2]: body origins (x, z) relative to the torso origin."""
    com: jax.Array
    """[7, 2]: body centres of mass relative to the torso origin."""


def rotate(cos: jax.Array, sin: jax.Array, v: jax.Array) -> jax.Array:
    """Rotate ``v[..., 2]`` by the angle with ``cos``/``sin`` (broadcast over leading axes)."""
    x, z = v[..., 0], v[..., 1]
    return jnp.stack([cos * x + sin * z, -sin * x + cos * z], axis=-1)


def perp(r: jax.Array) -> jax.Array:
    """``e_y x r`` in (x, z): the velocity of a point at ``r`` from a hinge turning at 1 rad/s."""
    return jnp.stack([r[..., 1], -r[..., 0]], axis=-1)


def rotations(qpos: jax.Array) -> tuple[jax.Array, jax.Array]:
    """``(cos, sin)`` ``[7]`` of each body's angle about y at ``qpos[9]``."""
    angle = linalg.select_sum(model.ROTATES, qpos)
    return jnp.cos(angle), jnp.sin(angle)


def frames(qpos: jax.Array, rotation: tuple[jax.Array, jax.Array] | None = None) -> Frames:
    """Forward kinematics of one configuration ``qpos[9]``; ``rotation``: its ``rotations``,
    if already computed."""
    dtype = qpos.dtype
    cos, sin = rotations(qpos) if rotation is None else rotation
    has_parent = model.BODY_PARENT >= 0
    parent = np.maximum(model.BODY_PARENT, 0)  # the torso's entry is masked out
    # Each body's offset from its parent's origin, in world axes; the torso's offset from the
    # reference point (itself) is zero.
    offset = rotate(cos[parent], sin[parent], const(model.BODY_POS, dtype))
    offset = jnp.where(has_parent[:, None], offset, 0)
    origin = linalg.select_sum(model.CHAIN, offset)
    com = origin + rotate(cos, sin, const(model.BODY_IPOS, dtype))
    root_z = qpos[1] + model.BODY_POS[0, 1]
    return Frames(root_z=root_z, cos=cos, sin=sin, origin=origin, com=com)


def point_jacobian(f: Frames, points: jax.Array, bodies) -> jax.Array:
    """Translational Jacobians ``[P, 2, 9]`` of ``points[P, 2]`` (relative to the torso origin)
    fixed to ``bodies`` (a static int sequence of length P): ``d point / d qpos``.

    Column 0 (rootx) is ``(1, 0)``, column 1 (rootz) ``(0, 1)``; a hinge's column is
    ``perp(point - anchor)`` where the hinge moves the point's body, else zero.
    """
    dtype = points.dtype
    anchor = f.origin[model.DOF_BODY]                               # [9, 2]
    rel = points[:, None, :] - anchor[None, :, :]                   # [P, 9, 2]
    hinge = perp(rel) * const(model.ROTATES[list(bodies)], dtype)[..., None]
    slide = jnp.broadcast_to(const(np.eye(2, model.NV).T, dtype), hinge.shape)
    columns = jnp.where(const(model.IS_HINGE, dtype)[None, :, None] > 0, hinge, slide)
    return jnp.swapaxes(columns, 1, 2)


def com_jacobian(f: Frames) -> jax.Array:
    """``[7, 2, 9]``: the Jacobians of the bodies' centres of mass."""
    return point_jacobian(f, f.com, range(model.NBODY))


def angular_velocity(qvel: jax.Array) -> jax.Array:
    """``[7]``: each body's angular velocity about y."""
    return linalg.select_sum(model.ROTATES, qvel)
