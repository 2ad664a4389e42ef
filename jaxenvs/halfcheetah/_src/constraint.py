"""Constraint assembly: Jacobian rows, reference accelerations and regularisers, with
MuJoCo's formulas (``mj_instantiateContact``/``Limit``, ``mj_diagApprox``,
``mj_makeImpedance``, ``mj_referenceConstraint``) for a pyramidal friction cone.

Rows, fixed in number: 6 joint limits, then 3 per contact slot. MuJoCo gives a condim-3
contact 4 pyramid edges ``J_n +- mu J_t1`` and ``J_n +- mu J_t2``. In this planar model one
tangent lies along world y, whose Jacobian is identically zero, so two of the four rows are the
same row ``J_n`` with the same reference and regulariser. They are kept as one row of
multiplicity 2 (``Rows.weight``): the solver's cost counts it twice, and it carries the force of
each of the two edges. The other two are ``J_n +- mu J_x`` (which of MuJoCo's tangents is x
does not change the set).

Per row, with ``pos`` the constraint's distance (margins are zero here):
``imp`` = solimp's sigmoid of ``|pos| / width``; ``K = 1 / (dmax^2 timeconst^2 dampratio^2)``,
``B = 2 / (dmax timeconst)`` with ``timeconst >= 2 h``; ``aref = -B J v - K imp pos``;
``R = max(mjMINVAL, (1 - imp) / imp * diagApprox)`` with ``diagApprox`` from the model's
``dof_invweight0`` (limits) or ``(1 + mu^2) body_invweight0`` (contacts), and for the pyramid
all edges share ``R = 2 mu^2 R_0 / impratio``. Inactive slots get ``D = 1/R = 0``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxenvs.halfcheetah._src import linalg, model
from jaxenvs.halfcheetah._src import model_table as table
from jaxenvs.halfcheetah._src.contact import Contacts, Limits
from jaxenvs.halfcheetah._src.model import const

#: Rows of the assembled system: limits, then (edge +x, edge -x, normal) per contact slot.
NROW = model.NLIMIT + 3 * model.NCONTACT
#: Multiplicity of each row (the normal row stands for MuJoCo's two y-tangent edges).
ROW_WEIGHT = np.concatenate([np.ones(model.NLIMIT), np.tile([1.0, 1.0, 2.0], model.NCONTACT)])


@struct.dataclass
class Rows:
    """The constraint rows of one state."""

    J: jax.Array
    """[54, 9]: Jacobian rows."""
    pos: jax.Array
    """[54]: constraint distance (``efc_pos``)."""
    aref: jax.Array
    """[54]: reference acceleration (``efc_aref``)."""
    R: jax.Array
    """[54]: regulariser (``efc_R``); meaningful where active."""
    D: jax.Array
    """[54]: ``1 / R`` where the row is active, else 0."""
    active: jax.Array
    """[54] bool: the row exists in MuJoCo (its slot is active)."""


def _solparams(solref, solimp, timestep: float):
    """MuJoCo's ``getsolparam`` clamps, then K and B (standard solref format)."""
    timeconst = max(solref[0], 2 * timestep)
    dampratio = solref[1]
    dmin = min(model.MAXIMP, max(model.MINIMP, solimp[0]))
    dmax = min(model.MAXIMP, max(model.MINIMP, solimp[1]))
    width = max(0.0, solimp[2])
    mid = min(model.MAXIMP, max(model.MINIMP, solimp[3]))
    power = max(1.0, solimp[4])
    k = 1 / max(model.MINVAL, dmax * dmax * timeconst * timeconst * dampratio * dampratio)
    b = 2 / max(model.MINVAL, dmax * timeconst)
    return k, b, (dmin, dmax, width, mid, power)


def _power(x: jax.Array, p: float) -> jax.Array:
    return x * x if p == 2 else x if p == 1 else x ** p


def impedance(pos: jax.Array, solimp) -> jax.Array:
    """MuJoCo's ``getimpedance`` at ``pos`` (margin 0), solimp already clamped."""
    dmin, dmax, width, mid, power = solimp
    if dmin == dmax or width <= model.MINVAL:
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


_LIMIT_K, _LIMIT_B, _LIMIT_IMP = _solparams(table.LIMIT_SOLREF, table.LIMIT_SOLIMP,
                                            model.TIMESTEP)
_CONTACT_K, _CONTACT_B, _CONTACT_IMP = _solparams(table.CONTACT_SOLREF, table.CONTACT_SOLIMP,
                                                  model.TIMESTEP)


def assemble(qvel: jax.Array, lim: Limits, con: Contacts, contact_jac: jax.Array) -> Rows:
    """The constraint rows from the limit and contact slots (``contact_jac``: ``[16, 2, 9]``)."""
    dtype = qvel.dtype
    mu = model.FRICTION

    # Joint limits: J = sign e_dof (a select, not a scatter: see ``dynamics.actuator``).
    one_hot = np.eye(model.NV, dtype=bool)[model.LIMITED_DOFS]
    lim_j = jnp.where(one_hot, lim.sign[:, None], jnp.zeros((), dtype))
    lim_imp = impedance(lim.dist, _LIMIT_IMP)
    lim_r = jnp.maximum(model.MINVAL, (1 - lim_imp) / lim_imp
                        * const(model.DOF_INVWEIGHT0[model.LIMITED_DOFS], dtype))

    # Contacts: rows J_n + mu J_x, J_n - mu J_x, J_n.
    jx, jn = contact_jac[:, 0], contact_jac[:, 1]
    con_j = jnp.stack([jn + mu * jx, jn - mu * jx, jn], axis=1).reshape(-1, model.NV)
    con_imp = impedance(con.dist, _CONTACT_IMP)
    tran = const(model.BODY_INVWEIGHT0_TRAN[model.CONTACT_BODY], dtype)
    r0 = jnp.maximum(model.MINVAL, (1 - con_imp) / con_imp * (tran + mu * mu * tran))
    con_r = 2 * mu * mu / model.IMPRATIO * r0

    J = jnp.concatenate([lim_j, con_j])
    pos = jnp.concatenate([lim.dist, con.dist.repeat(3)])
    imp = jnp.concatenate([lim_imp, con_imp.repeat(3)])
    k = jnp.concatenate([jnp.full(model.NLIMIT, _LIMIT_K, dtype),
                         jnp.full(3 * model.NCONTACT, _CONTACT_K, dtype)])
    b = jnp.concatenate([jnp.full(model.NLIMIT, _LIMIT_B, dtype),
                         jnp.full(3 * model.NCONTACT, _CONTACT_B, dtype)])
    R = jnp.concatenate([lim_r, con_r.repeat(3)])
    active = jnp.concatenate([lim.active, con.active.repeat(3)])
    aref = -b * linalg.matvec(J, qvel) - k * imp * pos
    D = jnp.where(active, 1 / R, 0)
    return Rows(J=J, pos=pos, aref=jnp.where(active, aref, 0), R=R, D=D, active=active)
