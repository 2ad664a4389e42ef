"""Showdown's row beside PokeJAX and PokeJAX2P in ``jaxenvs bench``."""

from jaxenvs import bench


def test_showdown_is_measured_in_the_same_run(showdown):  # the fixture: Node must be there
    for env_id in ("PokeJAX", "PokeJAX2P"):
        (row,) = bench.references_for(env_id)
        assert "this run" in row.label
        assert row.fn(64, 16, None) > 0


def test_showdown_plays_the_measured_params_teams_in_their_format(showdown, monkeypatch):
    """With user teams, the row's battles are between those teams, in their format."""
    import jaxenvs
    from jaxenvs.pokejax.data import GEN1OU_SAMPLE_TEAMS
    from jaxenvs.pokejax.reference import bench_rows

    _, params = jaxenvs.make("PokeJAX", format="gen1ou", teams=GEN1OU_SAMPLE_TEAMS)
    monkeypatch.setattr(bench_rows, "BATTLES", 4)
    battles = list(bench_rows._battles(showdown, params, bench_rows._packed_teams(params)))
    species = {line.split("|")[0] for t in battles for team in t.teams for line in
               team.split("]")}
    assert len(battles) == 4 and {"Alakazam", "Jynx", "Gengar", "Persian"} <= species
    assert all(t.winner is not None for t in battles)
    (row,) = bench.references_for("PokeJAX")
    assert row.fn(64, 16, params) > 0
