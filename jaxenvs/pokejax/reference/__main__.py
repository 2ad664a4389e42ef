"""Speed of the reference: ``python -m jaxenvs.pokejax.reference [--battles N]``.

Prints decision steps per second of random-vs-random ``gen1randombattle`` battles (the standard
battles of ``battles.py``) in one Node process: played inside Node without reports (one JSON
roundtrip per battle), inside Node with a full report per step, and driven from Python one
``choose`` per step; and the time of one JSON-line roundtrip of a trivial command.
"""

from __future__ import annotations

import argparse
import time

from jaxenvs.pokejax.reference.battles import battle_inputs, random_battles
from jaxenvs.pokejax.reference.driver import ShowdownProcess


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--battles", type=int, default=200)
    args = parser.parse_args(argv)
    n = args.battles
    with ShowdownProcess() as sd:
        list(random_battles(sd, range(5), record=False))  # warm up the JIT and the Dex caches
        rows = []
        for label, record in (("in Node, no reports", False), ("in Node, full reports", True)):
            t0 = time.perf_counter()
            steps = sum(t.num_decisions for t in random_battles(sd, range(n), record=record))
            rows.append((label, steps, time.perf_counter() - t0))
        trajectories = list(random_battles(sd, range(n // 4), record=True))
        t0 = time.perf_counter()
        steps = 0
        for i, traj in enumerate(trajectories):
            seed, teams, _ = battle_inputs(i)
            steps += sd.replay(seed, teams, traj.choices).num_decisions
        rows.append(("from Python, one choose per step", steps, time.perf_counter() - t0))
        for label, steps, secs in rows:
            print(f"{label:34s} {steps:7d} steps in {secs:6.2f} s: {steps / secs:8.0f} steps/s")
        t0 = time.perf_counter()
        for _ in range(2000):
            sd.call("version")
        micros = (time.perf_counter() - t0) / 2000 * 1e6
        print(f"JSON-line roundtrip (trivial command): {micros:.0f} us")


if __name__ == "__main__":
    main()
