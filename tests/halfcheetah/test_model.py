"""The committed model table is what the generator writes from MuJoCo's compiled model."""

import pytest

pytest.importorskip("mujoco")

from jaxenvs.halfcheetah import generate_model  # noqa: E402


def test_regenerating_gives_the_committed_table():
    assert generate_model.generate() == generate_model.TABLE_PATH.read_text()
