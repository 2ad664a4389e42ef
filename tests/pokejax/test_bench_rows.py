"""Showdown's row beside PokeJAX and PokeJAX2P in ``jaxenvs bench``."""

from jaxenvs import bench


def test_showdown_is_measured_in_the_same_run(showdown):  # the fixture: Node must be there
    for env_id in ("PokeJAX", "PokeJAX2P"):
        (row,) = bench.references_for(env_id)
        assert "this run" in row.label
        assert row.fn(64, 16, None) > 0
