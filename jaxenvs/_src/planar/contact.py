"""Collision and joint limits: which constraints exist at a configuration, and how deep.

Floor contacts: each capsule against the floor plane z = 0 gives one candidate per end sphere
(MuJoCo's ``mjc_PlaneCapsule``, the ``+axis`` end first). Its point is midway between the
sphere's lowest point and the plane, its normal +z (from the floor, geom 1 of the pair, to the
capsule); MuJoCo's tangents are +-x and +-y.

Capsule pairs (``PlanarModel.capsule_pairs``): MuJoCo's ``mjc_CapsuleCapsule``. The nearest
points of the two segments (clamped to them) are tested as two spheres, which gives one
candidate; where the axes are parallel (``|det| < mjMINVAL``), the segments' ends projected on
each other are tested in MuJoCo's order and the first two within reach kept. The normal points
from the first capsule's sphere to the second's, in the x-z plane, so MuJoCo's tangents are y
and the in-plane perpendicular ``(-n_z, n_x)``. Where the two nearest points coincide (the
segments cross, common in a plane), MuJoCo takes the normal along the axes' cross product,
y: the contact then has no in-plane normal (a zero Jacobian row; the generator asserts that
capsule pairs are frictionless, whose one row this is, so no tangent is needed).

A slot is a contact when its distance is within its margin (``dist <= margin``). Fixed slots:
two per capsule against the floor, then two per pair. Joint limits: each limited hinge gives
one slot, active when its angle is beyond the nearer end of its range (``dist < 0``).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxenvs._src.planar import kinematics
from jaxenvs._src.planar.kinematics import Frames
from jaxenvs._src.planar.model import MINVAL, PlanarModel, const


@struct.dataclass
class Contacts:
    """The contact slots: ``2 ngeom`` end-sphere/floor slots (capsule ``k // 2``, end ``+``
    for even ``k``), then two per capsule pair."""

    dist: jax.Array
    """[ncontact]: signed distance between the surfaces (negative: penetration)."""
    point: jax.Array
    """[ncontact, 2]: contact point (x, z) relative to the root's origin."""
    normal: jax.Array
    """[ncontact, 2]: unit normal (x, z) from the slot's first geom to its second."""
    world_z: jax.Array
    """[ncontact]: contact point's world z."""
    active: jax.Array
    """[ncontact] bool: the slot is a contact (``dist <= margin``)."""


def _capsules(m: PlanarModel, f: Frames) -> tuple[jax.Array, jax.Array]:
    """``(centre, segment)`` ``[ngeom, 2]`` each: every capsule's centre (relative to the
    root's origin) and its axis scaled by its half-length."""
    dtype = f.com.dtype
    body = m.geom_body
    cos, sin = f.cos[body], f.sin[body]
    center = f.origin[body] + kinematics.rotate(cos, sin, const(m.geom_pos, dtype))
    axis = kinematics.rotate(cos, sin, const(m.geom_axis, dtype))
    return center, axis * const(m.geom_halflength, dtype)[:, None]


def _floor(m: PlanarModel, f: Frames, center, segment):
    """``(dist, point)`` of the floor slots."""
    dtype = f.com.dtype
    ends = jnp.stack([center + segment, center - segment], axis=1).reshape(-1, 2)
    radius = const(m.geom_radius, dtype).repeat(2)
    dist = f.root_z + ends[:, 1] - radius
    point = ends - jnp.stack([jnp.zeros_like(dist), radius + 0.5 * dist], axis=-1)
    return dist, point


def _dot(a, b):
    return a[..., 0] * b[..., 0] + a[..., 1] * b[..., 1]


def _spheres(p1, p2, r1, r2):
    """MuJoCo's sphere-sphere test between points ``p1``, ``p2`` with radii ``r1``, ``r2``:
    ``(dist, point, normal)``."""
    delta = p2 - p1
    length = jnp.sqrt(_dot(delta, delta))
    # coincident points (crossing segments): MuJoCo's normal is the axes' cross product, y,
    # out of the plane, so the contact has no in-plane normal
    normal = jnp.where(length[..., None] < MINVAL, 0,
                       delta / jnp.where(length < MINVAL, 1, length)[..., None])
    dist = length - r1 - r2
    return dist, p1 + normal * (r1 + dist / 2)[..., None], normal


def _clip(x):
    return jnp.clip(x, -1, 1)


def _pairs(m: PlanarModel, center, segment):
    """``(dist, point, normal, within)`` of the capsule-pair slots, ``[npair, 2]`` (the
    second slot only for parallel axes); ``within``: the candidate was found."""
    dtype = center.dtype
    g, h = m.capsule_pairs[:, 0], m.capsule_pairs[:, 1]
    c1, a1, c2, a2 = center[g], segment[g], center[h], segment[h]
    r1, r2 = const(m.geom_radius[g], dtype), const(m.geom_radius[h], dtype)
    margin = const(m.contact_margin[2 * m.ngeom::2], dtype)
    dif = c1 - c2
    ma, mb, mc = _dot(a1, a1), -_dot(a1, a2), _dot(a2, a2)
    u, v = -_dot(a1, dif), _dot(a2, dif)
    det = ma * mc - mb * mb

    # general configuration: the segments' nearest points, clamped as MuJoCo clamps them
    safe = jnp.where(jnp.abs(det) >= MINVAL, det, 1)
    x1, x2 = (mc * u - mb * v) / safe, (ma * v - mb * u) / safe
    x2 = jnp.where(x1 > 1, (v - mb) / mc, jnp.where(x1 < -1, (v + mb) / mc, x2))
    x1 = _clip(x1)
    x1 = jnp.where(x2 > 1, _clip((u - mb) / ma), jnp.where(x2 < -1, _clip((u + mb) / ma), x1))
    x2 = _clip(x2)
    general = _spheres(c1 + a1 * x1[:, None], c2 + a2 * x2[:, None], r1, r2)

    # parallel axes: each segment's ends against the other segment, the first two found
    ends = [(c1 + a1, c2 + a2 * _clip((v - mb) / mc)[:, None]),
            (c1 - a1, c2 + a2 * _clip((v + mb) / mc)[:, None]),
            (c1 + a1 * _clip((u - mb) / ma)[:, None], c2 + a2),
            (c1 + a1 * _clip((u + mb) / ma)[:, None], c2 - a2)]
    found = [_spheres(p1, p2, r1, r2) for p1, p2 in ends]
    hits = [dist <= margin for dist, _, _ in found]
    first = [hits[0]] + [hits[k] & ~jnp.any(jnp.stack(hits[:k]), axis=0) for k in (1, 2, 3)]
    count = jnp.cumsum(jnp.stack(hits).astype(jnp.int32), axis=0)
    second = [hits[k] & (count[k] == 2) for k in range(4)]

    def pick(chosen):
        """The candidate that ``chosen`` (four masks, at most one set) marks, and whether
        one is."""
        result = tuple(sum(jnp.where(mask.reshape(mask.shape + (1,) * (x.ndim - 1)), x, 0)
                           for mask, x in zip(chosen, parts))
                       for parts in zip(*found))
        return (*result, jnp.any(jnp.stack(chosen), axis=0))

    parallel = jnp.abs(det) < MINVAL
    slot0 = pick(first)
    slot1 = pick(second)
    dist = jnp.where(parallel, slot0[0], general[0])
    point = jnp.where(parallel[:, None], slot0[1], general[1])
    normal = jnp.where(parallel[:, None], slot0[2], general[2])
    within = jnp.where(parallel, slot0[3], general[0] <= margin)
    return (jnp.stack([dist, slot1[0]], axis=1), jnp.stack([point, slot1[1]], axis=1),
            jnp.stack([normal, slot1[2]], axis=1), jnp.stack([within, parallel & slot1[3]],
                                                              axis=1))


def contacts(m: PlanarModel, f: Frames) -> Contacts:
    """The contacts at the configuration of ``f``."""
    dtype = f.com.dtype
    center, segment = _capsules(m, f)
    dist, point = _floor(m, f, center, segment)
    margin = m.contact_margin[:2 * m.ngeom]
    active = dist <= (float(margin[0]) if np.all(margin == margin[0]) else const(margin, dtype))
    normal = jnp.broadcast_to(jnp.array([0.0, 1.0], dtype), point.shape)
    if m.npair:
        pair_dist, pair_point, pair_normal, within = _pairs(m, center, segment)
        dist = jnp.concatenate([dist, pair_dist.reshape(-1)])
        point = jnp.concatenate([point, pair_point.reshape(-1, 2)])
        normal = jnp.concatenate([normal, pair_normal.reshape(-1, 2)])
        active = jnp.concatenate([active, within.reshape(-1)])
    return Contacts(dist=dist, point=point, normal=normal, world_z=f.root_z + point[:, 1],
                    active=active)


def contact_jacobian(m: PlanarModel, f: Frames, c: Contacts) -> jax.Array:
    """``[ncontact, 2, nv]``: each slot's (tangent, normal) rows: the in-plane tangent and the
    normal components of the contact point's velocity on the second geom's body relative to
    the first's. For a floor slot (the floor is static) the x and z rows of the point's
    Jacobian on the capsule's body."""
    nfloor = 2 * m.ngeom
    floor = kinematics.point_jacobian(m, f, c.point[:nfloor], m.contact_bodies[:nfloor, 1])
    if not m.npair:
        return floor
    bodies = m.contact_bodies[nfloor:]
    point = c.point[nfloor:]
    relative = (kinematics.point_jacobian(m, f, point, bodies[:, 1])
                - kinematics.point_jacobian(m, f, point, bodies[:, 0]))      # [P, 2, nv]
    n = c.normal[nfloor:, :, None]
    normal = n[:, 0] * relative[:, 0] + n[:, 1] * relative[:, 1]
    tangent = -n[:, 1] * relative[:, 0] + n[:, 0] * relative[:, 1]
    return jnp.concatenate([floor, jnp.stack([tangent, normal], axis=1)])


@struct.dataclass
class Limits:
    """The joint-limit slots, one per limited hinge (``PlanarModel.limited_dofs``)."""

    dist: jax.Array
    """[nlimit]: distance to the nearer end of the range (negative: beyond it)."""
    sign: jax.Array
    """[nlimit]: +1 at the lower end, -1 at the upper (the constraint's Jacobian entry)."""
    active: jax.Array
    """[nlimit] bool: the limit is violated (``dist < 0``)."""


def limits(m: PlanarModel, qpos: jax.Array) -> Limits:
    """The joint-limit slots at ``qpos``."""
    dtype = qpos.dtype
    q = qpos[m.limited_dofs]
    lower = q - const(m.limit_range[:, 0], dtype)
    upper = const(m.limit_range[:, 1], dtype) - q
    sign = jnp.where(lower < upper, jnp.ones_like(q), -jnp.ones_like(q))
    dist = jnp.minimum(lower, upper)
    return Limits(dist=dist, sign=sign, active=dist < 0)
