"""Record what ``benchmarks/device_check.py`` replays on a machine without Node or MuJoCo.

    python tools/device_check_fixtures.py [--out benchmarks/fixtures]

Writes, from the references themselves (Node with the pinned Showdown, MuJoCo's C library):

- ``pokejax-battles.jsonl.gz``: ``BATTLES`` standard random battles played in Showdown
  (``battles.random_battles``: teams, seeds, choices and Showdown's report after every
  decision), which the JAX engine must replay exactly;
- ``halfcheetah-states.npz``: ``STATES`` states of every L2 family (``agreement.mujoco_states``)
  and gymnasium's env step from each (``agreement.GymnasiumStep``: ``obs``, ``reward``), which
  one env step must match within the L2 bounds.

Pong's golden runs (``jaxenvs/pong/golden/``) and TCGJax's Python reference need no fixture.
Both files are deterministic in their content: ``tests/test_device_check_fixtures.py`` checks
that the committed ones are what this script writes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "fixtures"
BATTLES = 32
STATES = 370
SEED = 11
BATTLES_FILE = "pokejax-battles.jsonl.gz"
STATES_FILE = "halfcheetah-states.npz"


def record_battles(path: Path, count: int = BATTLES) -> None:
    from jaxenvs.pokejax.reference import ShowdownProcess
    from jaxenvs.pokejax.reference.battles import random_battles, save_trajectories

    with ShowdownProcess() as showdown:
        save_trajectories(path, random_battles(showdown, range(count)))


def halfcheetah_arrays(count: int = STATES, seed: int = SEED) -> dict[str, np.ndarray]:
    """The states and MuJoCo's env step from each, as ``halfcheetah-states.npz`` holds them."""
    from jaxenvs.planar_reference import agreement, mujoco_c

    ref = mujoco_c.Reference("HalfCheetah")
    states = agreement.mujoco_states("HalfCheetah", count, seed, ref)
    step = agreement.GymnasiumStep(ref)
    steps = [step(q, v, c) for q, v, c in zip(states.qpos, states.qvel, states.ctrl)]
    return {"family": states.family.astype(str), "qpos": states.qpos, "qvel": states.qvel,
            "ctrl": states.ctrl, "obs": np.array([s[0] for s in steps]),
            "reward": np.array([s[1] for s in steps])}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help="folder (default: %(default)s)")
    args = parser.parse_args(argv)
    if args.out.exists() and not args.out.is_dir():
        parser.error(f"--out {args.out} exists and is not a folder")
    args.out.mkdir(parents=True, exist_ok=True)
    record_battles(args.out / BATTLES_FILE)
    np.savez_compressed(args.out / STATES_FILE, **halfcheetah_arrays())
    print(f"wrote {args.out / BATTLES_FILE} and {args.out / STATES_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
