"""How long a jaxenvs environment's random-action rollout takes to compile the first time.

    python benchmarks/compile_time.py --env HalfCheetah [--batch-sizes 1 64 1024 4096]
        [--processes 5] [--steps 16] [--param NAME=VALUE ...] [--out DIR]
        [--cpu-devices N|auto]

``jaxenvs bench`` reports the compile of the rollout it times, which is the second in its
process: a calibration run compiles one first, so JAX's caches already hold the env step's
trace. A user's first ``jit`` pays for tracing too. So here every measurement runs in a fresh
Python process, which makes the env, resets a batch and compiles the rollout that ``jaxenvs
bench`` times (``bench.random_rollout``, the batch split over the devices as there), timing
JAX's tracing, its lowering to StableHLO and XLA's compile separately. The processes run one at
a time, the batch sizes interleaved, so that the machine's drift spreads over all of them.
Writes ``<env>-<device>-compile.{md,json}`` (``benchmarks/results/`` by default): per batch
size, the least, median and greatest total, and the median of each phase.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import jaxenvs
from jaxenvs import bench
from jaxenvs.devices import ENV_VAR, add_cpu_devices_option, use_cpu_devices

PHASES = ("trace_seconds", "lower_seconds", "xla_seconds")


def first_compile(env_id: str, batch_size: int, num_steps: int,
                  param_overrides: dict) -> dict[str, float]:
    """Compile ``num_steps`` random-action steps of ``batch_size`` envs in this process:
    ``{"trace_seconds", "lower_seconds", "xla_seconds", "total_seconds"}``. Meant for a
    process that has compiled nothing of this env's step yet."""
    import jax

    env, params = jaxenvs.make(env_id, **param_overrides)
    sharding = bench.batch_sharding(batch_size)
    batch = jax.device_put(bench.random_batch(env, params, batch_size), sharding)
    rollout = bench.random_rollout(env, params, num_steps, sharding)
    start = time.perf_counter()
    traced = rollout.trace(*batch)
    traced_at = time.perf_counter()
    lowered = traced.lower()
    lowered_at = time.perf_counter()
    lowered.compile()
    done = time.perf_counter()
    return {"trace_seconds": traced_at - start, "lower_seconds": lowered_at - traced_at,
            "xla_seconds": done - lowered_at, "total_seconds": done - start}


def _in_fresh_process(args: argparse.Namespace, batch_size: int, devices: int) -> dict:
    command = [sys.executable, str(Path(__file__).resolve()), "--env", args.env,
               "--steps", str(args.steps), "--worker", str(batch_size),
               *(f"--param={name}={value}" for name, value in args.param)]
    result = subprocess.run(command, env={**os.environ, ENV_VAR: str(devices)},
                            capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"batch {batch_size}: the measuring process failed:\n"
                           f"{result.stderr[-3000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def summary(runs: list[dict]) -> dict[str, float]:
    """Least, median and greatest total of ``runs``, and each phase's median."""
    totals = [r["total_seconds"] for r in runs]
    return {"processes": len(runs), "total_min": min(totals),
            "total_median": statistics.median(totals), "total_max": max(totals),
            **{f"{phase}_median": statistics.median(r[phase] for r in runs)
               for phase in PHASES}}


def markdown(env_id: str, batch_sizes: list[int], runs: dict[int, list[dict]], context: dict,
             command: str) -> str:
    columns = [summary(runs[b]) for b in batch_sizes]

    def row(label: str, key: str, fmt: str = "{:.2f}") -> str:
        return f"| {label} | " + " | ".join(fmt.format(c[key]) for c in columns) + " |"

    return "\n".join([
        f"# {env_id}: first compile of the random-action rollout",
        "",
        "Each measurement in a fresh Python process: make the env, reset the batch, then trace, "
        "lower and compile the rollout `jaxenvs bench` times (`bench.random_rollout`, "
        "`env.step` with auto-reset, the batch split over the devices). `jaxenvs bench` "
        "reports the second compile in its process. Seconds.",
        "",
        "| batch size | " + " | ".join(str(b) for b in batch_sizes) + " |",
        "| --- |" + " --: |" * len(batch_sizes),
        row("fresh processes", "processes", "{:d}"),
        row("total, least", "total_min"),
        row("total, median", "total_median"),
        row("total, greatest", "total_max"),
        row("tracing (median)", "trace_seconds_median"),
        row("lowering (median)", "lower_seconds_median"),
        row("XLA compile (median)", "xla_seconds_median"),
        "",
        *bench.fresh_process_notes(command, context),
    ]) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", metavar="ENV", required=True, help="environment id")
    parser.add_argument("--batch-sizes", metavar="N", type=int, nargs="+",
                        default=list(bench.DEFAULT_BATCH_SIZES))
    parser.add_argument("--processes", metavar="P", type=int, default=5,
                        help="fresh processes per batch size (default: %(default)s)")
    parser.add_argument("--steps", metavar="N", type=int, default=bench.MIN_STEPS,
                        help="scan steps of the compiled rollout (default: %(default)s)")
    parser.add_argument("--param", metavar="NAME=VALUE", type=bench.parse_param,
                        action="append", default=[])
    parser.add_argument("--out", metavar="DIR", type=Path,
                        default=Path(__file__).resolve().parent / "results")
    parser.add_argument("--worker", metavar="BATCH", type=int, help=argparse.SUPPRESS)
    add_cpu_devices_option(parser, default="auto")
    args = parser.parse_args(argv)
    if args.worker is not None:
        print(json.dumps(first_compile(args.env, args.worker, args.steps, dict(args.param))))
        return 0
    if min(args.batch_sizes) < 1 or args.processes < 1 or args.steps < 1:
        parser.error("batch sizes, processes and steps must be >= 1")
    params = dict(args.param)
    try:  # an unknown id or parameter: say so here, not in each measuring process
        jaxenvs.make(args.env, **params)
    except ValueError as error:
        parser.error(str(error))
    use_cpu_devices(args.cpu_devices, restart_command=argv is None)
    context = bench.run_context()
    runs: dict[int, list[dict]] = {b: [] for b in args.batch_sizes}
    for process in range(args.processes):
        for batch_size in args.batch_sizes:
            run = _in_fresh_process(args, batch_size, context["device_count"])
            runs[batch_size].append(run)
            print(f"{args.env} batch {batch_size:>6}, process {process + 1}/{args.processes}: "
                  f"{run['total_seconds']:.2f} s (trace {run['trace_seconds']:.2f}, lower "
                  f"{run['lower_seconds']:.2f}, XLA {run['xla_seconds']:.2f})", flush=True)
    command = ("python benchmarks/compile_time.py --env " + args.env + " --batch-sizes "
               + " ".join(map(str, args.batch_sizes)) + f" --processes {args.processes}"
               + "".join(f" --param {name}={value}" for name, value in args.param))
    stem = bench.result_stem(args.env, params, bench.device_tag(context)) + "-compile"
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{stem}.json").write_text(json.dumps(
        {"context": context, "command": command, "steps": args.steps,
         "runs": {str(b): r for b, r in runs.items()}}, indent=2) + "\n")
    (args.out / f"{stem}.md").write_text(
        markdown(args.env, args.batch_sizes, runs, context, command))
    print(f"wrote {args.out / stem}.json and .md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
