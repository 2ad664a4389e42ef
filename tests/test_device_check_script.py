"""``benchmarks/device_check.py`` on the CPU at small sizes (as CI runs it), a failing
correctness check, its time budget and its refusal of bad input; and the fixtures it replays
are what ``tools/device_check_fixtures.py`` writes."""

import gzip
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from tests.benchmark_scripts import load_benchmark_script, load_tool

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "device_check.py"


def _run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          timeout=1200)


def test_quick_run_on_the_cpu_checks_every_env_and_measures_them(tmp_path):
    result = _run("--out", str(tmp_path), "--device", "cpu", "--quick")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    data = json.loads((tmp_path / "device-check.json").read_text())
    assert data["versions"]["platform"] == "cpu" and data["versions"]["jax"]
    assert sorted(data["correctness"]) == ["HalfCheetah", "PokeJAX", "Pong", "TCGJax"]
    for env_id, item in data["correctness"].items():
        assert item["ok"] and not item["failures"], (env_id, item)
    assert [s["item"] for s in data["speed"]] == [
        "Pong 16", "HalfCheetah 16", "PokeJAX 16", "TCGJax 16"]
    assert all(s["sps_median"] > 0 for s in data["speed"])
    [ppo] = data["ppo"]
    assert ppo["train_sps"] > 0 and 0 < ppo["env_share"] < 1
    assert not data["skipped"]
    table = (tmp_path / "device-check.md").read_text()
    assert table.count("| ok |") == 4 and "| Pong | 16 |" in table
    assert "already holds a device check" in _run("--out", str(tmp_path), "--device",
                                                  "cpu").stderr


def test_a_state_off_mujoco_fails_the_halfcheetah_check(tmp_path, monkeypatch):
    device_check = load_benchmark_script("device_check")
    recorded = dict(np.load(device_check.FIXTURES / "halfcheetah-states.npz"))
    sizes = device_check.CORRECTNESS_SIZES["quick"]
    monkeypatch.setattr(device_check, "FIXTURES", tmp_path)
    np.savez(tmp_path / "halfcheetah-states.npz", **recorded)
    assert device_check.check_halfcheetah(sizes)["ok"]
    recorded["obs"][5, 3] += 0.1
    np.savez(tmp_path / "halfcheetah-states.npz", **recorded)
    item = device_check.check_halfcheetah(sizes)
    assert not item["ok"] and "max_rel_dobs" in item["failures"][0]


def test_the_budget_skips_what_would_start_late_and_a_skipped_check_fails(tmp_path):
    result = _run("--out", str(tmp_path), "--device", "cpu", "--quick", "--budget-seconds", "0")
    assert result.returncode == 1
    data = json.loads((tmp_path / "device-check.json").read_text())
    assert data["versions"] is None and not data["correctness"] and not data["speed"]
    assert "correctness PokeJAX: the time budget was spent" in data["skipped"]


def test_bad_input_is_refused(tmp_path):
    a_file = tmp_path / "file"
    a_file.write_text("")
    assert "is not a folder" in _run("--out", str(a_file), "--device", "cpu").stderr
    try:
        import jax
        has_gpu = bool(jax.devices("gpu"))
    except RuntimeError:
        has_gpu = False
    if not has_gpu:
        missing = _run("--out", str(tmp_path / "gpu"), "--device", "gpu")
        assert missing.returncode == 2 and "no gpu here" in missing.stderr
        assert not (tmp_path / "gpu").exists()


def test_the_committed_fixtures_are_what_the_tool_writes(tmp_path):
    """Re-recorded from Node and MuJoCo: the same battles (content, not gzip's header) and
    the same states and MuJoCo steps."""
    from jaxenvs.pokejax.reference import reference_problem

    problem = reference_problem() or (None if importlib.util.find_spec("mujoco") else
                                      "MuJoCo is not installed")
    if problem:
        if os.environ.get("CI"):
            pytest.fail(problem)
        pytest.skip(problem)
    tool = load_tool("device_check_fixtures")
    tool.record_battles(tmp_path / tool.BATTLES_FILE)
    with gzip.open(tmp_path / tool.BATTLES_FILE, "rt") as new, \
            gzip.open(Path(tool.OUT) / tool.BATTLES_FILE, "rt") as committed:
        new_lines, committed_lines = new.read().splitlines(), committed.read().splitlines()
    differ = next((i for i, (a, b) in enumerate(zip(new_lines, committed_lines)) if a != b), None)
    assert differ is None, f"battle line {differ + 1} differs: {new_lines[differ][:300]!r}"
    assert len(new_lines) == len(committed_lines)
    arrays = tool.halfcheetah_arrays()
    committed = np.load(Path(tool.OUT) / tool.STATES_FILE)
    assert sorted(arrays) == sorted(committed.files)
    for name, values in arrays.items():
        np.testing.assert_array_equal(values, committed[name], err_msg=name)
