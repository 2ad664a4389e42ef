"""``TrainedPolicy.load``, which the L4 transfer checks share: a committed checkpoint loads
for its own env and is refused, naming both envs, for any other."""

from pathlib import Path

import pytest

import jaxenvs
from jaxenvs.ppo.policy import TrainedPolicy

PACKAGE = Path(jaxenvs.__file__).parent
CHECKPOINTS = {"PokeJAX": PACKAGE / "pokejax" / "data" / "policy",
               "TCGJax": PACKAGE / "tcgjax" / "data" / "policy"}


@pytest.mark.parametrize("env_id", list(CHECKPOINTS))
def test_checkpoint_of_another_env_is_refused(tmp_path, env_id):
    checkpoint = CHECKPOINTS[env_id]
    (tmp_path / "params.msgpack").write_bytes((checkpoint / "params.msgpack").read_bytes())
    text = (checkpoint / "checkpoint.json").read_text()
    (tmp_path / "checkpoint.json").write_text(text.replace(f'"{env_id}"', '"Pong"'))
    with pytest.raises(ValueError, match=f"was trained on Pong, not {env_id}"):
        TrainedPolicy.load(tmp_path, env_id)
