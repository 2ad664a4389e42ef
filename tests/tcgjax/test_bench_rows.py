"""The Python reference's rows beside TCGJax and TCGJax2P in ``jaxenvs bench``."""

import jaxenvs
from jaxenvs import bench
from jaxenvs.tcgjax.env import DECK_NAMES
from jaxenvs.tcgjax.reference import speed


def test_both_ids_have_a_measured_reference_row():
    for env_id in ("TCGJax", "TCGJax2P"):
        _, params = jaxenvs.make(env_id)
        (row,) = bench.references_for(env_id)
        assert "this run" in row.label
        assert row.fn(64, 16, params) > 0
    # a TCGJax step is a seat-0 decision: about half of all decisions (the two rates of one
    # measurement, so their ratio is one of counts, whatever the machine's load)
    _, params = jaxenvs.make("TCGJax")
    rates = speed.measure(200, pairs=[(DECK_NAMES[params.deck0], DECK_NAMES[params.deck1])])
    assert 0.3 < rates["agent_decisions_per_s"] / rates["decisions_per_s"] < 0.7


def test_no_reference_figure_for_settings_it_does_not_play():
    _, params = jaxenvs.make("TCGJax")
    (row,) = bench.references_for("TCGJax")
    assert row.fn(64, 16, params.replace(agent_seat=1)) is None
    assert row.fn(64, 16, params.replace(opponent=1)) is None
