"""Constraint assembly: Jacobian rows, reference accelerations and regularisers, with
MuJoCo's formulas (``mj_instantiateContact``/``Limit``, ``mj_diagApprox``,
``mj_makeImpedance``, ``mj_referenceConstraint``) for a pyramidal friction cone.

Rows, fixed in number: the joint limits, then 3 per contact slot. MuJoCo gives a condim-3
contact 4 pyramid edges ``J_n +- mu J_t1`` and ``J_n +- mu J_t2``. In a planar model one
tangent lies along world y, whose Jacobian is identically zero, so two of the four rows are the
same row ``J_n`` with the same reference and regulariser. They are kept as one row of
multiplicity 2 (``Rows.weight``): the solver's cost counts it twice, and it carries the force of
each of the two edges. The other two are ``J_n +- mu J_t`` with ``t`` the in-plane tangent, x
for a floor contact (which of MuJoCo's tangents is in the plane does not change the set).

Per row, with ``pos`` the constraint's distance beyond its margin (a contact's ``dist -
margin``; the joint limits have none):
``imp`` = solimp's sigmoid of ``|pos| / width``; ``K = 1 / (dmax^2 timeconst^2 dampratio^2)``,
``B = 2 / (dmax timeconst)`` with ``timeconst >= 2 h``; ``aref = -B J v - K imp pos``;
``R = max(mjMINVAL, (1 - imp) / imp * diagApprox)`` with ``diagApprox`` from the model's
``dof_invweight0`` (limits) or ``(1 + mu^2)`` times the sum of the two bodies'
``body_invweight0`` (contacts; the world's is 0), and for the pyramid
all edges share ``R = 2 mu^2 R_0 / impratio``. Inactive slots get ``D = 1/R = 0``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxenvs._src.planar import linalg
from jaxenvs._src.planar.contact import Contacts, Limits
from jaxenvs._src.planar.model import MAXIMP, MINIMP, MINVAL, PlanarModel, const


def row_weight(m: PlanarModel) -> np.ndarray:
    """Multiplicity of each row of the assembled system (limits, then edge +t, edge -t and
    normal per contact slot): the normal row stands for MuJoCo's two y-tangent edges; a
    frictionless slot has its normal row only (its edge rows weigh 0 and never exist)."""
    slots = np.where(m.frictionless[:, None], [0.0, 0.0, 1.0], [1.0, 1.0, 2.0])
    return np.concatenate([np.ones(m.nlimit), slots.reshape(-1)])


@struct.dataclass
class Rows:
    """The constraint rows of one state."""

    J: jax.Array
    """[nrow, nv]: Jacobian rows (``nrow = nlimit + 3 ncontact``)."""
    pos: jax.Array
    """[nrow]: constraint distance (``efc_pos``)."""
    aref: jax.Array
    """[nrow]: reference acceleration (``efc_aref``)."""
    R: jax.Array
    """[nrow]: regulariser (``efc_R``); meaningful where active."""
    D: jax.Array
    """[nrow]: ``1 / R`` where the row is active, else 0."""
    active: jax.Array
    """[nrow] bool: the row exists in MuJoCo (its slot is active)."""


def _solparams(solref, solimp, timestep: float):
    """MuJoCo's ``getsolparam`` clamps, then K and B (standard solref format)."""
    timeconst = max(solref[0], 2 * timestep)
    dampratio = solref[1]
    dmin = min(MAXIMP, max(MINIMP, solimp[0]))
    dmax = min(MAXIMP, max(MINIMP, solimp[1]))
    width = max(0.0, solimp[2])
    mid = min(MAXIMP, max(MINIMP, solimp[3]))
    power = max(1.0, solimp[4])
    k = 1 / max(MINVAL, dmax * dmax * timeconst * timeconst * dampratio * dampratio)
    b = 2 / max(MINVAL, dmax * timeconst)
    return k, b, (dmin, dmax, width, mid, power)


def _power(x: jax.Array, p: float) -> jax.Array:
    return x * x if p == 2 else x if p == 1 else x ** p


def impedance(pos: jax.Array, solimp) -> jax.Array:
    """MuJoCo's ``getimpedance`` at ``pos`` (margin 0), solimp already clamped."""
    dmin, dmax, width, mid, power = solimp
    if dmin == dmax or width <= MINVAL:
        return jnp.full_like(pos, 0.5 * (dmin + dmax))
    x = jnp.abs(pos) / width
    if power == 1:
        y = x
    else:
        low = _power(x, power) / mid ** (power - 1)
        high = 1 - _power(1 - x, power) / (1 - mid) ** (power - 1)
        y = jnp.where(x <= mid, low, high)
    imp = dmin + y * (dmax - dmin)
    return jnp.where(x >= 1, dmax, jnp.where(x <= 0, dmin, imp))


def assemble(m: PlanarModel, qvel: jax.Array, lim: Limits, con: Contacts,
             contact_jac: jax.Array) -> Rows:
    """The constraint rows from the limit and contact slots (``contact_jac``:
    ``[ncontact, 2, nv]``)."""
    dtype = qvel.dtype
    # friction per contact slot, 0 where frictionless (one number where all slots share it)
    friction = np.where(m.frictionless, 0.0, m.contact_friction)
    uniform = bool(np.all(friction == friction[0]))
    mu = float(friction[0]) if uniform else const(friction, dtype)
    mu_rows = mu if uniform else mu[:, None]
    limit_k, limit_b, limit_imp = _solparams(m.limit_solref, m.limit_solimp, m.timestep)
    contact_k, contact_b, contact_imp = _solparams(m.contact_solref, m.contact_solimp,
                                                   m.timestep)

    # Joint limits: J = sign e_dof (a select, not a scatter: see ``dynamics.actuator``).
    one_hot = np.eye(m.nv, dtype=bool)[m.limited_dofs]
    lim_j = jnp.where(one_hot, lim.sign[:, None], jnp.zeros((), dtype))
    lim_imp = impedance(lim.dist, limit_imp)
    lim_r = jnp.maximum(MINVAL, (1 - lim_imp) / lim_imp
                        * const(m.dof_invweight0[m.limited_dofs], dtype))

    # Contacts: rows J_n + mu J_x, J_n - mu J_x, J_n.
    jx, jn = contact_jac[:, 0], contact_jac[:, 1]
    con_j = jnp.stack([jn + mu_rows * jx, jn - mu_rows * jx, jn], axis=1).reshape(-1, m.nv)
    # a contact's constraint acts on its distance beyond the margin (``efc_pos - efc_margin``)
    beyond = con.dist - const(m.contact_margin, dtype) if np.any(m.contact_margin) else con.dist
    con_imp = impedance(beyond, contact_imp)
    bodies = m.contact_bodies
    weights = np.where(bodies >= 0, m.body_invweight0_tran[np.maximum(bodies, 0)], 0)
    tran = const(weights.sum(axis=1), dtype)  # both bodies' (the world's is 0)
    r0 = jnp.maximum(MINVAL, (1 - con_imp) / con_imp * (tran + mu * mu * tran))
    con_r = 2 * mu * mu / m.impratio * r0
    if np.any(m.frictionless):  # a frictionless contact's one row keeps R_0
        con_r = jnp.where(m.frictionless, r0, con_r)

    J = jnp.concatenate([lim_j, con_j])
    pos = jnp.concatenate([lim.dist, con.dist.repeat(3)])
    imp = jnp.concatenate([lim_imp, con_imp.repeat(3)])
    k = jnp.concatenate([jnp.full(m.nlimit, limit_k, dtype),
                         jnp.full(3 * m.ncontact, contact_k, dtype)])
    b = jnp.concatenate([jnp.full(m.nlimit, limit_b, dtype),
                         jnp.full(3 * m.ncontact, contact_b, dtype)])
    R = jnp.concatenate([lim_r, con_r.repeat(3)])
    active = jnp.concatenate([lim.active, con.active.repeat(3)])
    if np.any(m.frictionless):
        active = active & (row_weight(m) > 0)
    aref = -b * linalg.matvec(J, qvel) - k * imp * jnp.concatenate([lim.dist, beyond.repeat(3)])
    D = jnp.where(active, 1 / R, 0)
    return Rows(J=J, pos=pos, aref=jnp.where(active, aref, 0), R=R, D=D, active=active)
