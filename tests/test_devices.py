"""Splitting a CPU host into several XLA devices (``jaxenvs.devices``) and sharding the
bench's env batch over them: the option's parsing and errors, and, in subprocesses that start
JAX with two CPU devices, that the sharded rollout is the same trajectory as on one device."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import textwrap

import jax
import pytest

from jaxenvs import devices
from jaxenvs.cli import main


def _run(code_or_args: list[str], cpu_devices: int = 2) -> subprocess.CompletedProcess:
    env = dict(os.environ, JAX_NUM_CPU_DEVICES=str(cpu_devices), JAX_PLATFORMS="cpu")
    return subprocess.run([sys.executable, *code_or_args], env=env, capture_output=True,
                          text=True, timeout=300)


def test_parse_cpu_devices():
    assert devices.parse_cpu_devices("auto") == devices.available_cores() >= 1
    assert devices.parse_cpu_devices("3") == 3
    for bad in ("0", "-1", "two", ""):
        with pytest.raises(argparse.ArgumentTypeError, match="positive integer"):
            devices.parse_cpu_devices(bad)


def test_use_cpu_devices_after_jax_started(tmp_path):
    started = len(jax.devices("cpu"))
    devices.use_cpu_devices(started)  # already so: nothing to do
    with pytest.raises(RuntimeError, match=f"JAX_NUM_CPU_DEVICES={started + 1}"):
        devices.use_cpu_devices(started + 1)
    with pytest.raises(ValueError, match=">= 1"):
        devices.use_cpu_devices(0)
    # Called in-process (argv given), the command line cannot restart itself either.
    with pytest.raises(RuntimeError, match="already started"):
        main(["bench", "Pong", "--cpu-devices", str(started + 1), "--out", str(tmp_path)])
    assert not list(tmp_path.iterdir())


def test_use_cpu_devices_leaves_an_accelerator_alone(monkeypatch):
    """JAX started on a GPU: the CPU split is not needed, so neither an error nor a restart."""
    monkeypatch.setattr(jax, "default_backend", lambda: "gpu")
    monkeypatch.setattr(os, "execve", lambda *args: pytest.fail("restarted"))
    devices.use_cpu_devices(len(jax.devices("cpu")) + 1, restart_command=True)


@pytest.mark.parametrize("env_id, overrides, steps", [
    ("Pong", "frameskip=1", 50),
    ("TCGJax", "", 12),  # an env that loops on a CPU, its state updated in place
])
def test_sharded_rollout_equals_one_device_rollout(env_id, overrides, steps):
    code = textwrap.dedent(f"""
        import jax, numpy as np
        import jaxenvs
        from jaxenvs import bench
        assert jax.device_count() == 2
        env, params = jaxenvs.make("{env_id}", {overrides})
        keys = jax.random.split(jax.random.key(3), 6)
        obs, states = jax.vmap(env.reset, in_axes=(0, None))(keys, params)
        sharding = bench.batch_sharding(6)
        assert sharding.num_devices == 2 and bench.batch_sharding(3).num_devices == 1
        one = bench.random_rollout(env, params, {steps})(keys, states, obs)
        split = bench.random_rollout(env, params, {steps}, sharding)(
            *jax.device_put((keys, states, obs), sharding))
        assert len(jax.tree.leaves(split)[1].sharding.device_set) == 2
        for a, b in zip(jax.tree.leaves(jax.random.key_data(one[0])),
                        jax.tree.leaves(jax.random.key_data(split[0]))):
            np.testing.assert_array_equal(a, b)
        for a, b in zip(jax.tree.leaves(one[1:]), jax.tree.leaves(split[1:])):
            np.testing.assert_array_equal(a, b)
        print("same")
    """)
    result = _run(["-c", code])
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.split() == ["same"]


def test_bench_cli_splits_divisible_batches(tmp_path):
    # JAX starts with one CPU device (on importing jaxenvs); the command restarts itself.
    result = _run(["-m", "jaxenvs.cli", "bench", "Pong", "--batch-sizes", "1", "4",
                   "--steps", "4", "--repeats", "1", "--param", "frameskip=1",
                   "--cpu-devices", "2", "--out", str(tmp_path)], cpu_devices=1)
    assert result.returncode == 0, result.stderr[-3000:]
    [path] = tmp_path.glob("*.json")
    document = json.loads(path.read_text())
    assert document["context"]["device_count"] == 2
    assert [r["devices"] for r in document["records"]] == [1, 2]
    assert "| devices the batch is split over | 1 | 2 |" in path.with_suffix(".md").read_text()
