"""Kinematics: where each body, centre of mass and point is, and the Jacobians of points.

The model is planar (x-z plane, rotations about y), so a body's pose is an angle and a 2-vector.
Positions are kept *relative to the root body's origin*: the dynamics do not depend on where
the body is, and relative coordinates keep float32 exact to its own size however far it has
run (MuJoCo's world coordinates would lose ~1e-5 m at x = 100 in float32). Only the height of
the root's origin, ``root_z``, is needed in world coordinates (for contacts).

A rotation by angle ``a`` about y maps ``(x, z)`` to ``(x cos a + z sin a, -x sin a + z cos a)``
(MuJoCo's right-handed convention), and a hinge's unit rate moves a point at ``r`` from its
anchor with velocity ``e_y x r = (r_z, -r_x)`` (the opposite for a hinge about -y). A hinge's
anchor is fixed in both its body and the parent, so the body's origin moves with it where the
anchor is not the origin (MuJoCo's ``mj_kinematics``: ``xpos = xanchor - xmat jnt_pos``).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxenvs._src.planar import linalg
from jaxenvs._src.planar.model import PlanarModel, const


@struct.dataclass
class Frames:
    """Body poses at one configuration. Shapes are for one state; dtype is the state's."""

    root_z: jax.Array
    """World z of the root body's origin (m)."""
    cos: jax.Array
    """[nbody]: cos of each body's angle about y."""
    sin: jax.Array
    """[nbody]: sin of each body's angle about y."""
    origin: jax.Array
    """[nbody, 2]: body origins (x, z) relative to the root body's origin."""
    com: jax.Array
    """[nbody, 2]: body centres of mass relative to the root body's origin."""
    anchor: jax.Array
    """[nbody, 2]: the anchor of the hinge that turns each body, relative to the root body's
    origin (the root's: its origin)."""


def rotate(cos: jax.Array, sin: jax.Array, v: jax.Array) -> jax.Array:
    """Rotate ``v[..., 2]`` by the angle with ``cos``/``sin`` (broadcast over leading axes)."""
    x, z = v[..., 0], v[..., 1]
    return jnp.stack([cos * x + sin * z, -sin * x + cos * z], axis=-1)


def perp(r: jax.Array) -> jax.Array:
    """``e_y x r`` in (x, z): the velocity of a point at ``r`` from a hinge turning at 1 rad/s."""
    return jnp.stack([r[..., 1], -r[..., 0]], axis=-1)


def _signed(m: PlanarModel, q: jax.Array) -> jax.Array:
    """``q`` with each hinge about -y negated: its contribution to its bodies' angles."""
    if np.all(m.dof_sign == 1):
        return q
    return q * const(m.dof_sign, q.dtype)


def rotations(m: PlanarModel, qpos: jax.Array) -> tuple[jax.Array, jax.Array]:
    """``(cos, sin)`` ``[nbody]`` of each body's angle about y at ``qpos[nv]``."""
    angle = linalg.select_sum(m.rotates, _signed(m, qpos))
    return jnp.cos(angle), jnp.sin(angle)


def frames(m: PlanarModel, qpos: jax.Array,
           rotation: tuple[jax.Array, jax.Array] | None = None) -> Frames:
    """Forward kinematics of one configuration ``qpos[nv]``; ``rotation``: its
    ``rotations``, if already computed."""
    dtype = qpos.dtype
    cos, sin = rotations(m, qpos) if rotation is None else rotation
    has_parent = m.body_parent >= 0
    parent = np.maximum(m.body_parent, 0)  # the root's entry is masked out
    # Each body's offset from its parent's origin, in world axes; the root's offset from the
    # reference point (itself) is zero.
    offset = rotate(cos[parent], sin[parent], const(m.body_pos, dtype))
    hinged = np.any(m.body_hinge_pos)
    if hinged:  # to the anchor in the parent's axes, back from it in the body's
        hinge_pos = const(m.body_hinge_pos, dtype)
        offset = (offset + rotate(cos[parent], sin[parent], hinge_pos)
                  - rotate(cos, sin, hinge_pos))
    offset = jnp.where(has_parent[:, None], offset, 0)
    origin = linalg.select_sum(m.chain, offset)
    anchor = origin + rotate(cos, sin, hinge_pos) if hinged else origin
    com = origin + rotate(cos, sin, const(m.body_ipos, dtype))
    root_z = qpos[1] + (m.body_pos[0, 1] - m.qpos0[1])
    return Frames(root_z=root_z, cos=cos, sin=sin, origin=origin, com=com, anchor=anchor)


def point_jacobian(m: PlanarModel, f: Frames, points: jax.Array, bodies) -> jax.Array:
    """Translational Jacobians ``[P, 2, nv]`` of ``points[P, 2]`` (relative to the root's
    origin) fixed to ``bodies`` (a static int sequence of length P): ``d point / d qpos``.

    Column 0 (rootx) is ``(1, 0)``, column 1 (rootz) ``(0, 1)``; a hinge's column is
    ``perp(point - anchor)``, times the hinge's sign, where the hinge moves the point's body,
    else zero.
    """
    dtype = points.dtype
    anchor = f.anchor[m.dof_body]                                   # [nv, 2]
    rel = points[:, None, :] - anchor[None, :, :]                   # [P, nv, 2]
    hinge = perp(rel) * const(m.turns[list(bodies)], dtype)[..., None]
    slide = jnp.broadcast_to(const(np.eye(2, m.nv).T, dtype), hinge.shape)
    columns = jnp.where(const(m.is_hinge, dtype)[None, :, None] > 0, hinge, slide)
    return jnp.swapaxes(columns, 1, 2)


def com_jacobian(m: PlanarModel, f: Frames) -> jax.Array:
    """``[nbody, 2, nv]``: the Jacobians of the bodies' centres of mass."""
    return point_jacobian(m, f, f.com, range(m.nbody))


def angular_velocity(m: PlanarModel, qvel: jax.Array) -> jax.Array:
    """``[nbody]``: each body's angular velocity about y."""
    return linalg.select_sum(m.rotates, _signed(m, qvel))
