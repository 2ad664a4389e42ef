"""The one check to run on a lent GPU: correctness against recorded references, speed, versions.

    python benchmarks/device_check.py --out DIR [--device gpu|cpu] [--quick]
        [--budget-seconds 450]

Runs with the JAX already installed on the device machine and nothing else (no network: no
pip, no Node, no MuJoCo). In order, each item written to ``DIR/device-check.{json,md}`` as soon
as it is done, so a run cut short keeps what it measured:

1. **Versions**: the device, its driver, Python, jax and jaxlib.
2. **Correctness on the device**: Pong replays its golden C runs bit for bit (``jaxenvs verify
   Pong``'s checks); PokeJAX replays Showdown battles recorded on the CPU
   (``benchmarks/fixtures/``, written by ``tools/device_check_fixtures.py``) and must match
   Showdown at every decision; TCGJax plays games against its Python reference in lock step
   and must match at every decision; HalfCheetah steps once from MuJoCo states recorded on the
   CPU and must stay within the L2 bounds.
3. **Speed**: random-action steps per second of every env (``jaxenvs bench``'s rollout) at
   ``SIZES`` envs, the smallest size of every env first.
4. **PPO**: ``benchmarks/ppo.py``'s training steps per second and the env's share of the time,
   with the small and the 200M-parameter network.

Items that would start after ``--budget-seconds`` are skipped and marked so. ``--quick`` runs
every item at small sizes (what CI runs on the CPU: ``--device cpu --quick``). The exit status
is 1 if a correctness check failed or did not run, 2 for bad arguments or a missing device.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import subprocess
import sys
import time
import traceback
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
if importlib.util.find_spec("jaxenvs") is None:  # a checkout that is not installed (a GPU host)
    sys.path.insert(0, str(ROOT))
FIXTURES = ROOT / "benchmarks" / "fixtures"
ENVS = ("Pong", "HalfCheetah", "PokeJAX", "TCGJax")
#: Batch sizes of the speed items: the full run's and ``--quick``'s.
SIZES = {"full": (4096, 16384, 65536), "quick": (16,)}
#: Scan steps of each timed speed run.
SPEED_STEPS = {"full": 64, "quick": 4}
#: Replayed battles, lock-step games, HalfCheetah states and Pong golden runs.
CORRECTNESS_SIZES = {"full": {"battles": 32, "games": 256, "states": 370, "golden": None},
                     "quick": {"battles": 4, "games": 8, "states": 370, "golden": 2}}
#: PPO items: (batch size, network, updates), and the envs they run for.
PPO_RUNS = {"full": ((4096, "small", 2), (4096, "200m", 1)), "quick": ((16, "small", 1),)}
PPO_ENVS = {"full": ENVS, "quick": ("Pong",)}


def _versions() -> dict[str, Any]:
    import jax
    import jaxlib

    device = jax.devices()[0]
    driver = None
    if device.platform == "gpu":
        try:
            driver = subprocess.run(
                ["nvidia-smi", "--query-gpu=driver_version,name,memory.total",
                 "--format=csv,noheader"], capture_output=True, text=True, timeout=30
            ).stdout.strip() or None
        except (OSError, subprocess.SubprocessError):
            pass
    return {"platform": device.platform, "device_kind": device.device_kind,
            "device_count": jax.device_count(), "driver": driver,
            "python": platform.python_version(), "jax": jax.__version__,
            "jaxlib": jaxlib.__version__}


def check_pong(sizes: dict) -> dict[str, Any]:
    from jaxenvs.pong.reference import golden_files, inject_run, load_golden, replay_run

    files = golden_files()[:sizes["golden"]]
    failed, steps = [], 0
    for path in files:
        run = load_golden(path)
        for label, check in (("inject", inject_run), ("replay", replay_run)):
            comparison = check(run)
            steps += comparison.steps
            if not comparison.ok:
                failed.append(f"{label} {run.name}: {comparison.divergence}")
    return {"compared": f"{len(files)} golden C runs, {steps} steps (injected and replayed)",
            "ok": not failed, "failures": failed}


def check_pokejax(sizes: dict) -> dict[str, Any]:
    from jaxenvs.pokejax.reference import replay
    from jaxenvs.pokejax.reference.battles import load_trajectories

    trajs = load_trajectories(FIXTURES / "pokejax-battles.jsonl.gz")[:sizes["battles"]]
    failed, decisions = [], 0
    for traj, (divergence, compared) in zip(trajs, replay.replay_many(trajs)):
        decisions += compared
        if divergence is not None:
            failed.append(f"battle seed {traj.seed}: {divergence}")
    return {"compared": f"{len(trajs)} Showdown battles, {decisions} decisions",
            "ok": not failed, "failures": failed}


def check_tcgjax(sizes: dict) -> dict[str, Any]:
    from jaxenvs.tcgjax.reference import lockstep

    run, bad = lockstep.check(sizes["games"], seed=0)
    decisions = sum(len(a) for a in run.actions)
    failed = [lockstep.first_divergence(run, g, len(run.seeds)) for g, _ in bad[:3]]
    return {"compared": f"{len(run.seeds)} games with the Python reference, {decisions} "
            "decisions", "ok": not bad, "failures": failed}


def check_halfcheetah(sizes: dict) -> dict[str, Any]:
    import numpy as np

    from jaxenvs.planar_reference import agreement

    recorded = np.load(FIXTURES / "halfcheetah-states.npz")
    n = sizes["states"]
    states = agreement.States(family=recorded["family"][:n], qpos=recorded["qpos"][:n],
                              qvel=recorded["qvel"][:n], ctrl=recorded["ctrl"][:n])
    summary, failures = agreement.recorded_step_check(
        "HalfCheetah", states, {"obs": recorded["obs"][:n], "reward": recorded["reward"][:n]})
    figures = summary["all"]
    return {"compared": f"one env step from {n} MuJoCo states: max relative |dobs| "
            f"{figures['max_rel_dobs']['max']:.3g}, median |dobs| "
            f"{figures['dobs']['median']:.3g}", "ok": not failures, "failures": failures}


CHECKS: dict[str, Callable[[dict], dict[str, Any]]] = {
    "Pong": check_pong, "PokeJAX": check_pokejax, "TCGJax": check_tcgjax,
    "HalfCheetah": check_halfcheetah}


def speed(env_id: str, batch_size: int, steps: int) -> dict[str, Any]:
    from jaxenvs import bench

    [record] = bench.measure_sps(env_id, [batch_size], num_steps=steps, repeats=3,
                                 reference_patterns=[])
    return {key: record[key] for key in ("batch_size", "num_steps", "sps_median", "sps_best",
                                         "compile_seconds")}


def ppo(env_id: str, batch_size: int, network: str, updates: int) -> dict[str, Any]:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import ppo as ppo_benchmark  # benchmarks/ppo.py

    record = ppo_benchmark.measure(env_id, batch_size, network, updates, repeats=2)
    return {key: record[key] for key in ("batch_size", "network", "train_sps", "env_sps",
                                         "env_share", "train_compile_and_first_run_seconds")}


class Report:
    """The items done so far, written to ``DIR`` after each."""

    def __init__(self, out: Path, command: str, budget: float):
        self.out, self.start, self.budget = out, time.perf_counter(), budget
        self.data: dict[str, Any] = {"command": command, "versions": None, "correctness": {},
                                     "speed": [], "ppo": [], "skipped": []}

    def run(self, section: str, label: str, fn: Callable[[], Any]) -> None:
        elapsed = time.perf_counter() - self.start
        if elapsed > self.budget:
            self.data["skipped"].append(f"{section} {label}: the time budget was spent")
        else:
            item_start = time.perf_counter()
            try:
                result = fn()
            except Exception as error:  # recorded, and the next item runs
                result = {"ok": False, "error": f"{type(error).__name__}: {error}",
                          "traceback": traceback.format_exc()[-3000:]}
            if isinstance(result, dict):
                result = {"item": label, **result,
                          "seconds": round(time.perf_counter() - item_start, 1)}
            if section == "versions":
                self.data["versions"] = result
            elif section == "correctness":
                self.data["correctness"][label] = result
            else:
                self.data[section].append(result)
            print(f"[{time.perf_counter() - self.start:6.0f} s] {section} {label}: "
                  f"{_summary(result)}", flush=True)
        self.write()

    @property
    def correct(self) -> bool:
        """Every correctness check ran and passed."""
        checks = self.data["correctness"]
        return set(checks) == set(CHECKS) and all(item.get("ok") for item in checks.values())

    def write(self) -> None:
        (self.out / "device-check.json").write_text(json.dumps(self.data, indent=1) + "\n")
        (self.out / "device-check.md").write_text(markdown(self.data))


def _summary(result: Any) -> str:
    if not isinstance(result, dict):
        return str(result)
    if "error" in result:
        return f"ERROR {result['error']}"
    if "ok" in result:
        return ("ok: " if result["ok"] else "FAILED: ") + result["compared"]
    if "sps_median" in result:
        return f"{result['sps_median']:.4g} steps/s"
    if "train_sps" in result:
        return f"train {result['train_sps']:.4g} steps/s, env share {result['env_share']:.1%}"
    return json.dumps(result)


def _table(title: str, items: list[dict], header: list[tuple[str, str]],
           cells: Callable[[dict], list[str]]) -> list[str]:
    """A section of the report: a row per item, its env first, then ``cells(item)``; an item
    that raised shows its error."""
    lines = ["", f"## {title}", "", "| " + " | ".join(h for h, _ in header) + " |",
             "| " + " | ".join(a for _, a in header) + " |"]
    for item in items:
        env_id = item["item"].split()[0]
        row = [f"ERROR {item['error']}"] + [""] * (len(header) - 2) if "error" in item else (
            cells(item))
        lines.append("| " + " | ".join([env_id, *row]) + " |")
    return lines


def markdown(data: dict[str, Any]) -> str:
    versions = data["versions"] or {}
    lines = ["# Device check", "", f"Produced by `{data['command']}`.", "",
             "## Versions", "", *(f"- {k}: {v}" for k, v in versions.items()), "",
             "## Correctness on the device", "", "| env | result | compared |",
             "| --- | --- | --- |"]
    for env_id, item in data["correctness"].items():
        verdict = "ERROR" if "error" in item else ("ok" if item["ok"] else "FAILED")
        lines.append(f"| {env_id} | {verdict} | {item.get('compared', item.get('error'))} |")
    lines += _table("Random-action steps per second", data["speed"], [
        ("env", "---"), ("batch", "--:"), ("steps/s (median)", "--:"), ("best", "--:"),
        ("compile s", "--:")], lambda item: [
        str(item["batch_size"]), f"{item['sps_median']:.4g}", f"{item['sps_best']:.4g}",
        f"{item['compile_seconds']:.1f}"])
    lines += _table("PPO training", data["ppo"], [
        ("env", "---"), ("batch", "--:"), ("network", "---"), ("training steps/s", "--:"),
        ("env-only steps/s", "--:"), ("env share", "--:")], lambda item: [
        str(item["batch_size"]), item["network"], f"{item['train_sps']:.4g}",
        f"{item['env_sps']:.4g}", f"{item['env_share']:.1%}"])
    if data["skipped"]:
        lines += ["", "## Skipped", "", *(f"- {s}" for s in data["skipped"])]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="folder for the results")
    parser.add_argument("--device", choices=("gpu", "cpu"), default="gpu")
    parser.add_argument("--quick", action="store_true", help="small sizes (CI on a CPU)")
    parser.add_argument("--budget-seconds", type=float, default=450,
                        help="start no item after this many seconds (default: %(default)s)")
    args = parser.parse_args(argv)
    if args.out.exists() and not args.out.is_dir():
        parser.error(f"--out {args.out} exists and is not a folder")
    if (args.out / "device-check.json").exists():
        parser.error(f"--out {args.out} already holds a device check; give another folder")
    if args.device == "cpu":
        os.environ["JAX_PLATFORMS"] = "cpu"
    import jax

    platform_found = jax.devices()[0].platform
    if platform_found != args.device:
        print(f"device_check: no {args.device} here: JAX's default device is a "
              f"{platform_found} (jax {jax.__version__})", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    size = "quick" if args.quick else "full"
    command = "python benchmarks/device_check.py " + " ".join(
        sys.argv[1:] if argv is None else argv)
    report = Report(args.out, command, args.budget_seconds)
    report.run("versions", "versions", _versions)
    for env_id, check in CHECKS.items():
        report.run("correctness", env_id, lambda: check(CORRECTNESS_SIZES[size]))
    for batch_size in SIZES[size]:
        for env_id in ENVS:
            report.run("speed", f"{env_id} {batch_size}",
                       lambda: speed(env_id, batch_size, SPEED_STEPS[size]))
    for batch_size, network, updates in PPO_RUNS[size]:
        for env_id in PPO_ENVS[size]:
            report.run("ppo", f"{env_id} {network}",
                       lambda: ppo(env_id, batch_size, network, updates))
    print(f"wrote {args.out / 'device-check.md'}")
    return 0 if report.correct else 1


if __name__ == "__main__":
    sys.exit(main())
