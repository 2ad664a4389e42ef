"""Instructions per env step of a jaxenvs environment's random-action rollout, under callgrind.

    python benchmarks/callgrind.py --env PokeJAX [--batch-size 64] [--steps 16]
        [--param NAME=VALUE ...] [--keep FILE]

Timed runs on a shared 2-core machine spread over 0.6-1.4 of their median from round to
round, so a change of a few percent in a step's cost cannot be told from noise by timing. An
instruction count does not vary from run to run: this script runs itself under valgrind's
callgrind with instrumentation off, compiles the rollout that ``jaxenvs bench`` times
(``bench.random_rollout`` on ``bench.random_batch``, one XLA device), runs it once, switches
instrumentation on (``callgrind_control -i on PID``) for one more run of the compiled rollout
alone, and prints where that run's instructions went, per env step:

- ``jit code``: the code XLA compiled, which has no symbols valgrind can read (``???:0x...``);
  the largest such function is, for an env that steps env by env on a CPU
  (``Environment.loop_on_cpu``: PokeJAX, TCGJax), the kernel that runs the whole batch's step;
- ``memcpy`` and ``memset``: the C library's, called by that code and by XLA's runtime
  (its copy thunks between a loop's buffers);
- ``runtime``: the rest: XLA's thunk executor, its thread pool (whose idle workers' spinning
  varies by some millions of instructions between identical runs), the allocator.

The compile runs inside valgrind (XLA compiles for the CPU that valgrind presents; AVX2 at
most) and takes some minutes; so do the two runs. Instructions are not time (an AVX2 kernel's
instruction mix is not the AVX-512 one the bench runs), but a change that removes work
removes instructions: compare counts of the same command before and after a change.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from typing import NamedTuple

#: Set in the process that valgrind runs: the rollout side of this script.
_INNER = "JAXENVS_CALLGRIND_INNER"
#: One XLA device, the plain thunk scheduler, and code valgrind can run.
XLA_FLAGS = ("--xla_force_host_platform_device_count=1 "
             "--xla_cpu_enable_concurrency_optimized_scheduler=false --xla_cpu_max_isa=AVX2")
_ROW = re.compile(r"^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(\S.*)$")


class Counts(NamedTuple):
    """Instructions of the instrumented run, by where they ran (module docstring)."""
    total: int
    kernel: int
    jit_code: int
    memcpy: int
    memset: int

    @property
    def runtime(self) -> int:
        return self.total - self.jit_code - self.memcpy - self.memset


def parse_annotation(text: str) -> Counts:
    """``Counts`` from ``callgrind_annotate``'s report (its per-function rows: count, share,
    ``file:function [object]``)."""
    total, jit, memcpy, memset = None, [], 0, 0
    for line in text.splitlines():
        row = _ROW.match(line)
        if not row:
            continue
        count, name = int(row.group(1).replace(",", "")), row.group(2)
        if "PROGRAM TOTALS" in name:
            total = count
        elif name.startswith("???:0x"):
            jit.append(count)
        elif re.search(r"mem(cpy|move)", name):
            memcpy += count
        elif "memset" in name:
            memset += count
    if total is None:
        raise ValueError("no PROGRAM TOTALS row: not a callgrind_annotate report")
    return Counts(total, max(jit, default=0), sum(jit), memcpy, memset)


def _run_rollout(env_id: str, params: dict, batch_size: int, steps: int) -> None:
    """Inside valgrind: compile and run the rollout, then run it again instrumented."""
    import jax

    import jaxenvs
    from jaxenvs import bench

    env, env_params = jaxenvs.make(env_id, **params)
    batch = bench.random_batch(env, env_params, batch_size)
    print(f"compiling {steps} steps of {batch_size} {env_id} envs under valgrind ...",
          flush=True)
    rollout = bench.random_rollout(env, env_params, steps).lower(*batch).compile()
    jax.block_until_ready(rollout(*batch))
    print("counting one run ...", flush=True)
    pid = str(os.getpid())
    subprocess.run(["callgrind_control", "-i", "on", pid], check=True, capture_output=True)
    jax.block_until_ready(rollout(*batch))
    subprocess.run(["callgrind_control", "-i", "off", pid], check=True, capture_output=True)


def main(argv: list[str] | None = None) -> int:
    from jaxenvs import bench

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", required=True, help="environment id, e.g. PokeJAX")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--steps", type=int, default=16, help="steps in the counted run")
    parser.add_argument("--param", action="append", default=[], type=bench.parse_param,
                        metavar="NAME=VALUE", help="override an env parameter (repeatable)")
    parser.add_argument("--keep", metavar="FILE",
                        help="write callgrind's profile here (for callgrind_annotate)")
    args = parser.parse_args(argv)
    if os.environ.get(_INNER):
        _run_rollout(args.env, dict(args.param), args.batch_size, args.steps)
        return 0
    missing = [t for t in ("valgrind", "callgrind_control", "callgrind_annotate")
               if shutil.which(t) is None]
    if missing:
        parser.error(f"{', '.join(missing)} not found: install valgrind "
                     "(e.g. `apt install valgrind`)")
    with tempfile.TemporaryDirectory() as tmp:
        out = args.keep or os.path.join(tmp, "callgrind.out")
        env = {**os.environ, _INNER: "1", "XLA_FLAGS": XLA_FLAGS}
        subprocess.run(["valgrind", "--tool=callgrind", "--instr-atstart=no",
                        f"--callgrind-out-file={out}", sys.executable, os.path.abspath(__file__),
                        *(argv if argv is not None else sys.argv[1:])],
                       env=env, check=True, stderr=subprocess.DEVNULL)
        report = subprocess.run(["callgrind_annotate", out], check=True,
                                capture_output=True, text=True).stdout
    counts = parse_annotation(report)
    env_steps = args.batch_size * args.steps
    print(f"{args.env}: {args.steps} steps of {args.batch_size} envs, instructions "
          f"(per env step):")
    for name, count in (("total", counts.total), ("kernel", counts.kernel),
                        ("jit code", counts.jit_code), ("memcpy", counts.memcpy),
                        ("memset", counts.memset), ("runtime", counts.runtime)):
        print(f"  {name:9s} {count:14,d} ({count / env_steps:9,.0f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
