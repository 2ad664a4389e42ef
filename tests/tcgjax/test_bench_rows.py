"""The Python reference's rows beside TCGJax and TCGJax2P in ``jaxenvs bench``."""

import jaxenvs
from jaxenvs import bench


def test_both_ids_have_a_measured_reference_row():
    rates = {}
    for env_id in ("TCGJax", "TCGJax2P"):
        _, params = jaxenvs.make(env_id)
        (row,) = bench.references_for(env_id)
        assert "this run" in row.label
        rates[env_id] = row.fn(64, 16, params)
        assert rates[env_id] > 0
    # a TCGJax step is a seat-0 decision: about half of all decisions, never more
    assert 0.3 * rates["TCGJax2P"] < rates["TCGJax"] < 0.7 * rates["TCGJax2P"]


def test_no_reference_figure_for_settings_it_does_not_play():
    _, params = jaxenvs.make("TCGJax")
    (row,) = bench.references_for("TCGJax")
    assert row.fn(64, 16, params.replace(agent_seat=1)) is None
    assert row.fn(64, 16, params.replace(opponent=1)) is None
