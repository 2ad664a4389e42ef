"""``TrainedPolicy.load``, which ``jaxenvs eval`` and the L4 transfer checks share: a
committed checkpoint loads for its own env (with env parameter overrides, checked) and is
refused, naming both envs, for any other;
a policy trained on normalized observations sees a reference engine's observations
(``observe``) exactly as its JAX env shows them."""

from pathlib import Path

import jax
import numpy as np
import pytest

import jaxenvs
from jaxenvs.ppo.policy import TrainedPolicy
from jaxenvs.wrappers import NormalizeObservation

PACKAGE = Path(jaxenvs.__file__).parent
CHECKPOINTS = {"PokeJAX": PACKAGE / "pokejax" / "data" / "policy",
               "TCGJax": PACKAGE / "tcgjax" / "data" / "policy",
               "HalfCheetah": PACKAGE / "halfcheetah" / "data" / "policy",
               "Hopper": PACKAGE / "hopper" / "data" / "policy",
               "Walker2d": PACKAGE / "walker2d" / "data" / "policy"}


@pytest.mark.parametrize("env_id", list(CHECKPOINTS))
def test_checkpoint_of_another_env_is_refused(tmp_path, env_id):
    checkpoint = CHECKPOINTS[env_id]
    (tmp_path / "params.msgpack").write_bytes((checkpoint / "params.msgpack").read_bytes())
    text = (checkpoint / "checkpoint.json").read_text()
    (tmp_path / "checkpoint.json").write_text(text.replace(f'"{env_id}"', '"Pong"'))
    with pytest.raises(ValueError, match=f"was trained on Pong, not {env_id}"):
        TrainedPolicy.load(tmp_path, env_id)


def test_env_overrides_apply_on_top_of_the_training_runs_and_are_checked():
    policy = TrainedPolicy.load(CHECKPOINTS["PokeJAX"], "PokeJAX", {"opponent": 2})
    assert policy.env_params.opponent == 2
    assert TrainedPolicy.load(CHECKPOINTS["PokeJAX"], "PokeJAX").env_params.opponent == 0
    with pytest.raises(ValueError, match="opponent"):
        TrainedPolicy.load(CHECKPOINTS["PokeJAX"], "PokeJAX", {"opponent": 9})


def test_normalized_checkpoint_without_its_statistics_is_refused(tmp_path):
    checkpoint = CHECKPOINTS["HalfCheetah"]
    for name in ("params.msgpack", "checkpoint.json"):
        (tmp_path / name).write_bytes((checkpoint / name).read_bytes())
    with pytest.raises(FileNotFoundError, match="obs_stats.msgpack"):
        TrainedPolicy.load(tmp_path, "HalfCheetah")


def test_observe_gives_a_raw_observation_as_the_frozen_env_shows_it():
    policy = TrainedPolicy.load(CHECKPOINTS["HalfCheetah"], "HalfCheetah")
    assert isinstance(policy.env, NormalizeObservation)
    key = jax.random.key(3)
    raw, _ = policy.env._env.reset(key, policy.env_params)
    shown, _ = policy.env.reset(key, policy.env_params)
    np.testing.assert_array_equal(policy.observe(np.asarray(raw, np.float64)[None])[0],
                                  np.asarray(shown))
    assert not np.allclose(np.asarray(shown), np.asarray(raw))  # the statistics do something
