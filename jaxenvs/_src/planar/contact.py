"""Collision and joint limits: which constraints exist at a configuration, and how deep.

Contacts: each capsule against the floor plane z = 0 gives one candidate per end sphere
(MuJoCo's ``mjc_PlaneCapsule``, the ``+axis`` end first), ``2 ngeom`` fixed slots in all. A slot is
active when its sphere touches or penetrates the plane (``dist <= 0``, no margin). Its point is
midway between the sphere's lowest point and the plane, its normal +z (from the floor, geom 1
of the pair, to the capsule); MuJoCo's tangents are +-x and +-y. The capsules never collide
with each other (contype 1, conaffinity 0: checked by the generator), so nothing else is
tested.

Joint limits: each limited hinge gives one slot, active when its angle is beyond the nearer end
of its range (``dist < 0``).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxenvs._src.planar import kinematics
from jaxenvs._src.planar.kinematics import Frames
from jaxenvs._src.planar.model import PlanarModel, const


@struct.dataclass
class Contacts:
    """The ``2 ngeom`` end-sphere/floor contact slots (geom ``k // 2``, end ``+`` for even
    ``k``)."""

    dist: jax.Array
    """[ncontact]: signed distance sphere-plane (negative: penetration)."""
    point: jax.Array
    """[ncontact, 2]: contact point (x, z) relative to the root's origin."""
    world_z: jax.Array
    """[ncontact]: contact point's world z (``dist / 2``)."""
    active: jax.Array
    """[ncontact] bool: the slot is a contact (``dist <= 0``)."""


def contacts(m: PlanarModel, f: Frames) -> Contacts:
    """The capsule-end contacts at the configuration of ``f``. Refuses a model with contact
    margins or capsules that collide with each other: the stages have neither."""
    if np.any(m.geom_margin) or m.self_collisions:
        raise NotImplementedError("the planar contacts have no margins and no capsule-capsule "
                                  "contacts, which this model has")
    dtype = f.com.dtype
    body = m.geom_body
    cos, sin = f.cos[body], f.sin[body]
    center = f.origin[body] + kinematics.rotate(cos, sin, const(m.geom_pos, dtype))
    axis = kinematics.rotate(cos, sin, const(m.geom_axis, dtype))
    segment = axis * const(m.geom_halflength, dtype)[:, None]
    ends = jnp.stack([center + segment, center - segment], axis=1).reshape(-1, 2)
    radius = const(m.geom_radius, dtype).repeat(2)
    dist = f.root_z + ends[:, 1] - radius
    point = ends - jnp.stack([jnp.zeros_like(dist), radius + 0.5 * dist], axis=-1)
    return Contacts(dist=dist, point=point, world_z=f.root_z + point[:, 1],
                    active=dist <= 0)


def contact_jacobian(m: PlanarModel, f: Frames, c: Contacts) -> jax.Array:
    """``[ncontact, 2, nv]``: Jacobians (x row, z row) of the contact points, on the capsules'
    bodies (the floor is static, so this is also the relative velocity's Jacobian)."""
    return kinematics.point_jacobian(m, f, c.point, m.contact_body)


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
