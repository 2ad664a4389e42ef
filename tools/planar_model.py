"""Generate each planar body's ``model_table.py``: the numbers of its compiled MuJoCo model.

Run ``python tools/planar_model.py`` (needs ``pip install jaxenvs[mujoco]``) to rewrite
the tables from gymnasium's XMLs as compiled by the installed MuJoCo (``inertiafromgeom`` and
``settotalmass`` applied by the compiler, ``body_invweight0`` and ``dof_invweight0`` computed
by ``mj_setConst``); ``python tools/planar_model.py HalfCheetah`` rewrites one.
``tests/halfcheetah/test_model.py`` checks that regenerating gives the committed file.

The physics (``jaxenvs._src.planar``) is specialised to planar models: every body and geom moves
in the x-z plane and rotates about y. The generator asserts each assumption the stages rely on,
so a model that broke one fails here rather than silently giving wrong dynamics. Positions and
axes are stored as ``(x, z)`` pairs in the frame of the owning body; angles about y follow
MuJoCo's convention (a rotation by ``a`` maps ``(x, z)`` to ``(x cos a + z sin a, -x sin a + z
cos a)``).
"""

from __future__ import annotations

import pprint
import sys
import numpy as np

from jaxenvs.planar_reference.bodies import BODIES


def _mat(quat: np.ndarray) -> np.ndarray:
    import mujoco

    mat = np.zeros(9)
    mujoco.mju_quat2Mat(mat, np.asarray(quat, np.float64))
    return mat.reshape(3, 3)


#: MuJoCo's integrators the stages know, by ``mjtIntegrator`` value.
_INTEGRATORS = {0: "euler", 1: "rk4"}


def _capsule_pairs(m) -> tuple:
    """The capsule pairs ``(g, h)``, ``g < h`` (capsule indices: geom id - 1), that pass
    MuJoCo's collision filters: contype/conaffinity bits, and not on the same body or on a
    parent and child (``mj_collision``'s default)."""
    parent = m.body_parentid
    pairs = []
    for g in range(1, m.ngeom):
        for h in range(g + 1, m.ngeom):
            b, c = m.geom_bodyid[g], m.geom_bodyid[h]
            if b == c or parent[b] == c or parent[c] == b:
                continue
            if (m.geom_contype[g] & m.geom_conaffinity[h]) or (
                    m.geom_contype[h] & m.geom_conaffinity[g]):
                pairs.append((g - 1, h - 1))
    return tuple(pairs)


def _check(condition: bool, what: str) -> None:
    if not condition:
        raise ValueError(f"the model breaks the planar specialisation: {what}")


def _is_y_rotation(mat: np.ndarray) -> bool:
    e_y = np.array([0.0, 1.0, 0.0])
    return bool(np.allclose(mat[1], e_y, rtol=0, atol=1e-12)
                and np.allclose(mat[:, 1], e_y, rtol=0, atol=1e-12))


def extract(m) -> dict[str, object]:
    """The table's entries from a compiled planar ``mujoco.MjModel``."""
    import mujoco

    nb = m.nbody - 1  # bodies without the world
    hinges = m.njnt - 3
    _check(m.nq == m.nv == m.njnt and hinges == nb - 1, "one hinge per body after the root")
    _check(list(m.jnt_type) == [2, 2, 3] + [3] * hinges, "slide, slide, hinge, then hinges")
    _check(np.all(m.jnt_bodyid == [1, 1] + list(range(1, m.nbody))), "joints in body order")
    _check(np.all(m.jnt_pos[2] == 0), "the root's hinge at the root's origin")
    _check(np.all(m.jnt_pos[3:, 1] == 0), "hinges in the x-z plane")
    _check(np.all(m.jnt_axis[0] == [1, 0, 0]) and np.all(m.jnt_axis[1] == [0, 0, 1])
           and np.all(np.abs(m.jnt_axis[2:]) == [0, 1, 0]), "root slides x, z; hinges about y")
    _check(np.all(m.body_quat[1:] == [1, 0, 0, 0]), "bodies not rotated in their parent")
    _check(np.all(m.body_pos[:, 1] == 0) and np.all(m.body_ipos[:, 1] == 0),
           "bodies in the x-z plane")
    _check(np.all(m.geom_pos[:, 1] == 0), "geoms in the x-z plane")
    _check(m.geom_type[0] == mujoco.mjtGeom.mjGEOM_PLANE and m.geom_bodyid[0] == 0
           and np.all(m.geom_pos[0] == 0) and np.all(m.geom_quat[0] == [1, 0, 0, 0]),
           "geom 0 is the floor plane z = 0")
    _check(np.all(m.geom_type[1:] == mujoco.mjtGeom.mjGEOM_CAPSULE), "other geoms capsules")
    _check(m.opt.cone == mujoco.mjtCone.mjCONE_PYRAMIDAL and m.opt.integrator in _INTEGRATORS
           and m.opt.disableflags == 0 and m.opt.enableflags == 0,
           "pyramidal cone, Euler or RK4, no option flags")
    _check(np.all(m.geom_gap == 0) and np.all(m.geom_priority == 0), "no gaps, no priorities")
    # A contact mixes its two geoms' parameters (MuJoCo's mj_contactParam, equal priorities):
    # condim and friction by maximum, solref and solimp by solmix-weighted average, which one
    # solref and solimp for all geoms makes exact; its margin is their sum (mj_collideGeoms).
    _check(set(m.geom_condim) <= {1, 3}, "contacts of condim 1 or 3")
    pairs = _capsule_pairs(m)
    _check(all(max(m.geom_condim[g + 1], m.geom_condim[h + 1]) == 1 for g, h in pairs),
           "capsule pairs frictionless (condim 1)")
    _check(len(set(map(tuple, m.geom_solref))) == 1 and len(set(map(tuple, m.geom_solimp))) == 1,
           "one solref and solimp for all geoms")
    _check(np.all(m.jnt_margin == 0), "no joint-limit margins")
    limited = m.jnt_limited == 1
    _check(len(set(map(tuple, m.jnt_solref[limited]))) == 1
           and len(set(map(tuple, m.jnt_solimp[limited]))) == 1,
           "one solref and solimp for all joint limits")
    _check(np.all(m.actuator_trnid[:, 0] == np.arange(3, m.njnt)) and
           np.all(m.actuator_gaintype == 0) and np.all(m.actuator_biastype == 0) and
           np.all(m.actuator_dyntype == 0) and np.all(m.actuator_gainprm[:, 0] == 1),
           "plain motors on the hinges after the root")
    _check(np.all(m.qpos0[2:] == 0), "hinges at 0 in qpos0")
    _check(np.all((m.jnt_stiffness == 0) | (m.qpos_spring == 0)), "springs rest at qpos = 0")

    body_iyy = []
    for b in range(1, m.nbody):
        rot = _mat(m.body_iquat[b])
        body_iyy.append(float((rot @ np.diag(m.body_inertia[b]) @ rot.T)[1, 1]))
    geom_axis = []
    for g in range(1, m.ngeom):
        rot = _mat(m.geom_quat[g])
        _check(_is_y_rotation(rot), f"geom {g} rotated about y only")
        geom_axis.append((float(rot[0, 2]), float(rot[2, 2])))

    reset = mujoco.MjData(m)  # mj_resetData's state: qpos0, at rest, no controls
    mujoco.mj_step(m, reset)

    def pairs(a: np.ndarray) -> tuple:
        return tuple((float(x), float(z)) for x, _, z in a)

    def floats(a) -> tuple:
        return tuple(float(x) for x in np.asarray(a).ravel())

    return {
        "TIMESTEP": float(m.opt.timestep),
        "GRAVITY_Z": float(m.opt.gravity[2]),
        "IMPRATIO": float(m.opt.impratio),
        "INTEGRATOR": _INTEGRATORS[m.opt.integrator],
        "QPOS0": floats(m.qpos0),
        "BODY_PARENT": tuple(int(p) - 1 for p in m.body_parentid[1:]),
        "BODY_POS": pairs(m.body_pos[1:]),
        "BODY_IPOS": pairs(m.body_ipos[1:]),
        "BODY_MASS": floats(m.body_mass[1:]),
        "BODY_IYY": tuple(body_iyy),
        "BODY_INVWEIGHT0_TRAN": floats(m.body_invweight0[1:, 0]),
        "BODY_HINGE_POS": pairs(m.jnt_pos[2:]),
        "DOF_BODY": tuple(int(b) - 1 for b in m.dof_bodyid),
        "DOF_SIGN": (1.0, 1.0) + floats(m.jnt_axis[2:, 1]),
        "DOF_ARMATURE": floats(m.dof_armature),
        "DOF_DAMPING": floats(m.dof_damping),
        "DOF_STIFFNESS": floats(m.jnt_stiffness),
        "DOF_INVWEIGHT0": floats(m.dof_invweight0),
        "LIMITED_DOFS": tuple(int(j) for j in np.nonzero(m.jnt_limited)[0]),
        "LIMIT_RANGE": tuple(tuple(floats(r)) for r in m.jnt_range[m.jnt_limited == 1]),
        "LIMIT_SOLREF": floats(m.jnt_solref[m.jnt_limited == 1][0]),
        "LIMIT_SOLIMP": floats(m.jnt_solimp[m.jnt_limited == 1][0]),
        "GEOM_BODY": tuple(int(b) - 1 for b in m.geom_bodyid[1:]),
        "GEOM_POS": pairs(m.geom_pos[1:]),
        "GEOM_AXIS": tuple(geom_axis),
        "GEOM_RADIUS": floats(m.geom_size[1:, 0]),
        "GEOM_HALFLENGTH": floats(m.geom_size[1:, 1]),
        "FLOOR_FRICTION": float(m.geom_friction[0, 0]),
        "FLOOR_MARGIN": float(m.geom_margin[0]),
        "FLOOR_CONDIM": int(m.geom_condim[0]),
        "GEOM_FRICTION": floats(m.geom_friction[1:, 0]),
        "GEOM_MARGIN": floats(m.geom_margin[1:]),
        "GEOM_CONDIM": tuple(int(c) for c in m.geom_condim[1:]),
        "CAPSULE_PAIRS": _capsule_pairs(m),
        "CONTACT_SOLREF": floats(m.geom_solref[0]),
        "CONTACT_SOLIMP": floats(m.geom_solimp[0]),
        "ACTUATOR_GEAR": floats(m.actuator_gear[:, 0]),
        "CTRL_RANGE": floats(m.actuator_ctrlrange[0]),
        "RESET_STEP_QPOS": floats(reset.qpos),
        "RESET_STEP_QVEL": floats(reset.qvel),
    }


_DOCS = {
    "TIMESTEP": "Physics timestep h (s).",
    "GRAVITY_Z": "Gravity along z (m/s^2).",
    "IMPRATIO": "Ratio of frictional to normal constraint impedance.",
    "INTEGRATOR": "MuJoCo's integrator: 'euler' (with implicit damping) or 'rk4'.",
    "QPOS0": "MuJoCo's qpos0 (the slides' refs; hinges 0): slides move bodies by qpos - qpos0.",
    "BODY_PARENT": "Parent of each body (MuJoCo's body id - 1), -1 for the world.",
    "BODY_POS": "Body origin in its parent's frame, (x, z).",
    "BODY_IPOS": "Centre of mass in the body frame, (x, z).",
    "BODY_MASS": "Body mass (kg), after settotalmass.",
    "BODY_IYY": "Moment of inertia about the body's y axis through its centre of mass.",
    "BODY_INVWEIGHT0_TRAN": "MuJoCo's body_invweight0[:, 0] (translational inverse weight).",
    "BODY_HINGE_POS": "Anchor of the hinge that turns each body, in the body's frame, (x, z).",
    "DOF_BODY": "Body each dof moves: rootx, rootz, rooty, then the hinges.",
    "DOF_SIGN": "+1, or -1 for a hinge about -y (its angle turns the body by -qpos).",
    "DOF_ARMATURE": "Armature added to the mass matrix diagonal.",
    "DOF_DAMPING": "Joint damping (N m s/rad), integrated implicitly.",
    "DOF_STIFFNESS": "Joint stiffness (N m/rad); springs rest at qpos = 0.",
    "DOF_INVWEIGHT0": "MuJoCo's dof_invweight0.",
    "LIMITED_DOFS": "Dofs with joint-limit constraints.",
    "LIMIT_RANGE": "Their ranges (rad).",
    "LIMIT_SOLREF": "Joint-limit solref (timeconst, dampratio).",
    "LIMIT_SOLIMP": "Joint-limit solimp (dmin, dmax, width, midpoint, power).",
    "GEOM_BODY": "Body of each capsule (floor excluded).",
    "GEOM_POS": "Capsule centre in its body's frame, (x, z).",
    "GEOM_AXIS": "Capsule axis (unit) in its body's frame, (x, z).",
    "GEOM_RADIUS": "Capsule radius.",
    "GEOM_HALFLENGTH": "Capsule half-length of the segment between the sphere centres.",
    "FLOOR_FRICTION": "Sliding friction of the floor.",
    "FLOOR_MARGIN": "Contact margin of the floor.",
    "FLOOR_CONDIM": "Contact dimensionality of the floor (1: frictionless, 3: sliding friction).",
    "GEOM_FRICTION": "Sliding friction of each capsule.",
    "GEOM_MARGIN": "Contact margin of each capsule.",
    "GEOM_CONDIM": "Contact dimensionality of each capsule.",
    "CAPSULE_PAIRS": "Capsule pairs MuJoCo's filters let collide (capsule index: geom id - 1).",
    "CONTACT_SOLREF": "Contact solref.",
    "CONTACT_SOLIMP": "Contact solimp.",
    "ACTUATOR_GEAR": "Motor gears of the hinges after the root.",
    "CTRL_RANGE": "Control range of every motor (ctrl is clamped to it).",
    "RESET_STEP_QPOS": "qpos after MuJoCo's mj_step from mj_resetData (qpos0, at rest, ctrl 0).",
    "RESET_STEP_QVEL": "qvel after the same step.",
}


def render(body: str, table: dict[str, object], mujoco_version: str) -> str:
    """The text of ``body``'s ``model_table.py`` for ``table``."""
    lines = [
        f'"""{body}-v5\'s compiled model. GENERATED by ``python',
        f'tools/planar_model.py`` from mujoco {mujoco_version}; do not edit."""',
        "",
        f"MUJOCO_VERSION = {mujoco_version!r}",
    ]
    for name, value in table.items():
        lines += ["", f"#: {_DOCS[name]}",
                  f"{name} = " + pprint.pformat(value, width=100 - len(name) - 3)]
    return "\n".join(lines) + "\n"


def generate(body: str) -> str:
    """``body``'s table text for the installed MuJoCo and gymnasium."""
    import mujoco

    return render(body, extract(BODIES[body].load_model()), mujoco.__version__)


def main(argv: list[str] | None = None) -> int:
    bodies = argv or list(BODIES)
    unknown = [body for body in bodies if body not in BODIES]
    if unknown:
        print(f"unknown body {unknown[0]!r}; the planar bodies are {', '.join(BODIES)}",
              file=sys.stderr)
        return 2
    for body in bodies:
        BODIES[body].table_path().write_text(generate(body))
        print(f"wrote {BODIES[body].table_path()}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
