"""Where a jaxenvs environment's random-action step spends its time on XLA:CPU.

    python benchmarks/profile.py --env TCGJax2P [--batch-size 1024] [--steps 50] [--top 25]
        [--param NAME=VALUE ...] [--vmapped]
    python benchmarks/profile.py --env TCGJax2P --twice jaxenvs.tcgjax._src.engine.legal_action_mask
        [--twice MODULE.FUNCTION ...] [--batch-size 1024] [--steps 50] [--rounds 10]

Prints XLA's cost analysis of one env step per env (elementwise operations, bytes read and
written, state size), then a profile of one run of ``--steps`` steps of the batch that
``jaxenvs bench`` times: exclusive op time by op kind and by env source line, with the op
time per env step (``benchmarks/profiling.py``). The CPU is one XLA device (one op thread), so
the figures are one core's.

An env that steps env by env on a CPU (``Environment.loop_on_cpu``: PokeJAX, TCGJax) runs its
whole step as one XLA:CPU kernel, which XLA's profile shows as a single op; ``--vmapped``
profiles the ``vmap`` form instead, the fast path off (``JAXENVS_CPU_KERNELS=0``) as on a GPU
(every branch run for every env, selects between them), whose ops tell which rules cost the
most. ``--twice`` looks inside the kernel instead:
for each function named, the time that computing it a second time adds to the rollout, timed
in alternation with the unchanged one (``profiling.marginal_costs``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=1")

import jaxenvs  # noqa: E402
import profiling  # noqa: E402  (benchmarks/profiling.py)
from jaxenvs import bench  # noqa: E402


def _table(title: str, seconds: dict[str, float], total: float, top: int) -> None:
    print(f"\n{title}")
    for name, value in sorted(seconds.items(), key=lambda kv: -kv[1])[:top]:
        print(f"  {value * 1e3:9.2f} ms {100 * value / total:5.1f}%  {name}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", required=True, help="environment id, e.g. PokeJAX2P")
    parser.add_argument("--batch-size", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=20, help="steps in the profiled run")
    parser.add_argument("--top", type=int, default=25, help="rows per table")
    parser.add_argument("--param", action="append", default=[], type=bench.parse_param,
                        metavar="NAME=VALUE", help="override an env parameter (repeatable)")
    parser.add_argument("--vmapped", action="store_true",
                        help="profile the vmap form (the fast path off, as on a GPU)")
    parser.add_argument("--twice", action="append", default=[], metavar="MODULE.FUNCTION",
                        help="measure what computing this function of the step twice adds "
                             "(repeatable), instead of the profile")
    parser.add_argument("--rounds", type=int, default=10,
                        help="--twice: timed rounds, each running every variant once")
    args = parser.parse_args(argv)
    env, params = jaxenvs.make(args.env, **dict(args.param))
    if args.twice:
        return _marginal(env, params, args)
    if args.vmapped:
        # the plain form everywhere, as on a GPU: the gate reads this at each trace
        os.environ["JAXENVS_CPU_KERNELS"] = "0"
    elif getattr(env, "loop_on_cpu", False):
        print(f"{args.env} steps env by env in one kernel on a CPU (loop_on_cpu): its "
              "ops below are that kernel; --vmapped profiles the vmap form by op")
    cost = profiling.step_cost(env, params, args.batch_size)
    print(f"{args.env}, batch {args.batch_size}: XLA's cost of one env step, per env: "
          f"{cost.flops:,.0f} elementwise ops, {cost.bytes_accessed:,.0f} bytes accessed "
          f"(state: {cost.state_bytes:,.0f} bytes); loop bodies counted once")
    print(f"profiling {args.steps} steps of {args.batch_size} envs ...", flush=True)
    result = profiling.profile(env, params, args.batch_size, args.steps)
    print(f"op time {result.total * 1e3:.1f} ms: {result.total / result.env_steps * 1e6:.2f} "
          f"us per env step ({result.env_steps / result.total / 1e3:.1f}k env steps per "
          f"op-thread second)")
    _table("by op kind", result.by_kind, result.total, args.top)
    _table("by env source line (a fusion split over its instructions' lines)",
           result.by_source, result.total, args.top)
    return 0


def _marginal(env, params, args: argparse.Namespace) -> int:
    print(f"{env.name}, batch {args.batch_size}, {args.steps} steps a run, {args.rounds} "
          "rounds: each function computed twice against the unchanged rollout", flush=True)
    costs = profiling.marginal_costs(env, params, args.twice, args.batch_size, args.steps,
                                     args.rounds, progress=lambda line: print(line, flush=True))
    print(f"  unchanged rollout: {costs[0].base_ns_per_env_step:,.0f} ns per env step")
    for cost in costs:
        print(f"  {cost.function}: {cost.ns_per_env_step:+,.0f} ns per env step; time "
              f"ratio per round median {statistics.median(cost.ratios):.3f} "
              f"({min(cost.ratios):.3f}-{max(cost.ratios):.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
