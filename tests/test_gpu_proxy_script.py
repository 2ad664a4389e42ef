"""``benchmarks/gpu_proxy.py``: the ``vmap`` form's cost on one XLA device, end to end on Pong
(small and quick), beside a baseline revision, and its refusal of bad input."""

import json
import subprocess
import sys
from pathlib import Path

from tests.benchmark_scripts import load_benchmark_script

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "gpu_proxy.py"


def _run(*args, cwd=None):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          timeout=600, cwd=cwd)


def test_measures_this_tree_and_a_baseline_cell_by_cell(tmp_path):
    result = _run("--envs", "Pong", "--batch-sizes", "2", "3", "--steps", "2", "--repeats", "2",
                  "--baseline", "HEAD", "--out", str(tmp_path))
    assert result.returncode == 0, result.stderr[-3000:]
    records = json.loads((tmp_path / "gpu-proxy.json").read_text())["records"]
    assert [(r["batch_size"], r["tree"].split()[0]) for r in records] == [
        (2, "baseline"), (2, "this"), (3, "baseline"), (3, "this")]
    baseline, ours = records[0], records[1]
    assert Path(baseline["package"]) != Path(ours["package"]) == ROOT / "jaxenvs"
    for r in records:
        assert r["devices"] == 1 and len(r["run_seconds"]) == 2 and r["sps_median"] > 0
        assert r["bytes_per_env_step"] > 0 and r["flops_per_env_step"] > 0 and r["fusions"] > 0
    # The same code on both sides: the same compiled program.
    assert {k: baseline[k] for k in ("bytes_per_env_step", "fusions", "while_loops")} == {
        k: ours[k] for k in ("bytes_per_env_step", "fusions", "while_loops")}
    table = (tmp_path / "gpu-proxy.md").read_text()
    assert table.count("| Pong | ") == 4 and "JAXENVS_CPU_KERNELS=0" in table


def test_kernel_counts_count_fusions_and_loops_not_their_bodies():
    hlo = """
%fused_computation (p: f32[4]) -> f32[4] {
  %p = f32[4]{0} parameter(0)
  ROOT %a = f32[4]{0} add(f32[4]{0} %p, f32[4]{0} %p)
}
ENTRY %main (x: f32[4]) -> f32[4] {
  %x = f32[4]{0} parameter(0)
  %f = f32[4]{0} fusion(f32[4]{0} %x), kind=kLoop, calls=%fused_computation
  %w = (s32[], f32[4]{0}) while((s32[], f32[4]{0}) %t), condition=%c, body=%b
  ROOT %g = f32[4]{0} fusion(f32[4]{0} %f), kind=kLoop, calls=%fused_computation
}
"""
    counts = load_benchmark_script("gpu_proxy").kernel_counts(hlo)
    assert counts == {"fusions": 2, "while_loops": 1}


def test_bad_input_is_refused_before_any_measurement(tmp_path):
    unknown = _run("--envs", "Pnog", "--out", str(tmp_path))
    assert unknown.returncode == 2 and "unknown env id(s) ['Pnog']" in unknown.stderr
    zero = _run("--envs", "Pong", "--batch-sizes", "0", "--out", str(tmp_path))
    assert zero.returncode == 2 and ">= 1" in zero.stderr
    a_file = tmp_path / "file"
    a_file.write_text("")
    assert "is not a folder" in _run("--envs", "Pong", "--out", str(a_file)).stderr
    revision = _run("--envs", "Pong", "--baseline", "no-such-rev", "--out", str(tmp_path))
    assert revision.returncode == 2 and "--baseline no-such-rev" in revision.stderr
    assert not (tmp_path / "gpu-proxy.json").exists()
