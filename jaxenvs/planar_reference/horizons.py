"""L3: how long rollouts from the same state under the same actions stay close to MuJoCo C, for
each planar body.

For each seed, a reset state of the body's ``-v5`` env (``initial_state``) and two action
sequences (zero actions, and actions uniform in [-1, 1]) drive MuJoCo's C library
(gymnasium's model, float64, warm start carried as in gymnasium, its solver run to the
minimiser: ``REFERENCE_TOLERANCE``) and an engine under test from that same state. The *horizon* of a rollout is the number of env steps before the first
one whose state ``(qpos[1:], qvel)`` (HalfCheetah's observation; Hopper's and Walker2d's
before their velocity clip) differs from MuJoCo's by more than the tolerance in max norm
(1e-3 in float64, 5e-3 in float32); a rollout that never does has the full length. The
rollouts are physics only: no termination, so a body that falls keeps being compared.

Engines: ours (``locomotion.physics_step``) and MJX (``mujoco-mjx``, ``frame_skip`` x ``mjx.step``),
each in float32 and float64, plus MuJoCo C against itself with ``qpos`` nudged by 1e-12 (the
chaos of the contacts: how long *any* two float64 implementations can agree) and by 1e-7
(float32's resolution near 1: how long a float32 implementation can be expected to agree,
measured against the float32 tolerance), and MuJoCo C as gymnasium runs it
(``mujoco-default``: its solver's default tolerance, 1e-8 on the cost's improvement). The
reference runs to the minimiser because the default's early stops, different from step to
step, end its own agreement with the minimiser early on some seeds (Walker2d after 20 steps
of zero actions): an engine that solves exactly, as ours does, can only follow one of the
two. Each (engine, dtype) runs in its own subprocess, since float64 in JAX must be switched
on when a process starts.

``python -m jaxenvs.planar_reference.horizons --env HalfCheetah --seeds 20``, run from the
repository root, writes ``benchmarks/results/halfcheetah-horizons.{json,md}`` (``--out DIR``
elsewhere); most of its time is MJX's. Other seed counts and lengths write
``halfcheetah-horizons-{seeds}-seeds-{steps}-steps.{json,md}`` beside it, so that a wider survey
(``--seeds 1000 --steps 60``: how often chaos alone ends a rollout's agreement early) does not
replace the report; a target longer than the rollouts is left out of the report's table.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from jaxenvs.planar_reference import mujoco_c, speed
from jaxenvs.planar_reference.bodies import BODIES

#: Max |obs difference| that counts as "still matched", per dtype (the L3 bounds).
TOLERANCE = {"float64": 1e-3, "float32": 5e-3}
#: The L3 targets per body: minimum horizon per (dtype, policy) on every seed. Float64: in
#: round figures, the shortest horizon over the report's 20 seeds of the reference against
#: itself nudged (``mujoco-nudged``: HalfCheetah 39, Hopper 841, Walker2d 528 random-action
#: steps), where no engine can do better. Float32: HalfCheetah's likewise (7); for Hopper and
#: Walker2d, whose float32 rollouts leave the reference far earlier than a nudge at float32's
#: resolution does, MuJoCo's own float32 port's shortest (``mjx``: 91 and 42 steps, ours
#: the same on the same seeds).
TARGET = {
    "HalfCheetah": {("float64", "zero"): 1000, ("float64", "random"): 40,
                    ("float32", "random"): 10},
    "Hopper": {("float64", "zero"): 1000, ("float64", "random"): 800,
               ("float32", "random"): 90},
    "Walker2d": {("float64", "zero"): 1000, ("float64", "random"): 500,
                 ("float32", "random"): 40},
}
POLICIES = ("zero", "random")
#: (engine, dtype) runs, in the report's order.
RUNS = (("ours", "float64"), ("mjx", "float64"), ("mujoco-nudged", "float64"),
        ("mujoco-default", "float64"), ("ours", "float32"), ("mjx", "float32"),
        ("mujoco-nudged", "float32"), ("mujoco-default", "float32"))
#: The reference's solver tolerance: MuJoCo run to its minimiser (``agreement``'s converged
#: reference).
REFERENCE_TOLERANCE = 1e-15
#: ``mujoco-nudged``'s nudge of ``qpos`` per dtype: far below float64's rounding in the
#: physics, and float32's machine epsilon (1.2e-7) in round figures. The run itself is
#: MuJoCo C in float64; the dtype names the tolerance it is measured against.
NUDGE = {"float64": 1e-12, "float32": 1e-7}
RESULTS = Path("benchmarks/results")


@functools.cache
def _sizes(env_id: str) -> tuple[np.ndarray, int, int]:
    """``(qpos0, nv, nu)`` of the body's MuJoCo model."""
    model = mujoco_c.load_model(env_id)
    return model.qpos0.copy(), model.nv, model.nu


def initial_state(env_id: str, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The reset state of ``seed``, drawn from the ``-v5`` env's reset noise:
    HalfCheetah ``U(-0.1, 0.1)`` on ``qpos`` and ``0.1 N(0, 1)`` on ``qvel``; Hopper and
    Walker2d ``U(-0.005, 0.005)`` on both, around ``qpos0``."""
    qpos0, nv, _ = _sizes(env_id)
    rng = np.random.default_rng(seed)
    if env_id == "HalfCheetah":
        return qpos0 + rng.uniform(-0.1, 0.1, len(qpos0)), 0.1 * rng.normal(size=nv)
    return qpos0 + rng.uniform(-5e-3, 5e-3, len(qpos0)), rng.uniform(-5e-3, 5e-3, nv)


def actions(env_id: str, seed: int, policy: str, steps: int) -> np.ndarray:
    """``[steps, nu]`` actions of ``policy`` ("zero" or "random": uniform in [-1, 1])."""
    nu = _sizes(env_id)[2]
    if policy == "zero":
        return np.zeros((steps, nu))
    return np.random.default_rng([seed, 1]).uniform(-1, 1, (steps, nu))


def state_vector(qpos: np.ndarray, qvel: np.ndarray) -> np.ndarray:
    """``(qpos[1:], qvel)`` along the last axis: what the rollouts compare."""
    return np.concatenate([qpos[..., 1:], qvel], axis=-1)


def mujoco_rollout(env_id: str, seed: int, policy: str, steps: int, nudge: float = 0.0,
                   solver_tolerance: float | None = REFERENCE_TOLERANCE) -> np.ndarray:
    """MuJoCo C's ``state_vector`` ``[steps, nq - 1 + nv]`` after each env step, its solver
    at ``solver_tolerance`` (``None``: the model's default, as gymnasium runs it)."""
    qpos, qvel = initial_state(env_id, seed)
    ref = mujoco_c.Reference(env_id, solver_tolerance)
    qpos_t, qvel_t = ref.rollout(qpos + nudge, qvel, actions(env_id, seed, policy, steps))
    return state_vector(qpos_t[1:], qvel_t[1:])


def ours_rollouts(env_id: str, qpos: np.ndarray, qvel: np.ndarray, acts: np.ndarray,
                  dtype) -> np.ndarray:
    """Our ``state_vector`` ``[batch, steps, nq - 1 + nv]`` from states ``qpos``, ``qvel``
    ``[batch, nq]`` under ``acts[batch, steps, nu]``, in ``dtype``."""
    import jax
    import jax.numpy as jnp

    import jaxenvs
    from jaxenvs._src.planar.locomotion import physics_step

    model, frame_skip = jaxenvs.make(env_id)[0].model, BODIES[env_id].frame_skip

    def rollout(q, v, a):
        def body(carry, action):
            q, v, *_ = physics_step(model, *carry, action, frame_skip)
            return (q, v), jnp.concatenate([q[1:], v])
        return jax.lax.scan(body, (q, v), a)[1]

    run = jax.jit(jax.vmap(rollout))
    return np.asarray(run(*(jnp.asarray(x, dtype) for x in (qpos, qvel, acts))), np.float64)


def mjx_rollouts(env_id: str, qpos: np.ndarray, qvel: np.ndarray, acts: np.ndarray,
                 dtype) -> np.ndarray:
    """MJX's ``state_vector`` ``[batch, steps, nq - 1 + nv]``, as ``ours_rollouts``. MJX's
    data is cast to the dtypes ``mjx.step`` returns (float64 under x64 needs it)."""
    import jax
    import jax.numpy as jnp
    from mujoco import mjx

    frame_skip = BODIES[env_id].frame_skip
    model = mjx.put_model(mujoco_c.load_model(env_id))
    data0 = mjx.make_data(model)
    probe = jax.jit(mjx.step)(model, data0)
    data0 = jax.tree.map(lambda x, like: jnp.asarray(x, like.dtype), data0, probe)

    def rollout(q, v, a):
        def substeps(data, action):
            data = data.replace(ctrl=action)
            data = jax.lax.fori_loop(0, frame_skip,
                                     lambda _, d: mjx.step(model, d), data)
            return data, jnp.concatenate([data.qpos[1:], data.qvel])
        return jax.lax.scan(substeps, data0.replace(qpos=q, qvel=v), a)[1]

    run = jax.jit(jax.vmap(rollout))
    return np.asarray(run(*(jnp.asarray(x, dtype) for x in (qpos, qvel, acts))), np.float64)


def horizon(deviation: np.ndarray, tolerance: float) -> int:
    """Env steps before the first whose deviation exceeds ``tolerance`` (all: ``len``)."""
    beyond = np.nonzero(deviation > tolerance)[0]
    return int(beyond[0]) if len(beyond) else len(deviation)


def deviations(env_id: str, engine: str, dtype: str, seeds, steps: int,
               policies=POLICIES) -> dict[str, np.ndarray]:
    """Per policy, ``[len(seeds), steps]`` max |state difference| from MuJoCo C after each
    env step (``seeds``: a sequence of seeds)."""
    out = {}
    for policy in policies:
        expected = np.array([mujoco_rollout(env_id, s, policy, steps) for s in seeds])
        if engine == "mujoco-nudged":
            got = np.array([mujoco_rollout(env_id, s, policy, steps, NUDGE[dtype])
                            for s in seeds])
        elif engine == "mujoco-default":
            got = np.array([mujoco_rollout(env_id, s, policy, steps, solver_tolerance=None)
                            for s in seeds])
        else:
            states = [initial_state(env_id, s) for s in seeds]
            qpos, qvel = (np.array([st[i] for st in states]) for i in (0, 1))
            acts = np.array([actions(env_id, s, policy, steps) for s in seeds])
            run = {"ours": ours_rollouts, "mjx": mjx_rollouts}[engine]
            got = run(env_id, qpos, qvel, acts, dtype)
        out[policy] = np.abs(got - expected).max(axis=-1)
    return out


def _worker(env_id: str, engine: str, dtype: str, seeds: int, steps: int) -> dict:
    start = time.perf_counter()
    dev = deviations(env_id, engine, dtype, range(seeds), steps)
    return {"engine": engine, "dtype": dtype, "tolerance": TOLERANCE[dtype],
            "horizons": {p: [horizon(d, TOLERANCE[dtype]) for d in dev[p]] for p in POLICIES},
            "max_deviation_first_10": {p: float(dev[p][:, :10].max()) for p in POLICIES},
            "max_deviation_first_40": {p: float(dev[p][:, :40].max()) for p in POLICIES},
            "seconds": time.perf_counter() - start}


def run_all(env_id: str, seeds: int, steps: int, dtypes=tuple(TOLERANCE)) -> list[dict]:
    """Every run of ``RUNS`` in ``dtypes``, each in a subprocess with x64 set as its dtype
    needs."""
    records = []
    for engine, dtype in RUNS:
        if dtype not in dtypes:
            continue
        env = dict(os.environ, JAX_ENABLE_X64="1" if dtype == "float64" else "0")
        if engine == "mjx":  # see ``speed``: MJX can hang on CPU without it
            env["XLA_FLAGS"] = f"{env.get('XLA_FLAGS', '')} {speed.XLA_FLAG}".strip()
        command = [sys.executable, "-m", "jaxenvs.planar_reference.horizons", "--env", env_id,
                   "--worker", engine, dtype, "--seeds", str(seeds), "--steps", str(steps)]
        result = subprocess.run(command, env=env, capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"{engine} {dtype} failed:\n{result.stderr[-3000:]}")
        records.append(json.loads(result.stdout.strip().splitlines()[-1]))
        print(_summary_line(records[-1]), flush=True)
    return records


def _summary_line(record: dict) -> str:
    parts = [f"{record['engine']} {record['dtype']}"]
    for policy in POLICIES:
        h = np.array(record["horizons"][policy])
        parts.append(f"{policy}: min {h.min()} median {np.median(h):g} max {h.max()}")
    return " | ".join(parts)


def markdown(env_id: str, records: list[dict], seeds: int, steps: int, command: str) -> str:
    """The report: horizon distribution per engine, dtype and policy, next to the targets."""
    lines = [
        f"# {env_id} L3: rollout horizons against MuJoCo C",
        "",
        f"Seeds 0-{seeds - 1}, {steps} env steps from each seed's {env_id}-v5 reset state, "
        "zero actions and uniform random actions in [-1, 1], physics only (no termination). "
        "Horizon: env steps before the first state `(qpos[1:], qvel)` off MuJoCo C's "
        "(float64, warm start carried, its solver run to the minimiser: tolerance "
        f"{REFERENCE_TOLERANCE:g}) by more than the tolerance in max norm (float64: 1e-3, "
        f"float32: 5e-3); {steps} means it never was. `mujoco-nudged`: the reference against "
        f"itself with qpos nudged by {NUDGE['float64']:g} (the chaos bound, float64 row) and "
        f"by {NUDGE['float32']:g} (float32's resolution, float32 row). `mujoco-default`: MuJoCo "
        "C as gymnasium runs it (solver tolerance 1e-8), against the reference. Produced by "
        f"`{command}`.",
        "",
        "| engine | dtype | policy | target (every seed) | min | median | max | seeds meeting "
        "target | max dev. first 10 | max dev. first 40 |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in records:
        for policy in POLICIES:
            h = np.array(r["horizons"][policy])
            target = TARGET[env_id].get((r["dtype"], policy))
            if target is not None and target > steps:
                target = None  # not measurable in rollouts this short
            met = "" if target is None else f"{int(np.sum(h >= target))}/{len(h)}"
            lines.append(
                f"| {r['engine']} | {r['dtype']} | {policy} | "
                f"{'' if target is None else f'>= {target}'} | {h.min()} | "
                f"{np.median(h):g} | {h.max()} | {met} | "
                f"{r['max_deviation_first_10'][policy]:.2g} | "
                f"{r['max_deviation_first_40'][policy]:.2g} |")
    lines += ["", "Horizons per seed:", ""]
    for r in records:
        for policy in POLICIES:
            lines.append(f"- {r['engine']} {r['dtype']} {policy}: {r['horizons'][policy]}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--env", required=True, choices=sorted(BODIES))
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--dtypes", nargs="+", choices=tuple(TOLERANCE),
                        default=list(TOLERANCE))
    parser.add_argument("--worker", nargs=2, metavar=("ENGINE", "DTYPE"),
                        help="run one (engine, dtype) here and print its JSON record")
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(_worker(args.env, *args.worker, args.seeds, args.steps)))
        return
    records = run_all(args.env, args.seeds, args.steps, args.dtypes)
    command = (f"python -m jaxenvs.planar_reference.horizons --env {args.env} "
               f"--seeds {args.seeds}") + (
        f" --steps {args.steps}" if args.steps != 1000 else "") + (
        f" --dtypes {' '.join(args.dtypes)}" if set(args.dtypes) != set(TOLERANCE) else "")
    stem = f"{args.env.lower()}-horizons" + (
        "" if (args.seeds, args.steps) == (20, 1000)
        else f"-{args.seeds}-seeds-{args.steps}-steps")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{stem}.json").write_text(json.dumps(
        {"seeds": args.seeds, "steps": args.steps, "command": command, "runs": records},
        indent=1) + "\n")
    (args.out / f"{stem}.md").write_text(markdown(args.env, records, args.seeds, args.steps,
                                                  command))


if __name__ == "__main__":
    main()
