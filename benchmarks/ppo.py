"""End-to-end PPO training throughput, and how much of it the environment takes.

    python benchmarks/ppo.py [--envs Pong CartPole-v1] [--batch-sizes 64 256 1024]
        [--networks small medium large] [--updates 4] [--repeats 3] [--out DIR]

For each env, batch size ``B`` (``num_envs``) and network size, two programs, each one
``jit``, each compiled and run once untimed before ``--repeats`` timed runs (median kept):

* **training**: ``make_train`` with the env's default ``PPOConfig`` but ``num_envs=B``, the
  network's hidden sizes and ``--updates`` updates: rollouts, GAE and the minibatch epochs.
  Training SPS = env steps / seconds.
* **env only**: the same rollouts, ``updates * num_steps`` scan steps of ``vmap(env.step)``
  over ``B`` envs with the same per-step key splitting, but the network replaced by a fixed
  action (all zeros), so nothing but the environment runs.

Both split the envs over all visible devices as the trainer does (on a CPU host,
``JAX_NUM_CPU_DEVICES=N`` gives N devices). The env share of training time is (env-only
seconds) / (training seconds) for the same number of steps. Results go to
``benchmarks/results/ppo-<device>.{json,md}``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
from jaxenvs.bench import device_tag, format_sps, run_context
from jaxenvs.ppo.defaults import default_config, make_env
from jaxenvs.ppo.sharding import make_mesh
from jaxenvs.ppo.train import batched_env, make_train

#: Hidden layer widths of the actor and of the critic, by name.
NETWORKS = {"small": (64, 64), "medium": (256, 256), "large": (512, 512, 512),
            # About 205M parameters (actor and critic), a large model's share of a GPU's time.
            "200m": (7168, 7168, 7168)}


def env_only_rollout(env, env_params, num_envs: int, num_steps: int):
    """A jitted ``key -> final states``: ``num_steps`` steps of ``num_envs`` envs with a
    fixed all-zeros action, the trainer's per-step key splitting and its split of the envs
    over all devices (each stepping its share: the trainer's ``batched_env``)."""
    space = env.action_space(env_params)
    action = jnp.zeros((num_envs,) + tuple(space.shape), space.dtype)
    reset, step = batched_env(env, env_params, make_mesh())

    def body(carry, _):
        state, key = carry
        key, _, step_key = jax.random.split(key, 3)
        _, state, reward, terminated, truncated, _ = step(
            jax.random.split(step_key, num_envs), state, action)
        return (state, key), (reward, terminated, truncated)

    def rollout(key):
        reset_key, key = jax.random.split(key)
        _, state = reset(jax.random.split(reset_key, num_envs))
        return jax.lax.scan(body, (state, key), None, length=num_steps)

    return jax.jit(rollout)


def time_program(program, repeats: int) -> tuple[float, float]:
    """``(compile-and-first-run seconds, median seconds of the timed runs)``."""
    start = time.perf_counter()
    jax.block_until_ready(program(jax.random.key(0)))
    first = time.perf_counter() - start
    seconds = []
    for repeat in range(repeats):
        start = time.perf_counter()
        jax.block_until_ready(program(jax.random.key(repeat + 1)))
        seconds.append(time.perf_counter() - start)
    return first, statistics.median(seconds)


def measure(env_id: str, batch_size: int, network: str, updates: int,
            repeats: int) -> dict[str, Any]:
    """One row: training and env-only SPS and the env share for these settings."""
    env, env_params = make_env(env_id)
    config = dataclasses.replace(default_config(env_id), num_envs=batch_size,
                                 hidden_sizes=NETWORKS[network])
    config = dataclasses.replace(config, total_timesteps=updates * config.batch_size)
    steps = config.num_updates * config.batch_size
    train_first, train_seconds = time_program(
        jax.jit(make_train(config, env, env_params)), repeats)
    env_first, env_seconds = time_program(
        env_only_rollout(env, env_params, batch_size, config.num_updates * config.num_steps),
        repeats)
    return {
        "env_id": env_id, "batch_size": batch_size, "network": network,
        "hidden_sizes": list(config.hidden_sizes), "num_steps": config.num_steps,
        "updates": config.num_updates, "update_epochs": config.update_epochs,
        "num_minibatches": config.num_minibatches, "env_steps": steps, "repeats": repeats,
        "train_seconds": train_seconds, "train_sps": steps / train_seconds,
        "train_compile_and_first_run_seconds": train_first,
        "env_seconds": env_seconds, "env_sps": steps / env_seconds,
        "env_compile_and_first_run_seconds": env_first,
        "env_share": env_seconds / train_seconds,
    }


def format_table(records: list[dict[str, Any]], context: dict[str, Any]) -> str:
    """The markdown report: one row per env, batch size and network."""
    lines = [
        "# PPO training throughput and the environment's share of it", "",
        "Training SPS: env steps per second of `make_train` (rollouts + GAE + minibatch "
        "epochs) in one `jit`; env-only SPS: the same rollouts with a fixed action instead of "
        "the network; env share = env-only time / training time. Median of "
        f"{records[0]['repeats']} timed runs after a compile-and-warm-up run.", "",
        "| env | batch | network (hidden) | updates x steps | training SPS | env-only SPS "
        "| env share | training compile + first run (s) |",
        "|---|--:|---|--:|--:|--:|--:|--:|",
    ]
    for r in records:
        hidden = "x".join(str(h) for h in r["hidden_sizes"])
        lines.append(
            f"| {r['env_id']} | {r['batch_size']} | {r['network']} ({hidden}) | "
            f"{r['updates']} x {r['num_steps']} | {format_sps(r['train_sps'])} | "
            f"{format_sps(r['env_sps'])} | {100 * r['env_share']:.1f}% | "
            f"{r['train_compile_and_first_run_seconds']:.1f} |")
    lines += [
        "",
        f"- Date (UTC): {context['date_utc']}",
        f"- Machine: {context['cpu_model']}, {context['cpu_cores']} cores, "
        f"{context['memory_gib']} GiB memory; cores this process may use: "
        f"{context['cpu_affinity']}",
        f"- Device: {context['platform']} ({context['device_kind']}) x "
        f"{context['device_count']}",
        f"- Software: jax {context['jax_version']}, jaxlib {context['jaxlib_version']}, "
        f"Python {context['python_version']}, jaxenvs {context['jaxenvs_version']}",
        f"- Load average (1, 5, 15 min) at start: {context['load_average_at_start']}",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envs", nargs="+", default=["Pong", "CartPole-v1"])
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[64, 256, 1024])
    parser.add_argument("--networks", nargs="+", choices=sorted(NETWORKS),
                        default=["small", "medium", "large"])
    parser.add_argument("--updates", type=int, default=4, help="PPO updates per timed run")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per row")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "results")
    args = parser.parse_args(argv)
    context = run_context()
    records = []
    for env_id in args.envs:
        for batch_size in args.batch_sizes:
            for network in args.networks:
                record = measure(env_id, batch_size, network, args.updates, args.repeats)
                records.append(record)
                print(f"{env_id:12s} batch {batch_size:5d} {network:6s}: training "
                      f"{format_sps(record['train_sps']):>6s} steps/s, env only "
                      f"{format_sps(record['env_sps']):>6s} steps/s, env share "
                      f"{100 * record['env_share']:5.1f}%", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    stem = f"ppo-{device_tag(context)}"
    (args.out / f"{stem}.json").write_text(
        json.dumps({"context": context, "records": records}, indent=2) + "\n")
    (args.out / f"{stem}.md").write_text(format_table(records, context))
    print(f"wrote {args.out / stem}.json and .md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
