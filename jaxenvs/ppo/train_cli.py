"""``jaxenvs train ENV``: train PPO with progress output; write checkpoint, metrics and plot.

The whole run is one jitted ``train(key)``; each update reports its metrics to the host
through ``jax.debug.callback``, which prints a progress line every ``--log-every`` updates
(steps, steps per second, mean episode return). At the end it writes, into ``--out``:
the checkpoint (``params.msgpack`` + ``checkpoint.json``), ``metrics.json`` (per update),
and ``learning_curve.png`` (if matplotlib is installed).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path
from typing import Any

import jax
import numpy as np

from jaxenvs.bench import parse_param
from jaxenvs.devices import add_cpu_devices_option
from jaxenvs.ppo.checkpoint import save_checkpoint
from jaxenvs.ppo.defaults import default_config, make_env
from jaxenvs.ppo.sharding import maybe_initialize_distributed
from jaxenvs.ppo.train import make_train


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("env", metavar="ENV", help="jaxenvs or gymnax id, e.g. Pong, CartPole-v1")
    parser.add_argument("--total-steps", type=int, default=None,
                        help="environment steps in all (default: the env's default config)")
    parser.add_argument("--num-envs", type=int, default=None, help="parallel environments")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None,
                        help="output folder (default: runs/<ENV>-seed<SEED>)")
    parser.add_argument("--log-every", type=int, default=10, help="updates between lines")
    parser.add_argument("--param", metavar="NAME=VALUE", type=parse_param, action="append",
                        default=[], help="env parameter override (repeatable)")
    parser.add_argument("--set", metavar="NAME=VALUE", type=parse_param, action="append",
                        default=[], help="PPOConfig field override, e.g. learning_rate=1e-3")
    parser.add_argument("--distributed", action="store_true",
                        help="multi-host run: call jax.distributed.initialize() (configured "
                             "from the cluster environment) and train over every host's devices")
    add_cpu_devices_option(parser, default=None)


class Progress:
    """Host-side receiver of per-update metrics: prints lines and keeps the history."""

    def __init__(self, steps_per_update: int, num_updates: int, log_every: int):
        self.steps_per_update = steps_per_update
        self.num_updates = num_updates
        self.log_every = max(1, log_every)
        self.history: list[dict[str, float]] = []
        self.start = time.perf_counter()

    def __call__(self, update: Any, metrics: dict[str, Any]) -> None:
        index = int(update) + 1
        row = {name: float(value) for name, value in metrics.items()}
        row["update"] = index
        row["steps"] = index * self.steps_per_update
        row["seconds"] = time.perf_counter() - self.start
        self.history.append(row)
        if index % self.log_every == 0 or index == self.num_updates:
            recent = [r["episode_return"] for r in self.history[-self.log_every:]
                      if np.isfinite(r["episode_return"])]
            mean_return = f"{np.mean(recent):8.2f}" if recent else "     n/a"
            print(f"update {index:5d}/{self.num_updates}  steps {row['steps']:>11,}  "
                  f"{row['steps'] / row['seconds']:>10,.0f} steps/s (incl. compile)  "
                  f"return {mean_return}  entropy {row['entropy']:.3f}", flush=True)


def save_learning_curve(history: list[dict[str, float]], path: Path, title: str) -> bool:
    """Plot mean episode return against steps; ``False`` if matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    steps = np.array([r["steps"] for r in history])
    returns = np.array([r["episode_return"] for r in history])
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(steps, returns, lw=1.5)
    ax.set_xlabel("environment steps")
    ax.set_ylabel("mean episode return")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True


def run(args: argparse.Namespace) -> int:
    maybe_initialize_distributed(args.distributed)
    try:
        env_overrides = dict(args.param)
        env, env_params = make_env(args.env, **env_overrides)
        changes = dict(args.set)
        if args.total_steps is not None:
            changes["total_timesteps"] = args.total_steps
        if args.num_envs is not None:
            changes["num_envs"] = args.num_envs
        config = dataclasses.replace(default_config(args.env), **changes)
    except (ValueError, TypeError) as error:
        print(f"jaxenvs train: {error}", file=sys.stderr)
        return 2
    out = args.out or Path("runs") / f"{args.env}-seed{args.seed}"
    progress = Progress(config.batch_size, config.num_updates, args.log_every)
    print(f"training PPO on {args.env}: {config.num_updates} updates of "
          f"{config.num_envs} envs x {config.num_steps} steps on {jax.device_count()} "
          f"{jax.devices()[0].platform} device(s)", flush=True)
    train = jax.jit(make_train(config, env, env_params, on_update=progress))
    output = jax.block_until_ready(train(jax.random.key(args.seed)))
    seconds = time.perf_counter() - progress.start
    out.mkdir(parents=True, exist_ok=True)
    obs_stats = None
    if config.normalize_observations:  # shared by the batch: every env holds the same copy
        obs_stats = jax.tree.map(lambda x: x[0], output["env_state"].obs_stats)
    save_checkpoint(out, output["train_state"].params, env_id=args.env,
                    env_overrides=env_overrides, config=config, obs_stats=obs_stats)
    progress.history.sort(key=lambda row: row["update"])  # callbacks may arrive unordered
    (out / "metrics.json").write_text(json.dumps(progress.history, indent=1) + "\n")
    plotted = save_learning_curve(progress.history, out / "learning_curve.png",
                                  f"PPO on {args.env}, seed {args.seed}")
    total = config.num_updates * config.batch_size
    print(f"done: {total:,} steps in {seconds:.1f} s ({total / seconds:,.0f} steps/s incl. "
          f"compile); wrote {out}/ (checkpoint, metrics.json"
          f"{', learning_curve.png' if plotted else ''})", flush=True)
    return 0
