"""L2: one env step from many MuJoCo states, stage by stage, against MuJoCo's C library, for
each planar body (HalfCheetah, Hopper, Walker2d).

``mujoco_states`` draws the states, per family: rollouts of MuJoCo from states near the
body's ``qpos0`` (``qpos0 + U(-0.1, 0.1)``, ``qvel ~ 0.1 N(0, 1)``) under uniform random
actions (``random``), a fixed sine gait (``sine``), zero actions (``zero``) and, for a body
with a committed PPO policy (``Body.checkpoint``), that policy (``trained``: trained in our
env, its mean action chosen from MuJoCo's own observations at every step); and edge states:
``resting`` (settled after 200 zero-action env steps), ``flipped`` (upside down, its lowest
point within 5 cm of the floor), ``penetration`` (the root pushed 0.25-0.45 m below
``qpos0``, into the floor) and ``joint_limit`` (every limited hinge beyond a limit), the last
three with random velocities and controls in [-1.5, 1.5]. Rollouts run on through falls
(MuJoCo's physics, not the env: no termination).

``errors`` injects each state into MuJoCo and into our pipeline and measures, per state, how
far each stage is off MuJoCo's intermediate quantity at that state (``mj_forward``): centres
of mass, mass matrix, smooth force, contact distances, constraint forces and ``qacc``, as
max |Δ| / (1 + |MuJoCo's value|); counts of contacts, limits and constraint rows, as
mismatches; then one env step (the env's ``step_env``) against gymnasium's ``-v5`` env
stepped from the same state (``mujoco_env_step``) on observation, reward and termination, as
max |Δobs|, max |Δobs| / (1 + |obs|), |Δreward| and termination mismatches.

Each figure is measured against two MuJoCo references: MuJoCo as the ``-v5`` env runs it, and
MuJoCo with its solver run to the minimiser (``CONVERGED_TOLERANCE``), since at its default
tolerance MuJoCo's own Newton solver stops short on a few states.

``python -m jaxenvs.planar_reference.agreement --env Hopper --states 10000``, run from the
repository root, writes ``benchmarks/results/hopper-l2.{json,md}`` with max and median of
each figure per family in float64 and float32 (each in a subprocess: x64 must be set when a
process starts).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

import numpy as np

from jaxenvs.planar_reference import mujoco_c
from jaxenvs.planar_reference.bodies import BODIES

ROLLOUT_FAMILIES = ("random", "sine", "zero", "trained")
EDGE_FAMILIES = ("resting", "flipped", "penetration", "joint_limit")
#: Env steps per recorded rollout (longer families use several rollouts).
ROLLOUT_STEPS = 100
#: The L2 one-step bounds on observations, per dtype: float64 max |Δobs|; float32
#: max |Δobs| / (1 + |obs|) and median |Δobs|.
FLOAT64_MAX_DOBS = 1e-7
FLOAT32_MAX_REL_DOBS = 2e-3
FLOAT32_MEDIAN_DOBS = 1e-5
#: Float64 stage bounds, max |Δ| / (1 + |MuJoCo|): exact formulas agree to rounding (1e-9);
#: constraint forces and qacc come out of MuJoCo's Newton solver, which stops at a cost
#: improvement of 1e-8, so MuJoCo itself is only that close (1e-7).
FLOAT64_STAGE_BOUND = {"com": 1e-9, "mass_matrix": 1e-9, "qfrc_smooth": 1e-9,
                       "contact_dist": 1e-9, "efc_force": 1e-7, "qfrc_constraint": 1e-7,
                       "qacc": 1e-7}
COUNTS = ("contacts", "limits", "rows", "terminated")
#: MuJoCo's solver tolerance for the "converged" reference. The ``-v5`` envs run MuJoCo's
#: default, 1e-8 on the cost improvement, which on rare states stops its Newton solver short
#: of the minimiser (figures: docs/halfcheetah.md, L1 and L2); at 1e-15 MuJoCo iterates to
#: the minimiser, and the report gives both references.
CONVERGED_TOLERANCE = 1e-15
RESULTS = Path("benchmarks/results")


@dataclasses.dataclass(frozen=True)
class States:
    """Injected states: ``qpos`` ``[n, nq]``, ``qvel`` ``[n, nv]``, ``ctrl`` ``[n, nu]``, and
    the family name of each (``family[n]``)."""

    family: np.ndarray
    qpos: np.ndarray
    qvel: np.ndarray
    ctrl: np.ndarray

    def __len__(self) -> int:
        return len(self.qpos)


def families(env_id: str) -> tuple[str, ...]:
    """``env_id``'s families: ``trained`` only for a body with a committed policy."""
    rollouts = tuple(name for name in ROLLOUT_FAMILIES
                     if name != "trained" or mujoco_c.body(env_id).checkpoint() is not None)
    return rollouts + EDGE_FAMILIES


def env_under_test(env_id: str):
    """``env_id``'s registered env."""
    import jaxenvs

    return jaxenvs.make(env_id)[0]


def _policy(name: str, rng: np.random.Generator, steps: int, nu: int) -> np.ndarray:
    t = np.arange(steps)[:, None]
    if name == "random":
        return rng.uniform(-1, 1, (steps, nu))
    if name == "sine":
        return np.sin(0.3 * t + np.arange(nu))
    return np.zeros((steps, nu))


def _trained_policy(env_id: str) -> Callable[[np.ndarray], np.ndarray]:
    """The committed policy's mean action for one observation."""
    from jaxenvs.ppo.policy import TrainedPolicy

    policy = TrainedPolicy.load(mujoco_c.body(env_id).checkpoint(), env_id)
    rng = np.random.default_rng(0)  # unused: greedy actions draw nothing
    return lambda obs: policy.act(obs[None], rng, greedy=True)[0]


def _near_rest(ref: mujoco_c.Reference, rng) -> tuple[np.ndarray, np.ndarray]:
    """A start near ``qpos0``: ``qpos0 + U(-0.1, 0.1)`` and ``qvel ~ 0.1 N(0, 1)``."""
    m = ref.model
    return m.qpos0 + rng.uniform(-0.1, 0.1, m.nq), 0.1 * rng.normal(size=m.nv)


def _rollout_family(ref: mujoco_c.Reference, name: str, n: int, rng):
    qpos, qvel, ctrl = [], [], []
    policy = _trained_policy(ref.body.env_id) if name == "trained" else None
    for start in range(0, n, ROLLOUT_STEPS):
        steps = min(ROLLOUT_STEPS, n - start)
        if policy is not None:
            qp, qv, actions = ref.policy_rollout(*_near_rest(ref, rng), policy, steps)
        else:
            actions = _policy(name, rng, steps, ref.model.nu)
            qp, qv = ref.rollout(*_near_rest(ref, rng), actions)
        qpos.append(qp[:-1]); qvel.append(qv[:-1]); ctrl.append(actions)
    return np.concatenate(qpos), np.concatenate(qvel), np.concatenate(ctrl)


def _lowest_point(ref: mujoco_c.Reference, qpos: np.ndarray) -> float:
    """The world z of the body's lowest capsule surface at ``qpos``."""
    mj, m, d = ref.mujoco, ref.model, ref.data
    ref.set_state(qpos, np.zeros(m.nv))
    mj.mj_kinematics(m, d)
    capsules = np.flatnonzero(m.geom_type == mj.mjtGeom.mjGEOM_CAPSULE)
    axis_z = np.abs(d.geom_xmat[capsules].reshape(-1, 3, 3)[:, 2, 2])
    radius, half = m.geom_size[capsules, 0], m.geom_size[capsules, 1]
    return float(np.min(d.geom_xpos[capsules, 2] - axis_z * half - radius))


def _edge_family(ref: mujoco_c.Reference, name: str, n: int, rng):
    m = ref.model
    nq, nv, nu = m.nq, m.nv, m.nu
    if name == "resting":
        states = [ref.rollout(*_near_rest(ref, rng), np.zeros((200, nu))) for _ in range(n)]
        return (np.array([s[0][-1] for s in states]), np.array([s[1][-1] for s in states]),
                np.zeros((n, nu)))
    qpos = m.qpos0 + rng.uniform(-0.05, 0.05, (n, nq))
    if name == "flipped":  # upside down, the lowest point 0-5 cm above or into the floor
        qpos[:, 2] += np.pi
        for q in qpos:
            q[1] -= _lowest_point(ref, q) + rng.uniform(-0.05, 0.05)
    elif name == "penetration":
        qpos[:, 1] = m.qpos0[1] + rng.uniform(-0.45, -0.25, n)
    else:  # joint_limit: each limited hinge 0-0.3 rad beyond its lower or upper limit
        limited = np.flatnonzero(m.jnt_limited)
        dofs = m.jnt_qposadr[limited]
        low, high = m.jnt_range[limited, 0], m.jnt_range[limited, 1]
        beyond = rng.uniform(0, 0.3, (n, len(low)))
        upper = rng.random((n, len(low))) < 0.5
        qpos[:, dofs] = np.where(upper, high + beyond, low - beyond)
    return qpos, rng.normal(size=(n, nv)), rng.uniform(-1.5, 1.5, (n, nu))


def family_sizes(n: int, names: tuple[str, ...]) -> dict[str, int]:
    """How many of ``n`` states each of the families ``names`` gets: 2.5% to each edge family
    (at least one), the rest split evenly over the rollout families."""
    edge = max(1, n // 40)
    rollouts = [name for name in names if name in ROLLOUT_FAMILIES]
    rest = n - edge * len(EDGE_FAMILIES)
    if rest < len(rollouts):
        raise ValueError(f"need at least {len(names)} states, got {n}")
    sizes = {name: rest // len(rollouts) for name in rollouts}
    sizes["random"] += rest % len(rollouts)
    return {**sizes, **{name: edge for name in EDGE_FAMILIES}}


def mujoco_states(env_id: str, n: int = 185, seed: int = 0,
                  ref: mujoco_c.Reference | None = None) -> States:
    """``n`` states of every family of ``env_id`` (sizes from ``family_sizes``),
    deterministic in ``seed``."""
    ref = ref or mujoco_c.Reference(env_id)
    parts = []
    for i, (name, size) in enumerate(family_sizes(n, families(env_id)).items()):
        rng = np.random.default_rng([seed, i])
        make = _rollout_family if name in ROLLOUT_FAMILIES else _edge_family
        parts.append((name, *make(ref, name, size, rng)))
    return States(family=np.concatenate([[p[0]] * len(p[1]) for p in parts]),
                  qpos=np.concatenate([p[1] for p in parts]),
                  qvel=np.concatenate([p[2] for p in parts]),
                  ctrl=np.concatenate([p[3] for p in parts]))


def _rel(ours, theirs) -> float:
    ours, theirs = np.asarray(ours, np.float64), np.asarray(theirs, np.float64)
    return float(np.max(np.abs(ours - theirs) / (1 + np.abs(theirs)), initial=0.0))


def _ours(states: States, env):
    """Our ``forward`` at every state and one ``env.step_env`` from it, batched, in the float
    dtype of this process (float64 under x64): ``(forward, obs, reward, terminated)``."""
    import jax
    import jax.numpy as jnp

    from jaxenvs._src.planar import integrator
    from jaxenvs._src.planar.locomotion import float_dtype

    params = env.default_params

    def one(q, v, c):
        state = env.state_type(qpos=q, qvel=v, time=jnp.int32(0))
        obs, _, reward, done, _ = env.step_env(jax.random.key(0), state, c, params)
        return integrator.forward(env.model, q, v, c), obs, reward, done

    dtype = float_dtype()
    args = (jnp.asarray(x, dtype) for x in (states.qpos, states.qvel, states.ctrl))
    return jax.device_get(jax.jit(jax.vmap(one))(*args))


def inject(env_id: str, states: States, ref: mujoco_c.Reference | None = None, env=None):
    """Inject every state into MuJoCo and into ``env`` (default: ``env_id``'s env), in this
    process's float dtype. Returns ``(stage_errors, ours, mujoco)``: per state (arrays
    ``[n]``) each stage's deviation (see the module docstring), and the env step's ``obs``
    ``[n, nobs]``, ``reward`` and ``terminated`` ``[n]`` from each side."""
    ref = ref or mujoco_c.Reference(env_id)
    return _against(states, *_ours(states, env or env_under_test(env_id)), ref)


def _against(states: States, fwd, obs, reward, terminated, ref: mujoco_c.Reference):
    """``inject``'s results from our batched ``forward``, ``obs``, ``reward`` and
    ``terminated``."""
    from jaxenvs._src.planar import constraint

    weight = constraint.row_weight(env_under_test(ref.body.env_id).model).astype(int)
    out = {name: np.zeros(len(states)) for name in (*FLOAT64_STAGE_BOUND, *COUNTS)}
    gym_env = GymnasiumStep(ref)
    expected = {"obs": [], "reward": [], "terminated": []}
    for i in range(len(states)):
        q, v, c = states.qpos[i], states.qvel[i], states.ctrl[i]
        r = ref.forward(q, v, c)
        # centres of mass relative to the root body's origin, on both sides
        com = (r.xipos[1:] - r.xpos[1])[:, [0, 2]]
        out["com"][i] = _rel(fwd.frames.com[i] - fwd.frames.origin[i][0], com)
        out["mass_matrix"][i] = _rel(fwd.mass_matrix[i], r.mass_matrix)
        out["qfrc_smooth"][i] = _rel(fwd.qfrc_smooth[i],
                                     r.qfrc_passive - r.qfrc_bias + r.qfrc_actuator)
        active = np.asarray(fwd.contacts.active[i])
        out["contacts"][i] = active.sum() != len(r.contacts)
        out["limits"][i] = fwd.limits.active[i].sum() != np.sum(r.efc["efc_type"] == 3)
        rows = np.asarray(fwd.rows.active[i])
        out["rows"][i] = weight[rows].sum() != len(r.efc["efc_force"])
        if not out["contacts"][i]:
            out["contact_dist"][i] = _rel(np.sort(fwd.contacts.dist[i][active]),
                                          np.sort([con.dist for con in r.contacts]))
        if not out["rows"][i]:
            out["efc_force"][i] = _rel(np.sort(np.repeat(fwd.force[i][rows], weight[rows])),
                                       np.sort(r.efc["efc_force"]))
        out["qfrc_constraint"][i] = _rel(fwd.qfrc_constraint[i], r.qfrc_constraint)
        out["qacc"][i] = _rel(fwd.qacc[i], r.qacc)
        for name, value in zip(expected, gym_env(q, v, c)):
            expected[name].append(value)
    out["terminated"] = np.asarray(terminated) != np.array(expected["terminated"])
    ours = {"obs": np.asarray(obs, np.float64), "reward": np.asarray(reward, np.float64)}
    return out, ours, {"obs": np.array(expected["obs"]), "reward": np.array(expected["reward"])}


class GymnasiumStep:
    """gymnasium's ``-v5`` env of ``ref``'s body, stepped once from injected states, with
    ``ref``'s solver tolerance."""

    def __init__(self, ref: mujoco_c.Reference):
        import gymnasium

        self.mujoco = ref.mujoco
        self.env = gymnasium.make(ref.body.gymnasium_id).unwrapped
        self.env.model.opt.tolerance = ref.model.opt.tolerance

    def __call__(self, qpos, qvel, ctrl) -> tuple[np.ndarray, float, bool]:
        """``(obs, reward, terminated)`` of one env step from ``(qpos, qvel)`` under ``ctrl``;
        MuJoCo's warm start is cleared first, as our step starts without one."""
        self.mujoco.mj_resetData(self.env.model, self.env.data)
        self.env.set_state(qpos, qvel)
        obs, reward, terminated, _, _ = self.env.step(np.asarray(ctrl, np.float64))
        return obs, float(reward), bool(terminated)


def recorded_step_check(env_id: str, states: States, expected: dict[str, np.ndarray],
                        env=None) -> tuple[dict, list[str]]:
    """One env step of ``env`` (default: ``env_id``'s env) from every state, in this
    process's float dtype, against gymnasium's recorded ``expected`` ``obs`` ``[n, nobs]``
    and ``reward`` ``[n]`` (``GymnasiumStep``'s): ``(summary, the L2 bounds it breaks)``.
    Needs no MuJoCo."""
    from jaxenvs._src.planar.locomotion import float_dtype

    _, obs, reward, _ = _ours(states, env or env_under_test(env_id))
    ours = {"obs": np.asarray(obs, np.float64), "reward": np.asarray(reward, np.float64)}
    summary = summarise(states, _step_errors({}, ours, expected))
    return summary, check(summary, str(np.dtype(float_dtype())), stages=False)


def errors(env_id: str, states: States, ref: mujoco_c.Reference | None = None,
           env=None) -> dict[str, np.ndarray]:
    """``inject``'s stage errors plus the env step's: ``dobs`` (``[n, nobs]``, |Δobs| per
    element), ``max_rel_dobs`` (max |Δobs| / (1 + |obs|) per state) and ``dreward``."""
    return _step_errors(*inject(env_id, states, ref, env))


def _step_errors(out, ours, mujoco):
    out["dobs"] = np.abs(ours["obs"] - mujoco["obs"])
    out["max_rel_dobs"] = (out["dobs"] / (1 + np.abs(mujoco["obs"]))).max(axis=1)
    out["dreward"] = np.abs(ours["reward"] - mujoco["reward"])
    return out


def summarise(states: States, err: dict[str, np.ndarray]) -> dict[str, dict]:
    """Per family and for ``"all"``: the number of states, how many are off by more than the
    float64 bound in max |Δobs|, and per figure its max and median over the family's states
    (for ``dobs``, over all their observation elements)."""
    out = {}
    for family in (*dict.fromkeys(states.family.tolist()), "all"):
        mask = np.ones(len(states), bool) if family == "all" else states.family == family
        over = err["dobs"][mask].max(axis=1) > FLOAT64_MAX_DOBS
        figures = {name: {"max": float(values[mask].max()),
                          "median": float(np.median(values[mask]))}
                   for name, values in err.items()}
        out[family] = {"states": int(mask.sum()), "states_over_float64_bound": int(over.sum()),
                       **figures}
    return out


def check(summary: dict, dtype: str, stages: bool = True) -> list[str]:
    """The L2 bounds that ``summary`` (from ``summarise``) breaks, as messages; in float64
    the stages' bounds too unless ``stages`` is false (a summary of the env step alone)."""
    figures = summary["all"]
    failures = []

    def bound(name, stat, limit):
        if not figures[name][stat] <= limit:
            failures.append(f"{dtype} {stat} {name} {figures[name][stat]:.3g} > {limit:g}")

    if dtype == "float64":
        bound("dobs", "max", FLOAT64_MAX_DOBS)
        for name, limit in FLOAT64_STAGE_BOUND.items() if stages else ():
            bound(name, "max", limit)
        for name in COUNTS if stages else ():
            bound(name, "max", 0)
    else:
        bound("max_rel_dobs", "max", FLOAT32_MAX_REL_DOBS)
        bound("dobs", "median", FLOAT32_MEDIAN_DOBS)
        if stages:  # termination is exact in float32 too
            bound("terminated", "max", 0)
    return failures


def measure(env_id: str, n: int, seed: int = 0) -> dict:
    """States, errors and summary in this process's dtype, as one JSON-able record."""
    from jaxenvs._src.planar.locomotion import float_dtype

    start = time.perf_counter()
    ref = mujoco_c.Reference(env_id)
    states = mujoco_states(env_id, n, seed, ref)
    ours = _ours(states, env_under_test(env_id))
    summary = summarise(states, _step_errors(*_against(states, *ours, ref)))
    converged = mujoco_c.Reference(env_id, solver_tolerance=CONVERGED_TOLERANCE)
    summary_converged = summarise(states, _step_errors(*_against(states, *ours, converged)))
    dtype = str(np.dtype(float_dtype()))
    return {"env": env_id, "dtype": dtype, "states": n, "seed": seed, "summary": summary,
            "failures": check(summary, dtype), "summary_converged": summary_converged,
            "failures_converged": check(summary_converged, dtype),
            "seconds": time.perf_counter() - start}


#: Figures in the report, in order, with their headings.
REPORT_FIGURES = (("dobs", "|Δobs|"), ("max_rel_dobs", "|Δobs|/(1+|obs|)"),
                  ("dreward", "|Δreward|"), ("com", "com"), ("mass_matrix", "M"),
                  ("qfrc_smooth", "qfrc_smooth"), ("contact_dist", "contact dist"),
                  ("efc_force", "efc_force"), ("qfrc_constraint", "qfrc_constraint"),
                  ("qacc", "qacc"))


def markdown(records: list[dict], command: str) -> str:
    """The report: per dtype and family, max and median of every figure."""
    n, env_id = records[0]["states"], records[0]["env"]
    body = mujoco_c.body(env_id)
    trained = ("and the committed PPO policy's mean action chosen from MuJoCo's observations"
               if "trained" in families(env_id) else "(no trained family: no committed policy "
               "yet)")
    lines = [
        f"# {env_id} L2: one env step from MuJoCo states against MuJoCo C",
        "",
        f"{n:,} states (seed {records[0]['seed']}) from MuJoCo 4.0 rollouts of "
        f"{body.gymnasium_id}'s model (random actions, a fixed sine gait, zero actions {trained}) "
        "and edge states (resting, flipped, deep penetration, beyond joint limits). Per state: "
        "stages at the injected state against `mj_forward` as max |Δ|/(1+|MuJoCo|); then one "
        f"env step ({body.frame_skip} physics steps) against gymnasium's {body.gymnasium_id} "
        "on observation, reward (ours is float32 by design) and termination. Each cell: max / "
        "median over the family (|Δobs|: over every observation element of every state). "
        "Count mismatches of contacts, limits, constraint rows and termination are listed "
        "below each table. 'States over 1e-7': states whose max |Δobs| exceeds the float64 "
        f"bound. Produced by `{command}`.",
        "",
        f"Bounds: float64 max |Δobs| <= {FLOAT64_MAX_DOBS:g}; float32 max "
        f"|Δobs|/(1+|obs|) <= {FLOAT32_MAX_REL_DOBS:g} and median |Δobs| <= "
        f"{FLOAT32_MEDIAN_DOBS:g}. Float64 stages: "
        + ", ".join(f"{k} <= {v:g}" for k, v in FLOAT64_STAGE_BOUND.items()) + ".",
    ]
    references = (("summary", "failures", f"MuJoCo as {body.gymnasium_id} runs it (solver "
                   "tolerance 1e-8)"),
                  ("summary_converged", "failures_converged", "MuJoCo run to its minimiser "
                   f"(solver tolerance {CONVERGED_TOLERANCE:g})"))
    for record in records:
        for summary_key, failures_key, against in references:
            failures = record[failures_key]
            verdict = "all bounds met" if not failures else "FAILED: " + "; ".join(failures)
            lines += ["", f"## {record['dtype']} against {against}: {verdict}", "",
                      "| family | states | states over 1e-7 | "
                      + " | ".join(h for _, h in REPORT_FIGURES) + " |",
                      "|---|---|---|" + "---|" * len(REPORT_FIGURES)]
            for family, figures in record[summary_key].items():
                cells = [f"{figures[k]['max']:.2g} / {figures[k]['median']:.2g}"
                         for k, _ in REPORT_FIGURES]
                lines.append(f"| {family} | {figures['states']:,} | "
                             f"{figures['states_over_float64_bound']} | " + " | ".join(cells)
                             + " |")
            counts = {k: record[summary_key]["all"][k]["max"] for k in COUNTS}
            lines += ["", "Count mismatches (any state): " + ", ".join(
                f"{k} {'none' if not v else 'yes'}" for k, v in counts.items()) + "."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--env", required=True, choices=sorted(BODIES))
    parser.add_argument("--states", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--worker", action="store_true",
                        help="measure in this process's dtype and print its JSON record")
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(measure(args.env, args.states, args.seed)))
        return
    records = []
    for x64 in ("1", "0"):
        env = dict(os.environ, JAX_ENABLE_X64=x64)
        result = subprocess.run(
            [sys.executable, "-m", "jaxenvs.planar_reference.agreement", "--worker",
             "--env", args.env, "--states", str(args.states), "--seed", str(args.seed)],
            env=env, capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"worker (x64={x64}) failed:\n{result.stderr[-3000:]}")
        records.append(json.loads(result.stdout.strip().splitlines()[-1]))
        r = records[-1]
        print(f"{r['dtype']}: against MuJoCo {r['failures'] or 'all bounds met'}; against "
              f"converged MuJoCo {r['failures_converged'] or 'all bounds met'}", flush=True)
    command = (f"python -m jaxenvs.planar_reference.agreement --env {args.env} "
               f"--states {args.states}" + (f" --seed {args.seed}" if args.seed else ""))
    args.out.mkdir(parents=True, exist_ok=True)
    stem = f"{args.env.lower()}-l2"
    (args.out / f"{stem}.json").write_text(
        json.dumps({"command": command, "runs": records}, indent=1) + "\n")
    (args.out / f"{stem}.md").write_text(markdown(records, command))


if __name__ == "__main__":
    main()
