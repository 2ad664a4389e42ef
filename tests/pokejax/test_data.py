"""The generated Gen 1 tables and team pool against a fresh run of Showdown's generator."""

import numpy as np

from jaxenvs.pokejax import teams as tm
from jaxenvs.pokejax.data import CATEGORIES, STATS, gen1, team_pool
from tests.benchmark_scripts import load_tool

generate = load_tool("pokejax_data")


def test_tables_regenerate_to_the_same_bytes(showdown):
    assert generate.build_tables(showdown) == generate.TABLES_FILE.read_text(encoding="utf-8")


def test_tables_loader():
    d = gen1()
    assert d.species_names[25] == "pikachu" and d.species_index["mew"] == 151
    assert len(d.species_names) == 152 and len(d.move_names) == 166
    assert d.move_names[165] == "struggle" and d.move_index["pound"] == 1
    assert d.type_names[1:16] == tuple(sorted(d.type_names[1:16])) and d.type_names[16] == "???"
    for s in d.raw["species"]:
        n = s["num"]
        assert list(d.base_stats[n]) == [s["baseStats"][k] for k in STATS]
        assert [d.type_names[t] for t in d.species_types[n] if t] == s["types"]
    for m in d.raw["moves"]:
        n = m["num"]
        assert d.type_names[d.move_type[n]] == m["type"]
        assert CATEGORIES[d.move_category[n]] == m["category"]
        assert d.move_base_power[n] == m["basePower"] and d.move_pp[n] == m["pp"]
        assert d.move_accuracy[n] == (0 if m["accuracy"] is True else m["accuracy"])
    for a in d.raw["types"]:
        for b in d.raw["types"]:
            assert d.type_chart[d.type_index[a], d.type_index[b]] == d.raw["typechart"][a][b]
    assert (d.type_chart[0] == 1).all() and (d.type_chart[:, 16] == 1).all()
    # Gen 1's chart as Showdown's gen1 mod has it (its known differences from later gens)
    t = d.type_index
    assert d.type_chart[t["Ghost"], t["Psychic"]] == 0
    assert d.type_chart[t["Bug"], t["Poison"]] == 2 and d.type_chart[t["Poison"], t["Bug"]] == 2
    assert d.type_chart[t["Ice"], t["Fire"]] == 1
    assert d.learnable[d.species_index["charizard"], d.move_index["ember"]]
    assert not d.learnable[d.species_index["charizard"], d.move_index["surf"]]


def test_team_pool_shape():
    pool = team_pool()
    assert len(pool) >= 10_000
    assert pool.species.shape == (len(pool), 6) and pool.moves.shape == (len(pool), 6, 4)
    assert ((pool.species >= 1) & (pool.species <= 151)).all()
    assert (pool.moves[:, :, 0] >= 1).all() and (pool.moves <= 165).all()
    assert ((pool.level >= 1) & (pool.level <= 100)).all()
    # species clause: no species twice in a team
    assert all(len(set(row)) == 6 for row in pool.species.tolist())
    assert len({tuple(s) for s in pool.seeds.tolist()}) == len(pool)


def test_team_pool_regenerates(showdown):
    """40 pool teams (spread over the pool) regenerated from their seeds by Showdown equal the
    stored arrays, and the pool's packed text equals Showdown's ``Teams.pack``."""
    pool = team_pool()
    idx = np.random.default_rng(0).choice(len(pool), 40, replace=False)
    idx = sorted(set(idx.tolist()) | {0, len(pool) - 1})
    for i in idx:
        assert pool.seeds[i].tolist() == generate.team_seed(i)
    teams = showdown.generate_teams([generate.team_seed(i) for i in idx])
    arrays = generate.team_arrays(teams, gen1().raw)
    for k, i in enumerate(idx):
        for name in ("species", "moves", "level", "evs", "ivs"):
            np.testing.assert_array_equal(getattr(pool, name)[i], arrays[name][k], err_msg=name)
        assert tm.packed(pool, i) == teams[k]["packed"]


def test_type_chart_matches_showdowns_functions(showdown):
    """Every entry of the chart against the gen1 mod's ``getImmunity``/``getEffectiveness``."""
    d = gen1()
    matchups = showdown.call("type_matchups", mod="gen1")["matchups"]
    assert sorted(matchups) == list(d.type_names[1:16])
    for a, row in matchups.items():
        for b, (immune, eff) in row.items():
            want = 0 if immune else {1: 2, 0: 1, -1: 0.5}[eff]
            assert d.type_chart[d.type_index[a], d.type_index[b]] == want, (a, b)
