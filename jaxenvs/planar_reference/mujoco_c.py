"""The planar bodies' reference: MuJoCo's C library running gymnasium's ``-v5`` model of each.

The adapter loads a body's XML from the installed gymnasium (``bodies.BODIES``), injects a
state (``qpos``, ``qvel``, ``ctrl``) into an ``MjData`` and reads back what each stage of the
JAX pipeline must reproduce: the mass matrix (``mj_fullM``), bias, passive and actuator forces,
contacts, constraint rows (``efc_*``), accelerations and the state after ``mj_step``. It also
records states from MuJoCo rollouts for the state-injection tests. MuJoCo is deterministic, so
tests generate their reference data here instead of committing it.

MuJoCo and gymnasium are imported lazily: ``pip install jaxenvs[mujoco]`` installs them.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Callable

import numpy as np

from jaxenvs.planar_reference.bodies import BODIES, Body

MISSING = ("the planar bodies' reference needs MuJoCo and gymnasium: "
           "pip install jaxenvs[mujoco]")


def _mujoco():
    try:
        import mujoco
    except ImportError as error:  # pragma: no cover - depends on the installation
        raise ImportError(MISSING) from error
    return mujoco


def body(env_id: str) -> Body:
    """The planar body of ``env_id``, with a clear error for any other id."""
    if env_id not in BODIES:
        raise ValueError(f"{env_id!r} is not a planar body; choose one of {sorted(BODIES)}")
    return BODIES[env_id]


def xml_path(env_id: str) -> Path:
    """gymnasium's XML of ``env_id``'s ``-v5`` env."""
    try:
        return body(env_id).xml_path()
    except ImportError as error:  # pragma: no cover - depends on the installation
        raise ImportError(MISSING) from error


def load_model(env_id: str):
    """The compiled ``mujoco.MjModel`` of ``env_id``'s ``-v5`` env."""
    return _mujoco().MjModel.from_xml_path(str(xml_path(env_id)))


@dataclasses.dataclass(frozen=True)
class Contact:
    """One MuJoCo contact: a capsule against the floor (geom 0) or another capsule."""

    geom: int
    """The second geom's id (for a floor contact, the capsule's)."""
    pos: np.ndarray
    """float64[3]: the contact point (midway between the surfaces)."""
    dist: float
    """Signed distance (negative: penetration)."""
    frame: np.ndarray
    """float64[3, 3]: rows normal, first tangent, second tangent."""
    efc_address: int
    """First constraint row of this contact (-1 if none)."""


@dataclasses.dataclass(frozen=True)
class Forward:
    """MuJoCo's intermediate quantities of ``mj_forward`` at one state."""

    mass_matrix: np.ndarray
    """float64[nv, nv]: ``mj_fullM`` (armature included)."""
    qfrc_bias: np.ndarray
    qfrc_gravity: np.ndarray
    """``qfrc_bias`` of the same configuration at zero velocity."""
    qfrc_passive: np.ndarray
    qfrc_actuator: np.ndarray
    qacc_smooth: np.ndarray
    contacts: tuple[Contact, ...]
    efc: dict[str, np.ndarray]
    """``efc_type``, ``efc_id``, ``efc_J`` (dense, nefc x nv), ``efc_pos``, ``efc_R``,
    ``efc_D``, ``efc_aref``, ``efc_force``, ``efc_state``."""
    qfrc_constraint: np.ndarray
    qacc: np.ndarray
    xpos: np.ndarray
    """float64[nbody, 3]: body origins (world first)."""
    xmat: np.ndarray
    """float64[nbody, 3, 3]: body orientations."""
    xipos: np.ndarray
    """float64[nbody, 3]: body centres of mass."""


class Reference:
    """One MuJoCo model and data of ``env_id``'s body, for state injection."""

    def __init__(self, env_id: str, solver_tolerance: float | None = None):
        """``solver_tolerance``: MuJoCo's ``opt.tolerance`` (None keeps the model's 1e-8, as
        the ``-v5`` env runs it; ``agreement`` also uses 1e-15, to run the solver to the
        end)."""
        self.body = body(env_id)
        self.frame_skip = self.body.frame_skip
        self.mujoco = _mujoco()
        self.model = load_model(env_id)
        if solver_tolerance is not None:
            self.model.opt.tolerance = solver_tolerance
        self.data = self.mujoco.MjData(self.model)

    def set_state(self, qpos, qvel, ctrl=None) -> None:
        """Inject a state; ``ctrl`` defaults to zero. The warm start is cleared, as after reset."""
        d = self.data
        self.mujoco.mj_resetData(self.model, d)
        d.qpos[:] = qpos
        d.qvel[:] = qvel
        d.ctrl[:] = 0 if ctrl is None else ctrl

    def forward(self, qpos, qvel, ctrl=None) -> Forward:
        """``mj_forward`` at a state, and what it computed."""
        mj, m, d = self.mujoco, self.model, self.data
        self.set_state(qpos, qvel * 0, ctrl)
        mj.mj_forward(m, d)
        gravity = d.qfrc_bias.copy()
        self.set_state(qpos, qvel, ctrl)
        mj.mj_forward(m, d)
        full = np.zeros((m.nv, m.nv))
        mj.mj_fullM(m, d, full)
        nefc = d.nefc
        efc_j = np.zeros((nefc, m.nv))
        if nefc:
            if mj.mj_isSparse(m):
                mj.mju_sparse2dense(efc_j, d.efc_J, d.efc_J_rownnz, d.efc_J_rowadr,
                                    d.efc_J_colind)
            else:
                efc_j[:] = d.efc_J[:nefc * m.nv].reshape(nefc, m.nv)
        contacts = tuple(
            Contact(int(c.geom[1]), c.pos.copy(), float(c.dist), c.frame.reshape(3, 3).copy(),
                    int(c.efc_address))
            for c in (d.contact[i] for i in range(d.ncon)))
        efc = {name: getattr(d, name)[:nefc].copy() for name in (
            "efc_type", "efc_id", "efc_pos", "efc_R", "efc_D", "efc_aref", "efc_force",
            "efc_state")}
        efc["efc_J"] = efc_j
        return Forward(
            mass_matrix=full, qfrc_bias=d.qfrc_bias.copy(), qfrc_gravity=gravity,
            qfrc_passive=d.qfrc_passive.copy(), qfrc_actuator=d.qfrc_actuator.copy(),
            qacc_smooth=d.qacc_smooth.copy(), contacts=contacts, efc=efc,
            qfrc_constraint=d.qfrc_constraint.copy(), qacc=d.qacc.copy(),
            xpos=d.xpos.copy(), xmat=d.xmat.reshape(-1, 3, 3).copy(), xipos=d.xipos.copy())

    def step(self, qpos, qvel, ctrl, nstep: int | None = None
             ) -> tuple[np.ndarray, np.ndarray]:
        """``mj_step`` ``nstep`` times (default: one env step) from an injected state (warm
        start cleared first)."""
        self.set_state(qpos, qvel, ctrl)
        self.mujoco.mj_step(self.model, self.data, nstep or self.frame_skip)
        return self.data.qpos.copy(), self.data.qvel.copy()

    def observation(self, qpos: np.ndarray, qvel: np.ndarray) -> np.ndarray:
        """The ``-v5`` observation of the state (``observation``)."""
        return observation(qpos, qvel, self.body.env_id)

    def rollout(self, qpos, qvel, actions) -> tuple[np.ndarray, np.ndarray]:
        """A gymnasium-style rollout: ``len(actions)`` env steps of ``frame_skip`` physics
        steps each, with MuJoCo's warm start carried as in gymnasium. Returns ``qpos`` and
        ``qvel`` of shape ``[T + 1, nq]`` (the initial state first)."""
        qposs, qvels, _ = self._run(qpos, qvel, len(actions), lambda t, obs: actions[t])
        return qposs, qvels

    def policy_rollout(self, qpos, qvel, policy: Callable[[np.ndarray], np.ndarray],
                       steps: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``rollout`` in closed loop: each env step's action is ``policy(obs)`` of the
        observation it starts from. Returns ``qpos``, ``qvel`` ``[steps + 1, nq]`` and the
        actions ``[steps, nu]``."""
        return self._run(qpos, qvel, steps, lambda t, obs: policy(obs))

    def _run(self, qpos, qvel, steps: int, action: Callable[[int, np.ndarray], np.ndarray]):
        self.set_state(qpos, qvel)
        d = self.data
        qposs, qvels, actions = [d.qpos.copy()], [d.qvel.copy()], []
        for t in range(steps):
            actions.append(np.asarray(action(t, self.observation(d.qpos, d.qvel)), np.float64))
            d.ctrl[:] = actions[-1]
            self.mujoco.mj_step(self.model, d, self.frame_skip)
            qposs.append(d.qpos.copy())
            qvels.append(d.qvel.copy())
        return np.array(qposs), np.array(qvels), np.array(actions).reshape(steps, -1)


def render(qpos, env_id: str, *, height: int = 240, width: int = 320,
           camera: str = "track") -> np.ndarray:
    """MuJoCo's own picture of ``env_id``'s body at ``qpos`` through the XML's ``camera``:
    ``uint8[height, width, 3]``. ``qvel`` is zero: it does not change the picture.

    Raises ``RuntimeError`` if MuJoCo has no OpenGL context here: set ``MUJOCO_GL=egl`` (or
    ``osmesa``) before MuJoCo is first imported. HalfCheetah's pure-JAX view of the same pose
    is ``jaxenvs.halfcheetah.render.render``.
    """
    mujoco = _mujoco()
    mj_model = load_model(env_id)
    data = mujoco.MjData(mj_model)
    data.qpos[:] = np.asarray(qpos, np.float64)
    mujoco.mj_forward(mj_model, data)
    try:
        renderer = mujoco.Renderer(mj_model, height, width)
    except Exception as error:  # MuJoCo raises FatalError, AttributeError, ... without GL
        raise RuntimeError(
            "MuJoCo's renderer has no OpenGL context here; set MUJOCO_GL=egl (or osmesa) "
            f"before importing mujoco ({type(error).__name__}: {error})") from error
    try:
        renderer.update_scene(data, camera=camera)
        return renderer.render().copy()
    finally:
        renderer.close()


def observation(qpos: np.ndarray, qvel: np.ndarray, env_id: str) -> np.ndarray:
    """``env_id``'s ``-v5`` observation: ``qpos[1:]`` then ``qvel`` (last axis), clipped
    where the body's env clips it (``Body.velocity_clip``)."""
    clip = body(env_id).velocity_clip
    qvel = qvel if clip is None else np.clip(qvel, -clip, clip)
    return np.concatenate([qpos[..., 1:], qvel], axis=-1)


def versions() -> dict[str, str]:
    """MuJoCo's and gymnasium's versions (the models are gymnasium's XML files)."""
    import gymnasium
    return {"MuJoCo": _mujoco().__version__, "gymnasium": gymnasium.__version__}
