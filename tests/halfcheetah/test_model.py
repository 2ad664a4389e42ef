"""The committed model tables are what the generator writes from MuJoCo's compiled models."""

import pytest

pytest.importorskip("mujoco")

from tests.benchmark_scripts import load_tool  # noqa: E402

planar_model = load_tool("planar_model")


@pytest.mark.parametrize("body", list(planar_model.BODIES))
def test_regenerating_gives_the_committed_table(body):
    assert planar_model.generate(body) == planar_model.BODIES[body].table_path().read_text()


def test_an_unknown_body_is_refused_and_nothing_is_written(capsys):
    assert planar_model.main(["Cheetah"]) == 2
    assert "unknown body 'Cheetah'" in capsys.readouterr().err
