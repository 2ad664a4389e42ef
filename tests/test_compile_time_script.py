"""``benchmarks/compile_time.py``: a first compile measured in fresh processes, end to end on
Pong (small and quick), and its refusal of bad input."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tests.benchmark_scripts import load_benchmark_script

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "compile_time.py"


def test_each_process_times_trace_lower_and_xla_and_the_table_summarises_them(tmp_path):
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--env", "Pong", "--batch-sizes", "2", "3",
         "--processes", "2", "--cpu-devices", "1", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.count("process ") == 4  # progress: 2 batch sizes x 2 processes
    document = json.loads((tmp_path / "pong-cpu-compile.json").read_text())
    assert sorted(document["runs"]) == ["2", "3"]
    for runs in document["runs"].values():
        assert len(runs) == 2
        for run in runs:
            phases = [run[p] for p in ("trace_seconds", "lower_seconds", "xla_seconds")]
            assert min(phases) > 0
            assert sum(phases) == pytest.approx(run["total_seconds"])
    table = (tmp_path / "pong-cpu-compile.md").read_text()
    assert "| batch size | 2 | 3 |" in table and "| fresh processes | 2 | 2 |" in table
    assert "--env Pong --batch-sizes 2 3 --processes 2" in table


def test_summary_takes_least_median_greatest_and_phase_medians():
    compile_time = load_benchmark_script("compile_time")
    runs = [{"trace_seconds": t, "lower_seconds": 0.1, "xla_seconds": 1.0,
             "total_seconds": t + 1.1} for t in (0.5, 0.2, 0.9)]
    s = compile_time.summary(runs)
    assert (s["processes"], s["trace_seconds_median"]) == (3, 0.5)
    assert (s["total_min"], s["total_median"], s["total_max"]) == pytest.approx((1.3, 1.6, 2.0))


@pytest.mark.parametrize("bad, message", [
    (["--env", "Pong", "--processes", "0"], "must be >= 1"),
    (["--env", "Pong", "--batch-sizes", "0"], "must be >= 1"),
    (["--env", "Pongg"], "Unknown environment id 'Pongg'"),
    (["--env", "Pong", "--param", "nope=1"], "Pong has no parameter(s) nope"),
])
def test_bad_input_is_refused_before_any_process_starts(bad, message, capsys):
    compile_time = load_benchmark_script("compile_time")
    with pytest.raises(SystemExit) as exit_info:
        compile_time.main(bad)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
