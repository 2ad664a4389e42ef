"""``jaxenvs train`` / ``jaxenvs eval`` end to end, and checkpoint round trips."""

import json

import jax
import numpy as np
import pytest

from jaxenvs.cli import main
from jaxenvs.ppo import PPOConfig
from jaxenvs.ppo.checkpoint import (config_from_description, load_checkpoint, load_obs_stats,
                                    save_checkpoint)
from jaxenvs.ppo.defaults import make_env
from jaxenvs.ppo.train import make_network
from jaxenvs.wrappers import RunningMeanStd


def test_train_then_eval_cartpole(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["train", "CartPole-v1", "--total-steps", "8192", "--out", str(out),
                 "--log-every", "4", "--seed", "3"]) == 0
    printed = capsys.readouterr().out
    assert "update    16/16" in printed and "steps/s" in printed and "return" in printed
    history = json.loads((out / "metrics.json").read_text())
    assert [row["update"] for row in history] == list(range(1, 17))
    assert history[-1]["steps"] == 8192
    assert (out / "learning_curve.png").stat().st_size > 1000
    assert main(["eval", "CartPole-v1", "--checkpoint", str(out), "--episodes", "8"]) == 0
    assert "mean return" in capsys.readouterr().out


def test_normalized_run_saves_its_observation_statistics_for_eval(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["train", "CartPole-v1", "--total-steps", "4096", "--out", str(out),
                 "--set", "normalize_observations=true", "--set", "scale_rewards=true"]) == 0
    env, params = make_env("CartPole-v1")
    stats = load_obs_stats(out, RunningMeanStd.for_observation(
        env.reset(jax.random.key(0), params)[0]))
    assert stats.count == pytest.approx(4 * (8 * 128 + 1), rel=1e-6)  # every obs of the run
    assert np.all(np.asarray(stats.var) > 0) and np.any(np.asarray(stats.mean) != 0)
    assert main(["eval", "CartPole-v1", "--checkpoint", str(out), "--episodes", "4"]) == 0
    assert "mean return" in capsys.readouterr().out
    (out / "obs_stats.msgpack").unlink()
    assert main(["eval", "CartPole-v1", "--checkpoint", str(out)]) == 2
    assert "no obs_stats.msgpack" in capsys.readouterr().err


def test_distributed_flag_initializes_jax_distributed_first(tmp_path, monkeypatch, capsys):
    calls = []
    monkeypatch.setattr(jax.distributed, "initialize", lambda: calls.append("initialize"))
    assert main(["train", "CartPole-v1", "--total-steps", "512", "--out", str(tmp_path),
                 "--distributed"]) == 0
    assert calls == ["initialize"]
    assert "on 1 cpu device(s)" in capsys.readouterr().out


def test_bad_train_arguments_exit_2(tmp_path, capsys):
    assert main(["train", "Pongg", "--out", str(tmp_path)]) == 2
    assert "Did you mean 'Pong'" in capsys.readouterr().err
    assert main(["train", "CartPole-v1", "--set", "num_minibatches=3",
                 "--out", str(tmp_path)]) == 2


def test_eval_refuses_a_checkpoint_of_another_env(tmp_path, capsys):
    env, params = make_env("CartPole-v1")
    config = PPOConfig()
    network = make_network(config, env, params)
    net_params = network.init(jax.random.key(0), env.reset(jax.random.key(0), params)[0])
    save_checkpoint(tmp_path, net_params, env_id="CartPole-v1", env_overrides={}, config=config)
    assert main(["eval", "Pong", "--checkpoint", str(tmp_path)]) == 2
    assert "trained on CartPole-v1" in capsys.readouterr().err
    assert main(["eval", "Pong", "--checkpoint", str(tmp_path / "missing")]) == 2


def test_checkpoint_round_trip(tmp_path):
    env, params = make_env("Pong", frameskip=4)
    config = PPOConfig(hidden_sizes=(32, 16))
    network = make_network(config, env, params)
    obs = env.reset(jax.random.key(0), params)[0]
    net_params = network.init(jax.random.key(1), obs)
    save_checkpoint(tmp_path, net_params, env_id="Pong", env_overrides={"frameskip": 4},
                    config=config)
    template = network.init(jax.random.key(2), obs)
    loaded, description = load_checkpoint(tmp_path, template)
    assert description["env_overrides"] == {"frameskip": 4}
    assert config_from_description(description) == config
    same = jax.tree.map(lambda a, b: np.array_equal(np.asarray(a), np.asarray(b)),
                        net_params, loaded)
    assert all(jax.tree.leaves(same))
    with pytest.raises(FileNotFoundError, match="not a jaxenvs checkpoint"):
        load_checkpoint(tmp_path / "nope")
