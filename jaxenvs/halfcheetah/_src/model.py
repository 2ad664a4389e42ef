"""The HalfCheetah model as arrays: ``model_table``'s numbers plus the tree structure derived
from them (which bodies lie on which chain, which dofs move which bodies).

Bodies are numbered 0-6 (torso, bthigh, bshin, bfoot, fthigh, fshin, ffoot: MuJoCo's body ids
minus one), dofs 0-8 in MuJoCo's order (rootx, rootz, rooty, then the six hinges). Everything
here is float64 numpy; the pipeline casts it to the dtype of the state it is given, so the
same code runs in float32 and float64.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from jaxenvs.halfcheetah._src import model_table as table

NBODY = len(table.BODY_MASS)
NV = len(table.DOF_BODY)
NGEOM = len(table.GEOM_BODY)
#: Contact slots: the two end spheres of every capsule, ``+axis`` end first (MuJoCo's order).
NCONTACT = 2 * NGEOM
NLIMIT = len(table.LIMITED_DOFS)

#: MuJoCo's mjMINVAL, mjMINIMP and mjMAXIMP.
MINVAL = 1e-15
MINIMP = 0.0001
MAXIMP = 0.9999

TIMESTEP = table.TIMESTEP
GRAVITY_Z = table.GRAVITY_Z
IMPRATIO = table.IMPRATIO
FRICTION = table.CONTACT_FRICTION

BODY_PARENT = np.array(table.BODY_PARENT)
BODY_POS = np.array(table.BODY_POS)
BODY_IPOS = np.array(table.BODY_IPOS)
BODY_MASS = np.array(table.BODY_MASS)
BODY_IYY = np.array(table.BODY_IYY)
BODY_INVWEIGHT0_TRAN = np.array(table.BODY_INVWEIGHT0_TRAN)

DOF_BODY = np.array(table.DOF_BODY)
#: The root's two slides (dofs 0, 1) translate along world x and z; every other dof is a hinge
#: about y through its body's origin (checked by the generator).
IS_HINGE = np.array([False, False] + [True] * (NV - 2))
DOF_ARMATURE = np.array(table.DOF_ARMATURE)
DOF_DAMPING = np.array(table.DOF_DAMPING)
DOF_STIFFNESS = np.array(table.DOF_STIFFNESS)
DOF_INVWEIGHT0 = np.array(table.DOF_INVWEIGHT0)

LIMITED_DOFS = np.array(table.LIMITED_DOFS)
LIMIT_RANGE = np.array(table.LIMIT_RANGE)

GEOM_BODY = np.array(table.GEOM_BODY)
GEOM_POS = np.array(table.GEOM_POS)
GEOM_AXIS = np.array(table.GEOM_AXIS)
GEOM_RADIUS = np.array(table.GEOM_RADIUS)
GEOM_HALFLENGTH = np.array(table.GEOM_HALFLENGTH)
#: Body of each contact slot.
CONTACT_BODY = np.repeat(GEOM_BODY, 2)

ACTUATOR_GEAR = np.array(table.ACTUATOR_GEAR)
ACTUATED_DOFS = np.arange(NV - len(ACTUATOR_GEAR), NV)
CTRL_RANGE = table.CTRL_RANGE

#: MuJoCo's ``mjMAXVAL``: a ``qpos``, ``qvel`` or ``qacc`` entry beyond it, or NaN, makes
#: ``mj_step`` reset the simulation.
MAX_VALUE = 1e10
#: The state one ``mj_step`` after such a reset: from ``qpos0`` at rest with no controls.
RESET_STEP_QPOS = np.array(table.RESET_STEP_QPOS)
RESET_STEP_QVEL = np.array(table.RESET_STEP_QVEL)


def _chain() -> np.ndarray:
    """``CHAIN[b, c]``: body ``c`` is body ``b`` or one of its ancestors."""
    chain = np.zeros((NBODY, NBODY), bool)
    for b in range(NBODY):
        c = b
        while c >= 0:
            chain[b, c] = True
            c = BODY_PARENT[c]
    return chain


CHAIN = _chain()
#: ``MOVES[b, i]``: dof ``i`` moves body ``b`` (its body is on ``b``'s chain).
MOVES = CHAIN[:, DOF_BODY]
#: ``ROTATES[b, i]``: dof ``i`` is a hinge that rotates body ``b``; a body's angle about y is
#: ``ROTATES @ qpos`` and its angular velocity ``ROTATES @ qvel``.
ROTATES = MOVES & IS_HINGE


def const(value, dtype) -> jnp.ndarray:
    """A model constant as an array of the pipeline's dtype."""
    return jnp.asarray(np.asarray(value, np.float64), dtype)
