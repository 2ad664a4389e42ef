"""``benchmarks/ppo.py`` runs end to end and writes consistent rows (no timing asserted)."""

import json

import pytest
from tests.benchmark_scripts import load_benchmark_script


@pytest.fixture(scope="module")
def ppo_benchmark():
    return load_benchmark_script("ppo")


def test_writes_one_row_per_setting(ppo_benchmark, tmp_path):
    assert ppo_benchmark.main(["--envs", "CartPole-v1", "--batch-sizes", "8", "16",
                               "--networks", "small", "--updates", "1", "--repeats", "1",
                               "--out", str(tmp_path)]) == 0
    (json_path,) = tmp_path.glob("ppo-*.json")  # ppo-cpu, ppo-gpu, ... by the device
    document = json.loads(json_path.read_text())
    rows = document["records"]
    assert [(r["env_id"], r["batch_size"], r["network"]) for r in rows] == [
        ("CartPole-v1", 8, "small"), ("CartPole-v1", 16, "small")]
    for r in rows:
        assert r["env_steps"] == r["batch_size"] * r["num_steps"] * r["updates"]
        assert r["env_share"] == pytest.approx(r["env_seconds"] / r["train_seconds"])
        assert r["train_sps"] == pytest.approx(r["env_steps"] / r["train_seconds"])
    table = json_path.with_suffix(".md").read_text()
    assert "| CartPole-v1 | 16 | small (64x64) | 1 x 128 |" in table
