"""``jaxenvs eval ENV --checkpoint DIR``: mean episode return of a saved policy."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from jaxenvs.bench import parse_param
from jaxenvs.ppo.policy import TrainedPolicy


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("env", metavar="ENV", help="the env id the policy was trained on")
    parser.add_argument("--checkpoint", type=Path, required=True, help="folder from train")
    parser.add_argument("--episodes", type=int, default=100)
    parser.add_argument("--max-steps", type=int, default=10_000,
                        help="steps after which an unfinished episode is dropped")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--greedy", action="store_true", help="most likely action")
    parser.add_argument("--param", metavar="NAME=VALUE", type=parse_param, action="append",
                        default=[], help="env parameter override on top of the training "
                                         "run's, e.g. opponent=2 (repeatable)")


def run(args: argparse.Namespace) -> int:
    try:
        policy = TrainedPolicy.load(args.checkpoint, args.env, dict(args.param))
    except (FileNotFoundError, ValueError) as error:
        print(f"jaxenvs eval: {error}", file=sys.stderr)
        return 2
    returns = policy.env_returns(args.episodes, args.seed, args.max_steps, args.greedy)
    finished = returns[np.isfinite(returns)]
    if finished.size == 0:
        print(f"no episode ended within {args.max_steps} steps")
        return 1
    print(f"{args.env}: mean return {finished.mean():.3f} +- {finished.std(ddof=1) if finished.size > 1 else 0.0:.3f} "
          f"over {finished.size} episodes ({returns.size - finished.size} unfinished)")
    return 0
