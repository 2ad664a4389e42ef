"""The committed model table is what the generator writes from MuJoCo's compiled model."""

import pytest

pytest.importorskip("mujoco")

from tests.benchmark_scripts import load_tool  # noqa: E402

generate_model = load_tool("halfcheetah_model")


def test_regenerating_gives_the_committed_table():
    assert generate_model.generate() == generate_model.TABLE_PATH.read_text()
