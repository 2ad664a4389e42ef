"""A planar body as arrays: a generated model table's numbers plus the tree structure derived
from them (which bodies lie on which chain, which dofs move which bodies).

Bodies are numbered from 0 (MuJoCo's body ids minus one: the world is not a body here), dofs
in MuJoCo's order: the root's slides along x and z, its hinge, then the body's hinges. Every
array is float64 or int numpy; the stages cast floats to the dtype of the state they are
given, so the same code runs in float32 and float64. A ``PlanarModel`` is static: the stages
read it while tracing, and it compares and hashes by identity, so each body's model (built
once, at import) compiles once.
"""

from __future__ import annotations

import dataclasses
import functools
import types

import jax.numpy as jnp
import numpy as np

#: MuJoCo's mjMINVAL, mjMINIMP and mjMAXIMP.
MINVAL = 1e-15
MINIMP = 0.0001
MAXIMP = 0.9999
#: MuJoCo's ``mjMAXVAL``: a ``qpos``, ``qvel`` or ``qacc`` entry beyond it, or NaN, makes
#: ``mj_step`` reset the simulation.
MAX_VALUE = 1e10


@dataclasses.dataclass(frozen=True, eq=False)
class PlanarModel:
    """One planar body's compiled model (the table's entries, documented in the generator
    ``tools/planar_model.py``) and what the stages derive from it."""

    timestep: float
    """Physics timestep h (s)."""
    gravity_z: float
    """Gravity along z (m/s^2)."""
    impratio: float
    """Ratio of frictional to normal constraint impedance."""
    integrator: str
    """MuJoCo's integrator: ``"euler"`` (with implicit damping) or ``"rk4"``."""
    qpos0: np.ndarray
    """[nv]: MuJoCo's ``qpos0``: the slides' references (a slide moves its body by ``qpos -
    qpos0``); 0 for the hinges."""
    body_parent: np.ndarray
    """[nbody]: parent of each body, -1 for the world."""
    body_pos: np.ndarray
    """[nbody, 2]: body origin in its parent's frame, (x, z)."""
    body_ipos: np.ndarray
    """[nbody, 2]: centre of mass in the body frame, (x, z)."""
    body_mass: np.ndarray
    """[nbody]: mass (kg)."""
    body_iyy: np.ndarray
    """[nbody]: moment of inertia about y through the centre of mass."""
    body_invweight0_tran: np.ndarray
    """[nbody]: MuJoCo's ``body_invweight0[:, 0]``."""
    body_hinge_pos: np.ndarray
    """[nbody, 2]: anchor of the hinge that turns each body, in the body's frame (the
    root's: its origin)."""
    dof_body: np.ndarray
    """[nv]: body each dof moves."""
    dof_sign: np.ndarray
    """[nv]: +1, or -1 for a hinge about -y (it turns its body by ``-qpos``)."""
    dof_armature: np.ndarray
    """[nv]: armature added to the mass matrix diagonal."""
    dof_damping: np.ndarray
    """[nv]: joint damping, integrated implicitly."""
    dof_stiffness: np.ndarray
    """[nv]: joint stiffness; springs rest at ``qpos = 0``."""
    dof_invweight0: np.ndarray
    """[nv]: MuJoCo's ``dof_invweight0``."""
    limited_dofs: np.ndarray
    """[nlimit]: dofs with joint-limit constraints."""
    limit_range: np.ndarray
    """[nlimit, 2]: their ranges (rad)."""
    limit_solref: tuple
    """Joint-limit solref (timeconst, dampratio)."""
    limit_solimp: tuple
    """Joint-limit solimp (dmin, dmax, width, midpoint, power)."""
    geom_body: np.ndarray
    """[ngeom]: body of each capsule (the floor is not a geom here)."""
    geom_pos: np.ndarray
    """[ngeom, 2]: capsule centre in its body's frame."""
    geom_axis: np.ndarray
    """[ngeom, 2]: capsule axis (unit) in its body's frame."""
    geom_radius: np.ndarray
    """[ngeom]: capsule radius."""
    geom_halflength: np.ndarray
    """[ngeom]: half-length of the segment between the capsule's sphere centres."""
    floor_friction: float
    """Sliding friction of the floor."""
    floor_margin: float
    """Contact margin of the floor."""
    floor_condim: int
    """Contact dimensionality of the floor: 1 frictionless, 3 with sliding friction."""
    geom_friction: np.ndarray
    """[ngeom]: sliding friction of each capsule."""
    geom_margin: np.ndarray
    """[ngeom]: contact margin of each capsule."""
    geom_condim: np.ndarray
    """[ngeom]: contact dimensionality of each capsule."""
    capsule_pairs: np.ndarray
    """[npair, 2]: the capsule pairs ``(g, h)``, ``g < h``, that MuJoCo's collision filters
    let collide."""
    contact_solref: tuple
    """Contact solref."""
    contact_solimp: tuple
    """Contact solimp."""
    actuator_gear: np.ndarray
    """[nu]: motor gears, driving the last ``nu`` dofs."""
    ctrl_range: tuple
    """Control range of every motor (ctrl is clamped to it)."""
    reset_step_qpos: np.ndarray
    """[nv]: ``qpos`` after ``mj_step`` from ``mj_resetData`` (``qpos0``, at rest, ctrl 0)."""
    reset_step_qvel: np.ndarray
    """[nv]: ``qvel`` after the same step."""

    @property
    def nbody(self) -> int:
        return len(self.body_mass)

    @property
    def nv(self) -> int:
        return len(self.dof_body)

    @property
    def ngeom(self) -> int:
        return len(self.geom_body)

    @property
    def npair(self) -> int:
        return len(self.capsule_pairs)

    @property
    def ncontact(self) -> int:
        """Contact slots: the two end spheres of every capsule against the floor (``+axis``
        end first), then two per capsule pair (MuJoCo's most for two capsules)."""
        return 2 * self.ngeom + 2 * self.npair

    @property
    def nlimit(self) -> int:
        return len(self.limited_dofs)

    @functools.cached_property
    def is_hinge(self) -> np.ndarray:
        """[nv]: the root's two slides (dofs 0, 1) translate along world x and z; every other
        dof is a hinge about y through its body's origin (checked by the generator)."""
        return np.arange(self.nv) >= 2

    @functools.cached_property
    def contact_bodies(self) -> np.ndarray:
        """[ncontact, 2]: the two bodies of each contact slot, the floor's -1 (the world)."""
        floor = np.stack([np.full(self.ngeom, -1), self.geom_body], axis=1)
        pairs = self.geom_body[self.capsule_pairs].reshape(-1, 2)
        return np.concatenate([floor, pairs]).repeat(2, axis=0)

    def _mixed(self, capsule: np.ndarray, floor, mix: np.ufunc) -> np.ndarray:
        """[ncontact]: a geom parameter of each contact slot, ``mix`` of its two geoms'
        (``capsule[g]`` per capsule, ``floor`` the floor's)."""
        pairs = mix.reduce(capsule[self.capsule_pairs].reshape(-1, 2), axis=1)
        return np.concatenate([mix(capsule, floor), pairs]).repeat(2)

    @functools.cached_property
    def contact_friction(self) -> np.ndarray:
        """[ncontact]: each slot's sliding friction, the larger of its two geoms' (MuJoCo's
        ``mj_contactParam`` at equal priorities)."""
        return self._mixed(self.geom_friction, self.floor_friction, np.maximum)

    @functools.cached_property
    def frictionless(self) -> np.ndarray:
        """[ncontact] bool: the slot's condim, the larger of its two geoms'
        (``mj_contactParam``), is 1: a normal force only."""
        return self._mixed(self.geom_condim, self.floor_condim, np.maximum) == 1

    @functools.cached_property
    def contact_margin(self) -> np.ndarray:
        """[ncontact]: each slot's margin, the sum of its two geoms' (MuJoCo's
        ``mj_collideGeoms``): a slot is a contact within it, and its constraint acts on
        ``dist - margin``."""
        return self._mixed(self.geom_margin, self.floor_margin, np.add)

    @functools.cached_property
    def actuated_dofs(self) -> np.ndarray:
        """The dofs the motors drive: the last ``nu``."""
        return np.arange(self.nv - len(self.actuator_gear), self.nv)

    @functools.cached_property
    def chain(self) -> np.ndarray:
        """``chain[b, c]``: body ``c`` is body ``b`` or one of its ancestors."""
        chain = np.zeros((self.nbody, self.nbody), bool)
        for b in range(self.nbody):
            c = b
            while c >= 0:
                chain[b, c] = True
                c = self.body_parent[c]
        return chain

    @functools.cached_property
    def moves(self) -> np.ndarray:
        """``moves[b, i]``: dof ``i`` moves body ``b`` (its body is on ``b``'s chain)."""
        return self.chain[:, self.dof_body]

    @functools.cached_property
    def rotates(self) -> np.ndarray:
        """``rotates[b, i]``: dof ``i`` is a hinge that rotates body ``b``; a body's angle
        about y is ``rotates @ qpos`` and its angular velocity ``rotates @ qvel``."""
        return self.moves & self.is_hinge

    @functools.cached_property
    def turns(self) -> np.ndarray:
        """``turns[b, i]``: ``d angle_b / d qpos_i``, the hinge's sign where it rotates body
        ``b``, else 0."""
        return self.rotates * self.dof_sign


def from_table(table: types.ModuleType) -> PlanarModel:
    """The model of a generated table module (``tools/planar_model.py``)."""
    def value(field: dataclasses.Field):
        entry = getattr(table, field.name.upper())
        if field.name == "capsule_pairs":
            return np.array(entry, int).reshape(-1, 2)
        return entry if field.type in ("float", "int", "tuple", "str") else np.array(entry)
    return PlanarModel(**{f.name: value(f) for f in dataclasses.fields(PlanarModel)})


def const(value, dtype) -> jnp.ndarray:
    """A model constant as an array of the pipeline's dtype."""
    return jnp.asarray(np.asarray(value, np.float64), dtype)
