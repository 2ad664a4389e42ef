"""Data-parallel PPO: a 4-device run matches a 1-device run, and really is sharded.

The device count is fixed when JAX starts, so the runs happen in a subprocess (this file run
as a script) with 4 host CPU devices; it saves its results, which the tests compare.
"""

import dataclasses
import json
import os
import subprocess
import sys

import numpy as np
import pytest

DEVICES = 4


def _main(out_dir: str) -> None:
    """Train CartPole on a 4-device and a 1-device mesh; save metrics, params and facts."""
    import gymnax
    import jax

    from jaxenvs.ppo import PPOConfig, make_train
    from jaxenvs.ppo.sharding import make_mesh

    env, params = gymnax.make("CartPole-v1")
    config = PPOConfig(num_envs=8, num_steps=16, total_timesteps=4 * 8 * 16)
    facts = {"devices": jax.device_count()}
    # The wrappers' batch statistics (lax.pmean over the vmapped env axis) must be global too.
    wrapped = dataclasses.replace(config, normalize_observations=True, scale_rewards=True)
    for n in (DEVICES, 1):
        flat = {}
        for prefix, run_config in (("", config), ("wrapped/", wrapped)):
            out = jax.jit(make_train(run_config, env, params,
                                     mesh=make_mesh(jax.devices()[:n])))(jax.random.key(0))
            flat |= {f"{prefix}metrics/{k}": v for k, v in out["metrics"].items()}
            leaves = jax.tree_util.tree_leaves_with_path(out["train_state"].params)
            flat |= {f"{prefix}params{jax.tree_util.keystr(p)}": v for p, v in leaves}
            if prefix:
                flat[f"{prefix}obs_mean"] = out["env_state"].obs_stats.mean
            else:
                x = out["env_state"].x
                facts[f"env_state_devices_{n}"] = len(x.sharding.device_set)
                facts[f"env_state_shard_shapes_{n}"] = [
                    s.data.shape for s in x.addressable_shards]
        np.savez(os.path.join(out_dir, f"run{n}.npz"), **jax.device_get(flat))
    try:
        make_train(PPOConfig(num_envs=6, num_steps=16, total_timesteps=4 * 6 * 16), env,
                   params)
    except ValueError as error:
        facts["indivisible_error"] = str(error)
    with open(os.path.join(out_dir, "facts.json"), "w") as f:
        json.dump(facts, f)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    out_dir = tmp_path_factory.mktemp("sharding")
    env = dict(os.environ, JAX_NUM_CPU_DEVICES=str(DEVICES), JAX_PLATFORMS="cpu")
    result = subprocess.run([sys.executable, __file__, str(out_dir)], env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    with open(out_dir / "facts.json") as f:
        facts = json.load(f)
    return (facts, dict(np.load(out_dir / f"run{DEVICES}.npz")),
            dict(np.load(out_dir / "run1.npz")))


def test_four_devices_match_one_device(runs):
    facts, sharded, single = runs
    assert facts["devices"] == DEVICES
    assert sharded.keys() == single.keys()
    for name in sharded:
        np.testing.assert_allclose(sharded[name], single[name], rtol=1e-4, atol=1e-5,
                                   err_msg=name)


def test_env_state_is_split_over_the_devices(runs):
    facts, _, _ = runs
    assert facts[f"env_state_devices_{DEVICES}"] == DEVICES
    assert facts[f"env_state_shard_shapes_{DEVICES}"] == [[8 // DEVICES]] * DEVICES
    assert facts["env_state_devices_1"] == 1


def test_num_envs_not_divisible_by_devices_is_refused(runs):
    facts, _, _ = runs
    assert "num_envs (6) must be divisible" in facts.get("indivisible_error", "")


if __name__ == "__main__":
    _main(sys.argv[1])
