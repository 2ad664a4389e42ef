"""``jaxenvs eval ENV --checkpoint DIR``: mean episode return of a saved policy."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import jax
import numpy as np

from jaxenvs.ppo.checkpoint import config_from_description, load_checkpoint
from jaxenvs.ppo.defaults import make_env
from jaxenvs.ppo.evaluate import episode_returns
from jaxenvs.ppo.train import make_network


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("env", metavar="ENV", help="the env id the policy was trained on")
    parser.add_argument("--checkpoint", type=Path, required=True, help="folder from train")
    parser.add_argument("--episodes", type=int, default=100)
    parser.add_argument("--max-steps", type=int, default=10_000,
                        help="steps after which an unfinished episode is dropped")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--greedy", action="store_true", help="most likely action")


def run(args: argparse.Namespace) -> int:
    try:
        _, description = load_checkpoint(args.checkpoint)
        if description["env_id"] != args.env:
            raise ValueError(f"{args.checkpoint} was trained on {description['env_id']}, "
                             f"not {args.env}")
        env, env_params = make_env(args.env, **description["env_overrides"])
    except (FileNotFoundError, ValueError) as error:
        print(f"jaxenvs eval: {error}", file=sys.stderr)
        return 2
    network = make_network(config_from_description(description), env, env_params)
    obs, _ = env.reset(jax.random.key(0), env_params)
    template = network.init(jax.random.key(0), obs)
    params, _ = load_checkpoint(args.checkpoint, template)
    returns = episode_returns(network, params, env, env_params, jax.random.key(args.seed),
                              args.episodes, args.max_steps, args.greedy)
    finished = returns[np.isfinite(returns)]
    if finished.size == 0:
        print(f"no episode ended within {args.max_steps} steps")
        return 1
    print(f"{args.env}: mean return {finished.mean():.3f} +- {finished.std(ddof=1) if finished.size > 1 else 0.0:.3f} "
          f"over {finished.size} episodes ({returns.size - finished.size} unfinished)")
    return 0
