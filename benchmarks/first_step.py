"""Time to first step: a fresh Python process imports jaxenvs, makes an env, resets it and
takes one step, cold (an empty persistent compilation cache) and warm (the cache that the cold
process filled).

    python benchmarks/first_step.py [--envs Pong PokeJAX ...] [--warm 2] [--out DIR]

Each process turns the cache on as the ``jaxenvs`` command does
(``jaxenvs/_src/compilation_cache.py``), in a cache folder of its own per env, and runs the
quick start's calls: ``jaxenvs.make``, ``env.reset`` and ``env.step`` of one env (jitted, not
vmapped). The time is the process's wall time from its start to its exit, measured by this
script; the process also reports its import and its first step apart. Writes
``first-step-<device>.{md,json}`` (``benchmarks/results/`` by default).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def first_step(env_id: str) -> dict[str, float]:
    """In this process: import, make, reset and step ``env_id`` once, with the compilation
    cache on; ``{"import_seconds", "first_step_seconds"}``."""
    start = time.perf_counter()
    import jax

    import jaxenvs
    from jaxenvs._src import compilation_cache

    compilation_cache.enable()
    imported = time.perf_counter()
    env, params = jaxenvs.make(env_id)
    key = jax.random.key(0)
    _, state = env.reset(key, params)
    action = env.action_space(params).sample(key)
    jax.block_until_ready(env.step(key, state, action, params))
    return {"import_seconds": imported - start,
            "first_step_seconds": time.perf_counter() - imported}


def _in_fresh_process(env_id: str, cache: Path) -> dict[str, float]:
    command = [sys.executable, str(Path(__file__).resolve()), "--worker", env_id]
    start = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True,
                            env={**os.environ, "XDG_CACHE_HOME": str(cache),
                                 "JAXENVS_COMPILATION_CACHE": "1"})
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        raise RuntimeError(f"{env_id}: the measuring process failed:\n{result.stderr[-3000:]}")
    return {**json.loads(result.stdout.strip().splitlines()[-1]), "process_seconds": seconds}


def measure(env_id: str, warm_runs: int) -> dict:
    """The cold process and ``warm_runs`` warm ones of ``env_id``, in a new cache folder."""
    with tempfile.TemporaryDirectory(prefix="jaxenvs-first-step-") as cache:
        cold = _in_fresh_process(env_id, Path(cache))
        warm = [_in_fresh_process(env_id, Path(cache)) for _ in range(warm_runs)]
    return {"env_id": env_id, "cold": cold, "warm": warm}


def markdown(rows: list[dict], context: dict, command: str) -> str:
    from jaxenvs import bench

    def warm(row: dict, key: str) -> float:
        return statistics.median(run[key] for run in row["warm"])

    return "\n".join([
        "# Time to first step, cold and warm",
        "",
        "A fresh Python process: import jaxenvs, `jaxenvs.make`, `env.reset`, one `env.step` "
        "(one env, jitted), with JAX's persistent compilation cache on as the `jaxenvs` "
        "command turns it on. Cold: the cache empty; warm: the cache the cold process filled "
        "(median of the warm processes). Seconds, the process's wall time from start to exit; "
        "import and first step are the process's own figures.",
        "",
        "| env | cold | warm | cold: import | cold: first step | warm: first step |",
        "| --- | --: | --: | --: | --: | --: |",
        *(f"| {r['env_id']} | {r['cold']['process_seconds']:.1f} | "
          f"{warm(r, 'process_seconds'):.1f} | {r['cold']['import_seconds']:.1f} | "
          f"{r['cold']['first_step_seconds']:.1f} | {warm(r, 'first_step_seconds'):.1f} |"
          for r in rows),
        "",
        *bench.fresh_process_notes(command, context),
    ]) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envs", metavar="ENV", nargs="+", default=None,
                        help="env ids (default: every registered env)")
    parser.add_argument("--warm", metavar="N", type=int, default=2,
                        help="warm processes per env (default: %(default)s)")
    parser.add_argument("--out", metavar="DIR", type=Path, default=RESULTS)
    parser.add_argument("--worker", metavar="ENV", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker is not None:
        print(json.dumps(first_step(args.worker)))
        return 0
    import jaxenvs
    from jaxenvs import bench

    envs = args.envs or list(jaxenvs.registered_envs)
    unknown = [env_id for env_id in envs if env_id not in jaxenvs.registered_envs]
    if unknown or args.warm < 1:
        parser.error(f"unknown env ids {unknown}" if unknown else "--warm must be >= 1")
    context = bench.run_context()
    rows = []
    for env_id in envs:
        row = measure(env_id, args.warm)
        rows.append(row)
        print(f"{env_id}: cold {row['cold']['process_seconds']:.1f} s, warm "
              + ", ".join(f"{run['process_seconds']:.1f}" for run in row["warm"]) + " s",
              flush=True)
    command = ("python benchmarks/first_step.py --envs " + " ".join(envs)
               + f" --warm {args.warm}")
    stem = f"first-step-{bench.device_tag(context)}"
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{stem}.json").write_text(json.dumps(
        {"context": context, "command": command, "rows": rows}, indent=2) + "\n")
    (args.out / f"{stem}.md").write_text(markdown(rows, context, command))
    print(f"wrote {args.out / stem}.json and .md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
