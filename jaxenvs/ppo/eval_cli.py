"""``jaxenvs eval ENV --checkpoint DIR``: mean episode return of a saved policy."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import jax
import numpy as np

from jaxenvs.ppo.checkpoint import config_from_description, load_checkpoint, load_obs_stats
from jaxenvs.ppo.defaults import make_env
from jaxenvs.ppo.evaluate import episode_returns
from jaxenvs.ppo.train import make_network
from jaxenvs.wrappers import NormalizeObservation, RunningMeanStd


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("env", metavar="ENV", help="the env id the policy was trained on")
    parser.add_argument("--checkpoint", type=Path, required=True, help="folder from train")
    parser.add_argument("--episodes", type=int, default=100)
    parser.add_argument("--max-steps", type=int, default=10_000,
                        help="steps after which an unfinished episode is dropped")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--greedy", action="store_true", help="most likely action")


def load_policy(env_id: str, checkpoint: Path):
    """``(env, env_params, network, params)`` of a checkpoint trained on ``env_id``; the env
    normalizes observations with the saved, frozen statistics if the run did."""
    _, description = load_checkpoint(checkpoint)
    if description["env_id"] != env_id:
        raise ValueError(f"{checkpoint} was trained on {description['env_id']}, not {env_id}")
    env, env_params = make_env(env_id, **description["env_overrides"])
    config = config_from_description(description)
    network = make_network(config, env, env_params)
    obs, _ = env.reset(jax.random.key(0), env_params)
    params, _ = load_checkpoint(checkpoint, network.init(jax.random.key(0), obs))
    if config.normalize_observations:
        stats = load_obs_stats(checkpoint, RunningMeanStd.for_observation(obs))
        env = NormalizeObservation(env, frozen_stats=stats)
    return env, env_params, network, params


def run(args: argparse.Namespace) -> int:
    try:
        env, env_params, network, params = load_policy(args.env, args.checkpoint)
    except (FileNotFoundError, ValueError) as error:
        print(f"jaxenvs eval: {error}", file=sys.stderr)
        return 2
    returns = episode_returns(network, params, env, env_params, jax.random.key(args.seed),
                              args.episodes, args.max_steps, args.greedy)
    finished = returns[np.isfinite(returns)]
    if finished.size == 0:
        print(f"no episode ended within {args.max_steps} steps")
        return 1
    print(f"{args.env}: mean return {finished.mean():.3f} +- {finished.std(ddof=1) if finished.size > 1 else 0.0:.3f} "
          f"over {finished.size} episodes ({returns.size - finished.size} unfinished)")
    return 0
