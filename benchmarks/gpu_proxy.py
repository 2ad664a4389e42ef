"""The GPU path's cost, measured on the CPU: each env's plain ``vmap`` form on one XLA device.

    python benchmarks/gpu_proxy.py [--envs Pong HalfCheetah PokeJAX TCGJax]
        [--batch-sizes 4096 16384] [--steps 8] [--repeats 3] [--baseline REV] [--out DIR]

A GPU runs every env as a plain ``vmap``: every branch of every rule for every env, selects
between them. On a CPU that form is what runs with the fast path switched off
(``JAXENVS_CPU_KERNELS=0``), and its cost there is a proxy for its cost on a GPU. Per env and
batch size, in a fresh process with one XLA device and the switch off, this script compiles the
rollout ``jaxenvs bench`` times (``bench.random_rollout``: random legal actions, the full
``env.step`` with auto-reset) and reports:

- steps per second (median of ``--repeats`` timed runs of ``--steps`` steps, after one untimed);
- from XLA's cost analysis of the compiled one-step rollout, the bytes accessed and the flops
  per env step;
- the kernels of that one step in the compiled program: fusions and while loops.

``--baseline REV`` measures the git revision ``REV`` (a worktree checked out in a temporary
folder, imported in place of this tree) in the same run, cell by cell in alternation with this
tree, so that a change to an engine is compared with what it replaces on the same machine at
the same time. Writes ``gpu-proxy.{md,json}`` (``benchmarks/results/`` by default).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import jaxenvs
from jaxenvs import bench

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_ENVS = ("Pong", "HalfCheetah", "PokeJAX", "TCGJax")
DEFAULT_BATCH_SIZES = (4096, 16384)
#: What the measuring processes run with: the plain ``vmap`` form on one XLA device.
WORKER_ENV = {"JAXENVS_CPU_KERNELS": "0", "JAX_NUM_CPU_DEVICES": "1", "JAX_PLATFORMS": "cpu"}
#: An instruction of the compiled HLO that runs as a kernel of its own.
_FUSION = re.compile(r"^\s*(?:ROOT )?%\S+ = .*? fusion\(", re.M)
_WHILE = re.compile(r"^\s*(?:ROOT )?%\S+ = .*? while\(", re.M)


def kernel_counts(hlo_text: str) -> dict[str, int]:
    """Fusions and while loops in a compiled program's HLO text."""
    return {"fusions": len(_FUSION.findall(hlo_text)), "while_loops": len(_WHILE.findall(hlo_text))}


def measure(env_id: str, batch_size: int, num_steps: int, repeats: int) -> dict:
    """One cell, in this process (meant for a fresh one set up as ``WORKER_ENV`` says)."""
    import jax

    env, params = jaxenvs.make(env_id)
    batch = bench.random_batch(env, params, batch_size)
    one_step = bench.random_rollout(env, params, 1).lower(*batch).compile()
    cost = one_step.cost_analysis()
    cost = cost[0] if isinstance(cost, list) else cost
    start = time.perf_counter()
    rollout = bench.random_rollout(env, params, num_steps).lower(*batch).compile()
    compile_seconds = time.perf_counter() - start
    jax.block_until_ready(rollout(*batch))
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        jax.block_until_ready(rollout(*batch))
        seconds.append(time.perf_counter() - start)
    return {"env_id": env_id, "batch_size": batch_size, "num_steps": num_steps,
            "run_seconds": seconds,
            "sps_median": batch_size * num_steps / statistics.median(seconds),
            "compile_seconds": compile_seconds,
            "bytes_per_env_step": cost.get("bytes accessed", 0.0) / batch_size,
            "flops_per_env_step": cost.get("flops", 0.0) / batch_size,
            **kernel_counts(one_step.as_text()),
            "package": str(Path(jaxenvs.__file__).parent), "devices": len(jax.devices())}


def _in_fresh_process(env_id: str, batch_size: int, args: argparse.Namespace,
                      package_root: Path | None) -> dict:
    environ = {**os.environ, **WORKER_ENV}
    if package_root is not None:  # the baseline's jaxenvs in place of this tree's
        environ["PYTHONPATH"] = os.pathsep.join(
            [str(package_root), *filter(None, [os.environ.get("PYTHONPATH")])])
    command = [sys.executable, str(Path(__file__).resolve()), "--worker", env_id,
               str(batch_size), "--steps", str(args.steps), "--repeats", str(args.repeats)]
    # The worker runs in a neutral folder so that only PYTHONPATH decides which jaxenvs loads.
    result = subprocess.run(command, env=environ, capture_output=True, text=True,
                            cwd=tempfile.gettempdir())
    if result.returncode != 0:
        raise RuntimeError(f"{env_id} at {batch_size} envs: the measuring process failed:\n"
                           f"{result.stderr[-3000:]}")
    record = json.loads(result.stdout.strip().splitlines()[-1])
    expected = (package_root or ROOT) / "jaxenvs"
    if Path(record["package"]).resolve() != expected.resolve() or record["devices"] != 1:
        raise RuntimeError(f"the measuring process ran {record['package']} on "
                           f"{record['devices']} device(s), not {expected} on one")
    return record


def _format(value: float) -> str:
    for scale, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= scale:
            return f"{value / scale:.3g}{suffix}"
    return f"{value:.3g}"


def markdown(records: list[dict], command: str, context: dict) -> str:
    """The results table, one row per env, tree and batch size."""
    lines = [
        "# The GPU path on the CPU: each env's `vmap` form, one XLA device",
        "",
        "The rollout `jaxenvs bench` times (random legal actions, `env.step` with auto-reset), "
        "with the XLA:CPU fast path off (`JAXENVS_CPU_KERNELS=0`), each cell in a fresh "
        "process. Bytes and flops per env step are XLA's cost analysis of the compiled one-step "
        "rollout divided by the batch; fusions and while loops are that program's kernels.",
        "",
        "| env | tree | batch | steps/s | bytes / env step | flops / env step | fusions "
        "| while loops | compile s |",
        "| --- | --- | --: | --: | --: | --: | --: | --: | --: |",
    ]
    for r in records:
        lines.append(
            f"| {r['env_id']} | {r['tree']} | {r['batch_size']} | {_format(r['sps_median'])} "
            f"| {_format(r['bytes_per_env_step'])} | {_format(r['flops_per_env_step'])} "
            f"| {r['fusions']} | {r['while_loops']} | {r['compile_seconds']:.1f} |")
    lines += ["", f"- Produced by `{command}`.", *bench.context_lines(context)]
    return "\n".join(lines) + "\n"


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout.strip()


def _this_tree() -> str:
    """This tree's label: its commit, and whether files differ from it."""
    changed = ", uncommitted changes" if _git("status", "--porcelain", "--untracked-files=no") else ""
    return f"this tree ({_git('rev-parse', '--short', 'HEAD')}{changed})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envs", metavar="ENV", nargs="+", default=list(DEFAULT_ENVS))
    parser.add_argument("--batch-sizes", metavar="N", type=int, nargs="+",
                        default=list(DEFAULT_BATCH_SIZES))
    parser.add_argument("--steps", metavar="N", type=int, default=8,
                        help="scan steps of each timed run (default: %(default)s)")
    parser.add_argument("--repeats", metavar="R", type=int, default=3,
                        help="timed runs per cell (default: %(default)s)")
    parser.add_argument("--baseline", metavar="REV",
                        help="a git revision measured beside this tree, cell by cell")
    parser.add_argument("--out", metavar="DIR", type=Path, default=ROOT / "benchmarks" / "results")
    parser.add_argument("--worker", nargs=2, metavar=("ENV", "BATCH"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(measure(args.worker[0], int(args.worker[1]), args.steps, args.repeats)))
        return 0
    if min(args.batch_sizes) < 1 or args.steps < 1 or args.repeats < 1:
        parser.error("batch sizes, steps and repeats must be >= 1")
    unknown = sorted(set(args.envs) - set(jaxenvs.registered_envs))
    if unknown:
        parser.error(f"unknown env id(s) {unknown}; registered: {jaxenvs.registered_envs}")
    if args.out.exists() and not args.out.is_dir():
        parser.error(f"--out {args.out} exists and is not a folder")
    args.out.mkdir(parents=True, exist_ok=True)
    context = bench.run_context()
    with tempfile.TemporaryDirectory() as scratch:
        trees: list[tuple[str, Path | None]] = [(_this_tree(), None)]
        if args.baseline:
            worktree = Path(scratch) / "baseline"
            try:
                subprocess.run(["git", "worktree", "add", "--detach", str(worktree),
                                args.baseline], cwd=ROOT, check=True, capture_output=True,
                               text=True)
            except subprocess.CalledProcessError as error:
                parser.error(f"--baseline {args.baseline}: {error.stderr.strip()}")
            trees.insert(0, (f"baseline ({_git('rev-parse', '--short', args.baseline)})",
                             worktree))
        records = []
        try:
            for env_id in args.envs:
                for batch_size in args.batch_sizes:
                    for label, root in trees:
                        record = {"tree": label,
                                  **_in_fresh_process(env_id, batch_size, args, root)}
                        records.append(record)
                        print(f"{env_id} {label} batch {batch_size}: "
                              f"{_format(record['sps_median'])} steps/s, "
                              f"{_format(record['bytes_per_env_step'])} B/env step, "
                              f"{record['fusions']} fusions, {record['while_loops']} loops",
                              flush=True)
        finally:
            if args.baseline:
                subprocess.run(["git", "worktree", "remove", "--force", str(worktree)],
                               cwd=ROOT, capture_output=True)
    command = "python benchmarks/gpu_proxy.py " + " ".join(
        sys.argv[1:] if argv is None else argv)
    (args.out / "gpu-proxy.json").write_text(json.dumps(
        {"command": command, "context": context, "records": records}, indent=1) + "\n")
    (args.out / "gpu-proxy.md").write_text(markdown(records, command, context))
    print(f"wrote {args.out / 'gpu-proxy.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
