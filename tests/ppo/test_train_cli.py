"""``jaxenvs train`` / ``jaxenvs eval`` end to end: runs that keep their work when stopped and
resume to the same result, strict settings and folders, checkpoint round trips."""

import json
import os
import signal
import subprocess
import sys

import jax
import numpy as np
import pytest

from jaxenvs.cli import main
from jaxenvs.ppo import train_cli
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
    for setting, message in (("num_minibatches=3", "num_minibatches (3) must divide"),
                             ("learning_rate=-1", "learning_rate must be > 0, got -1"),
                             ("learning_rate=abc", "learning_rate must be a finite number"),
                             ("num_envs=2.5", "num_envs must be an int"),
                             ("anneal_lr=1", "anneal_lr must be true or false"),
                             ("hidden_sizes=a,b", "expected widths like 64,64"),
                             ("learning_rat=0.1", "not a PPOConfig field")):
        assert main(["train", "CartPole-v1", "--set", setting, "--out", str(tmp_path)]) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1, err
    assert not any(tmp_path.iterdir())  # refused before anything was written


def _train(out, *extra):
    return main(["train", "CartPole-v1", "--total-steps", str(16 * 512), "--out", str(out),
                 "--checkpoint-every", "3", "--seed", "5", *extra])


def test_a_stopped_run_resumes_to_the_result_of_one_never_stopped(tmp_path, monkeypatch):
    assert _train(tmp_path / "whole") == 0
    report = train_cli.Progress.__call__

    def interrupted_at_update_5(self, update, metrics):
        report(self, update, metrics)
        if int(update) + 1 == 5:
            os.kill(os.getpid(), signal.SIGINT)  # acted on when the chunk of updates 4-6 ends

    monkeypatch.setattr(train_cli.Progress, "__call__", interrupted_at_update_5)
    assert _train(tmp_path / "stopped") == 128 + signal.SIGINT
    history = json.loads((tmp_path / "stopped" / "metrics.json").read_text())
    assert [row["update"] for row in history] == list(range(1, 7))
    assert main(["eval", "CartPole-v1", "--checkpoint", str(tmp_path / "stopped"),
                 "--episodes", "2"]) == 0  # the policy of update 6 is saved
    monkeypatch.setattr(train_cli.Progress, "__call__", report)
    assert main(["train", "--resume", str(tmp_path / "stopped")]) == 0
    for name in ("params.msgpack",):
        assert (tmp_path / "stopped" / name).read_bytes() == \
            (tmp_path / "whole" / name).read_bytes()
    rows = [json.loads((tmp_path / run / "metrics.json").read_text())
            for run in ("whole", "stopped")]
    assert len(rows[0]) == len(rows[1]) == 16
    for whole, resumed in zip(*rows):
        for name, value in whole.items():
            if name != "seconds":
                np.testing.assert_equal(resumed[name], value)


def test_sigterm_stops_a_run_after_its_chunk_with_everything_saved(tmp_path):
    out = tmp_path / "run"
    command = [sys.executable, "-m", "jaxenvs.cli", "train", "CartPole-v1", "--total-steps",
               str(2000 * 512), "--checkpoint-every", "1", "--log-every", "1", "--out", str(out)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env={**os.environ,
                                               "XDG_CACHE_HOME": str(tmp_path / "cache")})
    for line in process.stdout:
        if line.startswith("update"):
            process.send_signal(signal.SIGTERM)
            break
    out_text, err_text = process.communicate(timeout=120)
    assert process.returncode == 128 + signal.SIGTERM, err_text
    assert "SIGTERM: stopping" in err_text and "jaxenvs train --resume" in out_text
    done = len(json.loads((out / "metrics.json").read_text()))
    assert 1 <= done < 2000
    assert (out / "params.msgpack").is_file() and (out / "train_state" / str(done)).is_dir()


def test_run_folders_are_checked_before_training_and_never_overwritten_unasked(tmp_path,
                                                                              capsys):
    out = tmp_path / "run"
    assert _train(out, "--total-steps", "512") == 0
    curve = (out / "learning_curve.png").stat().st_mtime_ns
    assert _train(out) == 2
    assert "already exists; pass --resume" in capsys.readouterr().err
    assert (out / "learning_curve.png").stat().st_mtime_ns == curve
    assert _train(out, "--overwrite") == 0
    assert len(json.loads((out / "metrics.json").read_text())) == 16
    other = tmp_path / "notes"
    other.mkdir()
    (other / "mine.txt").write_text("keep")
    a_file = tmp_path / "file"
    a_file.write_text("keep")
    for folder, extra, message in (
            (other, ["--overwrite"], "not a jaxenvs run folder"),
            (a_file, [], "is a file"),
            (a_file / "below", [], "cannot write the run folder")):
        assert _train(folder, *extra) == 2
        assert message in capsys.readouterr().err
    assert (other / "mine.txt").read_text() == a_file.read_text() == "keep"
    assert main(["train", "--resume", str(other)]) == 2
    assert "nothing to resume" in capsys.readouterr().err
    assert main(["train", "--resume", str(out), "--seed", "1"]) == 2
    assert "drop --seed" in capsys.readouterr().err
    assert main(["train", "Pong", "--resume", str(out)]) == 2
    assert "a run on CartPole-v1, not Pong" in capsys.readouterr().err


def test_eval_names_the_file_it_cannot_read(tmp_path, capsys):
    out = tmp_path / "run"
    assert _train(out, "--total-steps", "512") == 0
    (out / "params.msgpack").write_bytes(b"\x00garbage")
    assert main(["eval", "CartPole-v1", "--checkpoint", str(out)]) == 2
    assert f"{out / 'params.msgpack'} cannot be read" in capsys.readouterr().err


def _save_untrained(directory, env_id):
    """An untrained policy of ``env_id`` saved as a checkpoint in ``directory``."""
    env, params = make_env(env_id)
    config = PPOConfig()
    network = make_network(config, env, params)
    net_params = network.init(jax.random.key(0), env.reset(jax.random.key(0), params)[0])
    save_checkpoint(directory, net_params, env_id=env_id, env_overrides={}, config=config)


def test_eval_refuses_a_checkpoint_of_another_env(tmp_path, capsys):
    _save_untrained(tmp_path, "CartPole-v1")
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


def test_eval_checks_its_env_parameter_overrides(tmp_path, capsys):
    _save_untrained(tmp_path, "Pong")
    assert main(["eval", "Pong", "--checkpoint", str(tmp_path), "--param", "max_score=0"]) == 2
    assert "max_score" in capsys.readouterr().err


def test_a_run_stores_a_team_file_given_relative_as_its_absolute_path(tmp_path, monkeypatch):
    """``--param teams=FILE`` is kept in the run absolute (``Environment.file_params``), so the
    run resumes and evaluates from any folder; inline team text and other params stay as
    given."""
    import argparse
    import shutil

    from jaxenvs.pokejax.data import GEN1OU_SAMPLE_TEAMS

    shutil.copy(GEN1OU_SAMPLE_TEAMS, tmp_path / "teams.txt")
    monkeypatch.chdir(tmp_path)
    parser = argparse.ArgumentParser()
    train_cli.add_arguments(parser)

    def stored(*argv):
        return train_cli.plan_new_run(parser.parse_args(["PokeJAX", *argv])).env_overrides

    assert stored("--param", "format=gen1ou", "--param", "teams=teams.txt") == {
        "format": "gen1ou", "teams": str(tmp_path.resolve() / "teams.txt")}
    packed = "Mew||||psychic|Timid|||||"
    assert stored("--param", f"teams={packed}") == {"teams": packed}
    assert stored("--param", "teams=missing.txt") == {"teams": "missing.txt"}
