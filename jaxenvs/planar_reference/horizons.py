"""L3: how long rollouts from the same state under the same actions stay close to MuJoCo C.

For each seed, a HalfCheetah-v5 reset state (``qpos ~ U(-0.1, 0.1)``, ``qvel ~ 0.1 N(0, 1)``)
and two action sequences (zero actions, and actions uniform in [-1, 1]) drive MuJoCo's C
library (gymnasium's model, float64, warm start carried as in gymnasium) and an engine under
test from that same state. The *horizon* of a rollout is the number of env steps before the
first one whose observation differs from MuJoCo's by more than the tolerance in max norm
(1e-3 in float64, 5e-3 in float32); a rollout that never does has the full length.

Engines: ours (``locomotion.physics_step``) and MJX (``mujoco-mjx``, ``frame_skip`` x ``mjx.step``),
each in float32 and float64, plus MuJoCo C against itself with ``qpos`` nudged by 1e-12 (the
chaos of the contacts: how long *any* two float64 implementations can agree) and by 1e-7
(float32's resolution near 1: how long a float32 implementation can be expected to agree,
measured against the float32 tolerance). Each
(engine, dtype) runs in its own subprocess, since float64 in JAX must be switched on when a
process starts.

``python -m jaxenvs.halfcheetah.reference.horizons --seeds 20``, run from the repository root,
writes ``benchmarks/results/halfcheetah-horizons.{json,md}`` (``--out DIR`` elsewhere); most of
its time is MJX's. Other seed counts and lengths write
``halfcheetah-horizons-{seeds}-seeds-{steps}-steps.{json,md}`` beside it, so that a wider survey
(``--seeds 1000 --steps 60``: how often chaos alone ends a rollout's agreement early) does not
replace the report; a target longer than the rollouts is left out of the report's table.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from jaxenvs.halfcheetah.reference import mujoco_c
from jaxenvs.planar_reference import speed

#: Max |obs difference| that counts as "still matched", per dtype (the L3 bounds).
TOLERANCE = {"float64": 1e-3, "float32": 5e-3}
#: The L3 targets: minimum horizon per (dtype, policy) on every seed.
TARGET = {("float64", "zero"): 1000, ("float64", "random"): 40, ("float32", "random"): 10}
POLICIES = ("zero", "random")
#: (engine, dtype) runs, in the report's order.
RUNS = (("ours", "float64"), ("mjx", "float64"), ("mujoco-nudged", "float64"),
        ("ours", "float32"), ("mjx", "float32"), ("mujoco-nudged", "float32"))
#: ``mujoco-nudged``'s nudge of ``qpos`` per dtype: far below float64's rounding in the
#: physics, and float32's machine epsilon (1.2e-7) in round figures. The run itself is
#: MuJoCo C in float64; the dtype names the tolerance it is measured against.
NUDGE = {"float64": 1e-12, "float32": 1e-7}
RESULTS = Path("benchmarks/results")


def initial_state(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The reset state of ``seed`` (HalfCheetah-v5's reset noise)."""
    rng = np.random.default_rng(seed)
    return rng.uniform(-0.1, 0.1, 9), 0.1 * rng.normal(size=9)


def actions(seed: int, policy: str, steps: int) -> np.ndarray:
    """``[steps, 6]`` actions of ``policy`` ("zero" or "random": uniform in [-1, 1])."""
    if policy == "zero":
        return np.zeros((steps, 6))
    return np.random.default_rng([seed, 1]).uniform(-1, 1, (steps, 6))


def mujoco_rollout(seed: int, policy: str, steps: int, nudge: float = 0.0) -> np.ndarray:
    """MuJoCo C's observations ``[steps, 17]`` after each env step."""
    qpos, qvel = initial_state(seed)
    qpos_t, qvel_t = mujoco_c.Reference().rollout(qpos + nudge, qvel,
                                                    actions(seed, policy, steps))
    return mujoco_c.observation(qpos_t[1:], qvel_t[1:])


def ours_rollouts(qpos: np.ndarray, qvel: np.ndarray, acts: np.ndarray, dtype) -> np.ndarray:
    """Our observations ``[batch, steps, 17]`` from states ``[batch, 9]`` under
    ``acts[batch, steps, 6]``, in ``dtype``."""
    import jax
    import jax.numpy as jnp

    from jaxenvs._src.planar.locomotion import physics_step
    from jaxenvs.halfcheetah._src.model import HALF_CHEETAH

    def rollout(q, v, a):
        def body(carry, action):
            q, v, *_ = physics_step(HALF_CHEETAH, *carry, action, mujoco_c.FRAME_SKIP)
            return (q, v), jnp.concatenate([q[1:], v])
        return jax.lax.scan(body, (q, v), a)[1]

    run = jax.jit(jax.vmap(rollout))
    return np.asarray(run(*(jnp.asarray(x, dtype) for x in (qpos, qvel, acts))), np.float64)


def mjx_rollouts(qpos: np.ndarray, qvel: np.ndarray, acts: np.ndarray, dtype) -> np.ndarray:
    """MJX's observations ``[batch, steps, 17]``, as ``ours_rollouts``. MJX's data is cast
    to the dtypes ``mjx.step`` returns (float64 under x64 needs it)."""
    import jax
    import jax.numpy as jnp
    from mujoco import mjx

    model = mjx.put_model(mujoco_c.load_model())
    data0 = mjx.make_data(model)
    probe = jax.jit(mjx.step)(model, data0)
    data0 = jax.tree.map(lambda x, like: jnp.asarray(x, like.dtype), data0, probe)

    def rollout(q, v, a):
        def substeps(data, action):
            data = data.replace(ctrl=action)
            data = jax.lax.fori_loop(0, mujoco_c.FRAME_SKIP,
                                     lambda _, d: mjx.step(model, d), data)
            return data, jnp.concatenate([data.qpos[1:], data.qvel])
        return jax.lax.scan(substeps, data0.replace(qpos=q, qvel=v), a)[1]

    run = jax.jit(jax.vmap(rollout))
    return np.asarray(run(*(jnp.asarray(x, dtype) for x in (qpos, qvel, acts))), np.float64)


def horizon(deviation: np.ndarray, tolerance: float) -> int:
    """Env steps before the first whose deviation exceeds ``tolerance`` (all: ``len``)."""
    beyond = np.nonzero(deviation > tolerance)[0]
    return int(beyond[0]) if len(beyond) else len(deviation)


def deviations(engine: str, dtype: str, seeds, steps: int,
               policies=POLICIES) -> dict[str, np.ndarray]:
    """Per policy, ``[len(seeds), steps]`` max |obs difference| from MuJoCo C after each env
    step (``seeds``: a sequence of seeds)."""
    out = {}
    for policy in policies:
        expected = np.array([mujoco_rollout(s, policy, steps) for s in seeds])
        if engine == "mujoco-nudged":
            got = np.array([mujoco_rollout(s, policy, steps, NUDGE[dtype]) for s in seeds])
        else:
            states = [initial_state(s) for s in seeds]
            qpos, qvel = (np.array([st[i] for st in states]) for i in (0, 1))
            acts = np.array([actions(s, policy, steps) for s in seeds])
            run = {"ours": ours_rollouts, "mjx": mjx_rollouts}[engine]
            got = run(qpos, qvel, acts, dtype)
        out[policy] = np.abs(got - expected).max(axis=-1)
    return out


def _worker(engine: str, dtype: str, seeds: int, steps: int) -> dict:
    start = time.perf_counter()
    dev = deviations(engine, dtype, range(seeds), steps)
    return {"engine": engine, "dtype": dtype, "tolerance": TOLERANCE[dtype],
            "horizons": {p: [horizon(d, TOLERANCE[dtype]) for d in dev[p]] for p in POLICIES},
            "max_deviation_first_10": {p: float(dev[p][:, :10].max()) for p in POLICIES},
            "max_deviation_first_40": {p: float(dev[p][:, :40].max()) for p in POLICIES},
            "seconds": time.perf_counter() - start}


def run_all(seeds: int, steps: int, dtypes=tuple(TOLERANCE)) -> list[dict]:
    """Every run of ``RUNS`` in ``dtypes``, each in a subprocess with x64 set as its dtype
    needs."""
    records = []
    for engine, dtype in RUNS:
        if dtype not in dtypes:
            continue
        env = dict(os.environ, JAX_ENABLE_X64="1" if dtype == "float64" else "0")
        if engine == "mjx":  # see ``speed``: MJX can hang on CPU without it
            env["XLA_FLAGS"] = f"{env.get('XLA_FLAGS', '')} {speed.XLA_FLAG}".strip()
        command = [sys.executable, "-m", "jaxenvs.halfcheetah.reference.horizons", "--worker",
                   engine, dtype, "--seeds", str(seeds), "--steps", str(steps)]
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


def markdown(records: list[dict], seeds: int, steps: int, command: str) -> str:
    """The report: horizon distribution per engine, dtype and policy, next to the targets."""
    lines = [
        "# HalfCheetah L3: rollout horizons against MuJoCo C",
        "",
        f"Seeds 0-{seeds - 1}, {steps} env steps from each seed's HalfCheetah-v5 reset state, "
        "zero actions and uniform random actions in [-1, 1]. Horizon: env steps before the "
        "first observation off MuJoCo C's (float64, warm start carried) by more than the "
        "tolerance in max norm (float64: 1e-3, float32: 5e-3); "
        f"{steps} means it never was. `mujoco-nudged`: MuJoCo C (float64) against itself "
        f"with qpos nudged by {NUDGE['float64']:g} (the chaos bound, float64 row) and by "
        f"{NUDGE['float32']:g} (float32's resolution, float32 row). Produced by `{command}`.",
        "",
        "| engine | dtype | policy | target (every seed) | min | median | max | seeds meeting "
        "target | max dev. first 10 | max dev. first 40 |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in records:
        for policy in POLICIES:
            h = np.array(r["horizons"][policy])
            target = TARGET.get((r["dtype"], policy))
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
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--dtypes", nargs="+", choices=tuple(TOLERANCE),
                        default=list(TOLERANCE))
    parser.add_argument("--worker", nargs=2, metavar=("ENGINE", "DTYPE"),
                        help="run one (engine, dtype) here and print its JSON record")
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(_worker(*args.worker, args.seeds, args.steps)))
        return
    records = run_all(args.seeds, args.steps, args.dtypes)
    command = f"python -m jaxenvs.halfcheetah.reference.horizons --seeds {args.seeds}" + (
        f" --steps {args.steps}" if args.steps != 1000 else "") + (
        f" --dtypes {' '.join(args.dtypes)}" if set(args.dtypes) != set(TOLERANCE) else "")
    stem = "halfcheetah-horizons" + (
        "" if (args.seeds, args.steps) == (20, 1000)
        else f"-{args.seeds}-seeds-{args.steps}-steps")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{stem}.json").write_text(json.dumps(
        {"seeds": args.seeds, "steps": args.steps, "command": command, "runs": records},
        indent=1) + "\n")
    (args.out / f"{stem}.md").write_text(markdown(records, args.seeds, args.steps, command))


if __name__ == "__main__":
    main()
