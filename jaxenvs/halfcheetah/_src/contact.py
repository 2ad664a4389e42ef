"""Collision and joint limits: which constraints exist at a configuration, and how deep.

Contacts: each capsule against the floor plane z = 0 gives one candidate per end sphere
(MuJoCo's ``mjc_PlaneCapsule``, the ``+axis`` end first), 16 fixed slots in all. A slot is
active when its sphere touches or penetrates the plane (``dist <= 0``, no margin). Its point is
midway between the sphere's lowest point and the plane, its normal +z (from the floor, geom 1
of the pair, to the capsule); MuJoCo's tangents are +-x and +-y. The capsules never collide
with each other (contype 1, conaffinity 0), so nothing else is tested.

Joint limits: each limited hinge gives one slot, active when its angle is beyond the nearer end
of its range (``dist < 0``).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from jaxenvs.halfcheetah._src import kinematics, model
from jaxenvs.halfcheetah._src.kinematics import Frames
from jaxenvs.halfcheetah._src.model import const


@struct.dataclass
class Contacts:
    """The 16 end-sphere/floor contact slots (geom ``k // 2``, end ``+`` for even ``k``)."""

    dist: jax.Array
    """[16]: signed distance sphere-plane (negative: penetration)."""
    point: jax.Array
    """[16, 2]: contact point (x, z) relative to the torso origin."""
    world_z: jax.Array
    """[16]: contact point's world z (``dist / 2``)."""
    active: jax.Array
    """[16] bool: the slot is a contact (``dist <= 0``)."""


def contacts(f: Frames) -> Contacts:
    """The capsule-end contacts at the configuration of ``f``."""
    dtype = f.com.dtype
    body = model.GEOM_BODY
    cos, sin = f.cos[body], f.sin[body]
    center = f.origin[body] + kinematics.rotate(cos, sin, const(model.GEOM_POS, dtype))
    axis = kinematics.rotate(cos, sin, const(model.GEOM_AXIS, dtype))
    segment = axis * const(model.GEOM_HALFLENGTH, dtype)[:, None]
    ends = jnp.stack([center + segment, center - segment], axis=1).reshape(-1, 2)
    radius = const(model.GEOM_RADIUS, dtype).repeat(2)
    dist = f.root_z + ends[:, 1] - radius
    point = ends - jnp.stack([jnp.zeros_like(dist), radius + 0.5 * dist], axis=-1)
    return Contacts(dist=dist, point=point, world_z=f.root_z + point[:, 1], active=dist <= 0)


def contact_jacobian(f: Frames, c: Contacts) -> jax.Array:
    """``[16, 2, 9]``: Jacobians (x row, z row) of the contact points, on the capsules' bodies
    (the floor is static, so this is also the relative velocity's Jacobian)."""
    return kinematics.point_jacobian(f, c.point, model.CONTACT_BODY)


@struct.dataclass
class Limits:
    """The 6 joint-limit slots, one per limited hinge (``model.LIMITED_DOFS``)."""

    dist: jax.Array
    """[6]: distance to the nearer end of the range (negative: beyond it)."""
    sign: jax.Array
    """[6]: +1 at the lower end, -1 at the upper (the constraint's Jacobian entry)."""
    active: jax.Array
    """[6] bool: the limit is violated (``dist < 0``)."""


def limits(qpos: jax.Array) -> Limits:
    """The joint-limit slots at ``qpos``."""
    dtype = qpos.dtype
    q = qpos[model.LIMITED_DOFS]
    lower = q - const(model.LIMIT_RANGE[:, 0], dtype)
    upper = const(model.LIMIT_RANGE[:, 1], dtype) - q
    sign = jnp.where(lower < upper, jnp.ones_like(q), -jnp.ones_like(q))
    dist = jnp.minimum(lower, upper)
    return Limits(dist=dist, sign=sign, active=dist < 0)
