"""``jaxenvs train ENV``: train PPO in chunks of updates, saving after each; resumable.

The run is the trainer's ``make_train_parts``: one jitted ``start`` and one jitted chunk of
``--checkpoint-every`` updates, run until the run's updates are done. After each chunk the
run folder (``run_folder.py``: policy checkpoint, whole training state, ``metrics.json``) is
brought up to date, so a run stopped by SIGINT (Ctrl-C) or SIGTERM keeps every finished
chunk: the signal is acted on when the running chunk ends, a second one ends the process at
once. ``jaxenvs train --resume DIR`` continues it, to the same result as a run never stopped.
Each update reports to the host (``jax.debug.callback``): a progress bar on a terminal, a line
every ``--log-every`` updates otherwise. At the end ``learning_curve.png`` (if matplotlib is
installed) joins the folder.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

import jax
import numpy as np

from jaxenvs.bench import parse_param
from jaxenvs.devices import add_cpu_devices_option
from jaxenvs.ppo import run_folder
from jaxenvs.ppo.checkpoint import load_description, save_description, save_policy
from jaxenvs.ppo.config import PPOConfig
from jaxenvs.ppo.defaults import default_config, make_env
from jaxenvs.ppo.sharding import maybe_initialize_distributed
from jaxenvs.ppo.train import make_train_parts

#: Chunks of updates per run when ``--checkpoint-every`` is not given.
DEFAULT_CHUNKS = 20


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("env", metavar="ENV", nargs="?",
                        help="jaxenvs or gymnax id, e.g. Pong, CartPole-v1 (not with --resume)")
    parser.add_argument("--total-steps", type=int, default=None,
                        help="environment steps in all (default: the env's default config)")
    parser.add_argument("--num-envs", type=int, default=None, help="parallel environments")
    parser.add_argument("--seed", type=int, default=None, help="the run's seed (default: 0)")
    parser.add_argument("--out", type=Path, default=None,
                        help="run folder (default: runs/<ENV>-seed<SEED>); must not exist "
                             "unless --overwrite")
    parser.add_argument("--resume", metavar="DIR", type=Path, default=None,
                        help="continue the stopped run in DIR with its own settings")
    parser.add_argument("--overwrite", action="store_true",
                        help="start again in an existing run folder, replacing its outputs")
    parser.add_argument("--checkpoint-every", metavar="N", type=int, default=None,
                        help="updates per chunk, after each of which the run is saved "
                             f"(default: the run in {DEFAULT_CHUNKS} chunks)")
    parser.add_argument("--log-every", type=int, default=10,
                        help="updates between progress lines when not on a terminal")
    parser.add_argument("--param", metavar="NAME=VALUE", type=parse_param, action="append",
                        default=[], help="env parameter override (repeatable)")
    parser.add_argument("--set", metavar="NAME=VALUE", type=parse_param, action="append",
                        default=[], help="PPOConfig field override, e.g. learning_rate=1e-3; "
                                         "hidden_sizes=256,256")
    parser.add_argument("--distributed", action="store_true",
                        help="multi-host run: call jax.distributed.initialize() (configured "
                             "from the cluster environment) and train over every host's devices")
    add_cpu_devices_option(parser, default=None)


@dataclasses.dataclass(frozen=True)
class RunPlan:
    """What a run does, from the command line or, resumed, from its folder."""

    env_id: str
    env_overrides: dict[str, Any]
    config: PPOConfig
    seed: int
    updates_per_chunk: int
    out: Path


def config_changes(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``--set`` pairs as ``PPOConfig`` changes; unknown names and unreadable widths raise
    ``ValueError``."""
    fields = [field.name for field in dataclasses.fields(PPOConfig)]
    changes = {}
    for name, value in pairs:
        if name not in fields:
            raise ValueError(f"--set {name}: not a PPOConfig field (fields: "
                             f"{', '.join(fields)})")
        if name == "hidden_sizes":
            try:
                value = tuple(int(width) for width in str(value).split(","))
            except ValueError:
                raise ValueError(f"--set hidden_sizes: expected widths like 64,64, got "
                                 f"{value!r}") from None
        changes[name] = value
    return changes


def plan_new_run(args: argparse.Namespace) -> RunPlan:
    """The plan of a run started from the command line (``ValueError`` on bad settings)."""
    if args.env is None:
        raise ValueError("give the ENV to train on, or --resume DIR")
    changes = config_changes(args.set)
    if args.total_steps is not None:
        changes["total_timesteps"] = args.total_steps
    if args.num_envs is not None:
        changes["num_envs"] = args.num_envs
    config = dataclasses.replace(default_config(args.env), **changes)
    seed = 0 if args.seed is None else args.seed
    chunk = (math.ceil(config.num_updates / DEFAULT_CHUNKS) if args.checkpoint_every is None
             else args.checkpoint_every)
    if chunk < 1:
        raise ValueError(f"--checkpoint-every must be >= 1, got {chunk}")
    if args.log_every < 1:
        raise ValueError(f"--log-every must be >= 1, got {args.log_every}")
    out = args.out or Path("runs") / f"{args.env}-seed{seed}"
    return RunPlan(args.env, env_overrides(args.env, dict(args.param)), config, seed, chunk, out)


def env_overrides(env_id: str, params: dict[str, Any]) -> dict[str, Any]:
    """``params`` as the run stores them: a value of one of the env's ``file_params`` that
    names a file, as its absolute path (the run then resumes from any folder)."""
    env, _ = make_env(env_id)
    stored = dict(params)
    for name in getattr(env, "file_params", ()):
        value = stored.get(name)
        if isinstance(value, str) and Path(value).expanduser().is_file():
            stored[name] = str(Path(value).expanduser().resolve())
    return stored


def plan_resumed_run(args: argparse.Namespace) -> RunPlan:
    """The plan saved in ``--resume``'s folder; settings given beside it raise ``ValueError``
    (a resumed run keeps its own, so that it ends as it would have unstopped)."""
    given = [option for option, value in (
        ("--total-steps", args.total_steps), ("--num-envs", args.num_envs),
        ("--seed", args.seed), ("--checkpoint-every", args.checkpoint_every),
        ("--param", args.param or None), ("--set", args.set or None),
        ("--overwrite", args.overwrite or None)) if value is not None]
    if given:
        raise ValueError(f"--resume continues a run with its own settings; drop "
                         f"{', '.join(given)}")
    if args.out is not None and args.out.resolve() != args.resume.resolve():
        raise ValueError("--resume DIR is the run folder; drop --out")
    run_folder.prepare(args.resume, resume=True, overwrite=False)
    description = load_description(args.resume)
    if args.env is not None and args.env != description["env_id"]:
        raise ValueError(f"{args.resume} is a run on {description['env_id']}, not {args.env}")
    config = dict(description["config"], hidden_sizes=tuple(description["config"]["hidden_sizes"]))
    return RunPlan(description["env_id"], description["env_overrides"], PPOConfig(**config),
                   description["run"]["seed"], description["run"]["updates_per_chunk"],
                   args.resume)


class Progress:
    """Host-side receiver of per-update metrics: a progress bar on a terminal (rich), else a
    line every ``log_every`` updates."""

    def __init__(self, plan: RunPlan, log_every: int, updates_done: int, seconds_before: float):
        self.steps_per_update = plan.config.batch_size
        self.num_updates = plan.config.num_updates
        self.log_every = max(1, log_every)
        self.returns: list[float] = []
        self.first = updates_done
        self.process_start = time.perf_counter()
        self.seconds_before = seconds_before
        self.bar = None
        if sys.stdout.isatty():
            from rich.progress import Progress as Bar

            self.bar = Bar(*Bar.get_default_columns(), "{task.fields[info]}")
            self.task = self.bar.add_task(f"PPO on {plan.env_id}", total=self.num_updates,
                                          completed=updates_done, info="")
            self.bar.start()

    def seconds(self) -> float:
        """Training time so far, earlier processes of a resumed run included."""
        return self.seconds_before + time.perf_counter() - self.process_start

    def __call__(self, update: Any, metrics: dict[str, Any]) -> None:
        index = int(update) + 1
        episode_return = float(metrics["episode_return"])
        if np.isfinite(episode_return):
            self.returns = (self.returns + [episode_return])[-self.log_every:]
        mean_return = f"{np.mean(self.returns):8.2f}" if self.returns else "     n/a"
        steps = index * self.steps_per_update
        rate = ((index - self.first) * self.steps_per_update
                / max(time.perf_counter() - self.process_start, 1e-9))
        if self.bar is not None:
            self.bar.update(self.task, completed=index,
                            info=f"{rate:,.0f} steps/s  return {mean_return}")
        elif index % self.log_every == 0 or index == self.num_updates:
            print(f"update {index:5d}/{self.num_updates}  steps {steps:>11,}  "
                  f"{rate:>10,.0f} steps/s (incl. compile)  return {mean_return}  "
                  f"entropy {float(metrics['entropy']):.3f}", flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


class StopRequests:
    """SIGINT and SIGTERM, while active, ask the run to stop after its running chunk; a
    second one ends the process at once (the signal's default action), the last save
    whole. The chunks run in a worker thread (``in_worker``) so that the handlers run the
    moment a signal comes, not when XLA returns."""

    def __init__(self):
        self.signal: int | None = None
        self.previous: dict[int, Any] = {}

    def __enter__(self) -> StopRequests:
        if threading.current_thread() is threading.main_thread():
            for signum in (signal.SIGINT, signal.SIGTERM):
                self.previous[signum] = signal.signal(signum, self.request)
        return self

    def request(self, signum: int, frame: Any) -> None:
        if self.signal is not None:
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        self.signal = signum
        print(f"\n{signal.Signals(signum).name}: stopping when the running chunk of updates "
              f"ends (again to stop at once, losing that chunk)", file=sys.stderr, flush=True)

    def __exit__(self, *exc: Any) -> None:
        for signum, handler in self.previous.items():
            signal.signal(signum, handler)


def in_worker(fun: Any, *args: Any) -> Any:
    """``jax.block_until_ready(fun(*args))`` in a worker thread, this thread waiting in Python
    meanwhile (JAX's CPU client runs a program in the thread that calls it, where no Python
    signal handler can run until it returns)."""
    result: dict[str, Any] = {}

    def work() -> None:
        try:
            result["value"] = jax.block_until_ready(fun(*args))
        except BaseException as error:  # handed to the waiting thread
            result["error"] = error

    worker = threading.Thread(target=work, daemon=True)
    worker.start()
    while worker.is_alive():
        worker.join(0.1)
    if "error" in result:
        raise result["error"]
    return result["value"]


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
        plan = plan_new_run(args) if args.resume is None else plan_resumed_run(args)
        env, env_params = make_env(plan.env_id, **plan.env_overrides)
        if args.resume is None:
            run_folder.prepare(plan.out, resume=False, overwrite=args.overwrite)
    except (ValueError, TypeError) as error:
        print(f"jaxenvs train: {error}", file=sys.stderr)
        return 2
    if args.resume is None:
        save_description(plan.out, env_id=plan.env_id, env_overrides=plan.env_overrides,
                         config=plan.config, run={"seed": plan.seed,
                                                  "updates_per_chunk": plan.updates_per_chunk})
    return train(plan, env, env_params, args.log_every)


def train(plan: RunPlan, env, env_params, log_every: int) -> int:
    """Run ``plan`` from its folder's last save (or its start), saving after each chunk;
    returns the exit status (128 + the signal's number if stopped by one)."""
    config, out = plan.config, plan.out
    history = run_folder.load_metrics(out)
    progress_box: list[Progress] = []
    start, run_updates = make_train_parts(config, env, env_params,
                                          on_update=lambda *a: progress_box[0](*a))
    carry = jax.jit(start)(jax.random.key(plan.seed))
    done = 0
    if (out / run_folder.STATE_DIR).is_dir():
        carry, done = run_folder.restore_state(out, carry)
        history = history[:done]
    progress = Progress(plan, log_every, done, history[-1]["seconds"] if history else 0.0)
    progress_box.append(progress)
    verb = "resuming" if done else "training"
    print(f"{verb} PPO on {plan.env_id} at update {done}: {config.num_updates} updates of "
          f"{config.num_envs} envs x {config.num_steps} steps, saved every "
          f"{plan.updates_per_chunk}, on {jax.device_count()} "
          f"{jax.devices()[0].platform} device(s)", flush=True)
    chunk = jax.jit(run_updates)
    with StopRequests() as stop:
        try:
            while done < config.num_updates and stop.signal is None:
                count = min(plan.updates_per_chunk, config.num_updates - done)
                indices = np.full(plan.updates_per_chunk, -1, np.int32)
                indices[:count] = np.arange(done, done + count)
                carry, metrics = in_worker(chunk, carry, indices)
                metrics = jax.device_get(metrics)
                done += count
                seconds = progress.seconds()
                history += [{**{name: float(value[i]) for name, value in metrics.items()},
                             "update": done - count + i + 1,
                             "steps": (done - count + i + 1) * config.batch_size,
                             "seconds": seconds} for i in range(count)]
                save_chunk(out, carry, done, history, config)
        finally:
            progress.close()
    if stop.signal is not None and done < config.num_updates:
        print(f"stopped after update {done}/{config.num_updates}; saved in {out}/. Continue "
              f"with: jaxenvs train --resume {out}", flush=True)
        return 128 + stop.signal
    plotted = save_learning_curve(history, out / run_folder.CURVE_FILE,
                                  f"PPO on {plan.env_id}, seed {plan.seed}")
    total = config.num_updates * config.batch_size
    seconds = progress.seconds()
    print(f"done: {total:,} steps in {seconds:.1f} s ({total / seconds:,.0f} steps/s incl. "
          f"compile); wrote {out}/ (checkpoint, metrics.json"
          f"{', learning_curve.png' if plotted else ''})", flush=True)
    return 0


def save_chunk(out: Path, carry: Any, done: int, history: list[dict[str, float]],
               config: PPOConfig) -> None:
    """Bring the run folder up to ``done`` updates: training state, policy, metrics."""
    run_folder.save_state(out, carry, done)
    obs_stats = None
    if config.normalize_observations:  # shared by the batch: every env holds the same copy
        obs_stats = jax.tree.map(lambda x: x[0], carry.env_state.obs_stats)
    save_policy(out, carry.train_state.params, obs_stats)
    run_folder.save_metrics(out, history)
