"""``benchmarks/first_step.py``: cold and warm first steps in fresh processes, on Pong, and the
``jaxenvs`` command's persistent compilation cache that the warm figure relies on."""

import json
import os
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "first_step.py"


def test_cold_and_warm_processes_are_timed_and_tabled(tmp_path):
    result = subprocess.run([sys.executable, str(SCRIPT), "--envs", "Pong", "--warm", "1",
                             "--out", str(tmp_path)], capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    row, = json.loads((tmp_path / "first-step-cpu.json").read_text())["rows"]
    for run in (row["cold"], *row["warm"]):
        assert 0 < run["import_seconds"] + run["first_step_seconds"] < run["process_seconds"]
    assert "| Pong |" in (tmp_path / "first-step-cpu.md").read_text()


def _cached_files(tmp_path, **environment):
    command = [sys.executable, "-m", "jaxenvs.cli", "bench", "Pong", "--batch-sizes", "2",
               "--steps", "2", "--repeats", "1", "--cpu-devices", "1",
               "--out", str(tmp_path / "results")]
    result = subprocess.run(command, capture_output=True, text=True, timeout=600, env={
        **os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0", **environment})
    assert result.returncode == 0, result.stderr[-3000:]
    folder = tmp_path / "cache" / "jaxenvs" / "xla"
    return list(folder.iterdir()) if folder.is_dir() else []


def test_the_command_keeps_compiled_programs_unless_turned_off(tmp_path):
    assert _cached_files(tmp_path / "on", JAXENVS_COMPILATION_CACHE="1")
    assert not _cached_files(tmp_path / "off", JAXENVS_COMPILATION_CACHE="0")
