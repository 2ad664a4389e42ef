"""Team parsing and legality against Showdown's own ``Teams.import`` and validator."""

import numpy as np
import pytest

from jaxenvs.pokejax import teams
from jaxenvs.pokejax.data import STATS, gen1, team_pool

EXPORT = """
=== [gen1] Test ===

Sparky (Pikachu) (M)
Level: 88
EVs: 252 HP / 4 Atk / 100 SpA / 8 Spe
IVs: 30 Atk / 28 Def / 2 Spe
- Thunderbolt
- Surf
- Thunder Wave
-  Body Slam

Mr. Mime
~ Psychic
- Seismic Toss
---
Farfetch’d
Level: 5
EVs: 255 SpA
- Swords Dance

nidoranf
IVs: 0 HP / 0 Atk
- Double Kick
"""


def _as_showdown(s: teams.PokemonSet) -> dict:
    return {"species": s.species, "level": s.level, "moves": list(s.moves),
            "evs": dict(zip(STATS, s.evs)), "ivs": dict(zip(STATS, s.ivs))}


def test_export_parses_like_showdown(showdown):
    assert [_as_showdown(s) for s in teams.parse(EXPORT)] == showdown.import_team(EXPORT)


def test_packed_parses_like_showdown(showdown):
    pool = team_pool()
    texts = [teams.packed(pool, i) for i in range(0, 1000, 97)]
    texts.append("Sparky|Pikachu||Static|thunderbolt,surf|Jolly|252,,,100,,8|M|,30,28,,,2|S|88|")
    texts.append(teams.pack(teams.parse(EXPORT)))
    for text in texts:
        assert [_as_showdown(s) for s in teams.parse(text)] == showdown.import_team(text), text


def test_pack_roundtrip():
    team = teams.parse(EXPORT)
    assert teams.parse(teams.pack(team)) == team


def test_errors_name_the_problem():
    with pytest.raises(teams.TeamError, match=r"unknown species 'pikachuu'.*'pikachu'"):
        teams.load_team("Pikachuu\n- Thunderbolt")
    with pytest.raises(teams.TeamError, match=r"unknown move 'thunderbolttt'.*'thunderbolt'"):
        teams.load_team("Pikachu\n- Thunderbolttt")
    with pytest.raises(teams.TeamError, match="charizard cannot learn surf"):
        teams.load_team("Charizard\n- Surf")
    with pytest.raises(teams.TeamError, match="items do not exist"):
        teams.load_team("Pikachu @ Light Ball\n- Thunderbolt")
    with pytest.raises(teams.TeamError, match="5 moves"):
        teams.load_team("Pikachu\n- Thunderbolt\n- Surf\n- Thunder\n- Agility\n- Swift")
    with pytest.raises(teams.TeamError, match="HP DV 15"):
        teams.load_team("Pikachu\nIVs: 4 Atk\n- Thunderbolt")
    with pytest.raises(teams.TeamError, match="this one 7"):
        teams.load_team(teams.pack(teams.parse("\n\n".join(["Mew\n- Psychic"] * 7))))
    with pytest.raises(teams.TeamError) as err:
        teams.load_team("Pikachuu\n- Surf\n\nCharizard\n- Surf\n- Surf")
    assert len(err.value.problems) == 3


def test_load_team_gives_spd_the_special():
    (s,) = teams.load_team("Pikachu\nEVs: 100 SpA / 3 SpD\nIVs: 30 SpA / 12 SpD\n- Surf")
    assert s.evs[3:5] == (100, 100) and s.ivs[3:5] == (30, 30)


def test_to_arrays_roundtrip():
    pool = team_pool()
    for i in (0, 5, 9999):
        arrays = teams.to_arrays(teams.from_arrays(pool, i))
        for name, value in arrays.items():
            np.testing.assert_array_equal(value, getattr(pool, name)[i])


def test_learnability_agrees_with_showdowns_validator(showdown):
    """600 random single-move sets (every species, random moves, a quarter of them learnable):
    our table says "cannot learn" exactly when Showdown's Gen 1 validator says it can't learn it
    (or only by a transfer from Gen 2, which Gen 1 does not allow, or from a Japan-only
    event)."""
    d = gen1()
    rng = np.random.default_rng(1)
    disagreements = []
    for k in range(600):
        species = d.species_names[1 + k % 151]
        pool = np.flatnonzero(d.learnable[1 + k % 151]) if k % 4 == 0 else np.arange(1, 165)
        move = d.move_names[int(rng.choice(pool))]
        text = teams.pack([teams.PokemonSet(species, (move,), evs=(1, 0, 0, 0, 0, 0))])
        ours = any("cannot learn" in p for p in teams.problems(teams.parse(text)))
        theirs = any("can't learn" in p or "can't be transferred" in p or "Japan-only" in p
                     for p in showdown.validate(text, "gen1ubers"))
        if ours != theirs:
            disagreements.append((species, move, ours, theirs))
    assert not disagreements


def test_hp_dv_check_agrees_with_showdowns_validator(showdown):
    """200 random IV spreads: an HP DV problem here exactly when Showdown's validator has one."""
    rng = np.random.default_rng(2)
    for _ in range(200):
        ivs = tuple(int(v) for v in rng.integers(0, 32, 6))
        ivs = ivs[:4] + (ivs[3],) + ivs[5:]
        text = teams.pack([teams.PokemonSet("mew", ("psychic",), evs=(1, 0, 0, 0, 0, 0), ivs=ivs)])
        ours = any("HP DV" in p for p in teams.problems(teams.parse(text)))
        theirs = any("HP DV" in p for p in showdown.validate(text, "gen1ubers"))
        assert ours == theirs, ivs


def _ev(species, moves, name="", evs=(1, 0, 0, 0, 0, 0), level=100):
    return teams.PokemonSet(species, tuple(moves), evs=evs, name=name, level=level)


_FORMAT_CASES = [
    [_ev("mewtwo", ("psychic",))], [_ev("mew", ("psychic",))], [_ev("alakazam", ("psychic",))],
    [_ev("dugtrio", ("dig",))], [_ev("dugtrio", ("fissure",))], [_ev("dugtrio", ("slash",))],
    [_ev("pidgeot", ("fly",))], [_ev("rhydon", ("horndrill",))], [_ev("kingler", ("guillotine",))],
    [_ev("chansey", ("minimize",))], [_ev("chansey", ("doubleteam",))],
    [_ev("tauros", ("bodyslam",)), _ev("tauros", ("hyperbeam",))],
    [_ev("tauros", ("bodyslam",)), _ev("snorlax", ("bodyslam",))],
    [_ev("tauros", ("bodyslam",), "Bob"), _ev("snorlax", ("bodyslam",), "Bob")],
    [_ev("tauros", ("bodyslam",), "Snorlax"), _ev("snorlax", ("bodyslam",))],
    [_ev("tauros", ("bodyslam",), "Tauros"), _ev("snorlax", ("bodyslam",), "Tauros")],
    [_ev("tauros", ("bodyslam",), evs=(0, 0, 0, 0, 0, 1))],
    [_ev("ekans", ("wrap",), evs=(0,) * 6, level=1)],
    [_ev("ekans", ("wrap",), evs=(0,) * 6, level=2)], [_ev("tauros", ("bodyslam",), level=50)],
    [_ev("tauros", ("bodyslam",), level=50, evs=(4,) + (0,) * 5)],
    [_ev("tauros", ("bodyslam",), level=50, evs=(0,) * 6)],
    [_ev("tauros", ("bodyslam",), evs=(252, 4, 252, 0, 0, 0))],
    [_ev("tauros", ("bodyslam",), evs=(255, 255, 0, 0, 0, 0))],
    [_ev("tauros", ("bodyslam",), evs=(255, 254, 0, 0, 0, 0))],
    [_ev("tauros", ("bodyslam",), evs=(0, 0, 0, 254, 0, 0))],
]


def _export(team):
    """``team`` in export form, its EVs written out (a packed team without EVs would reach
    the validator as one with no EV field, which it fills with 252)."""
    return "\n\n".join(
        "\n".join([f"{s.name} ({s.species})" if s.name else s.species, f"Level: {s.level}",
                   "EVs: " + " / ".join(f"{v} {k}" for k, v in zip(STATS, s.evs))]
                  + [f"- {m}" for m in s.moves]) for s in team)


@pytest.mark.parametrize("format", list(teams.BANNED_SPECIES))
def test_format_clauses_agree_with_showdowns_validator(showdown, format):
    """Each ban and clause of the format, its checks of the EV total, and sets beside them
    that break none, built as teams: a problem here exactly when Showdown's validator for the
    format has one."""
    for team in _FORMAT_CASES:
        text = _export(team)
        assert teams.parse(text) == team
        ours, theirs = teams.format_problems(team, format), showdown.validate(text, format)
        assert bool(ours) == bool(theirs), (text, ours, theirs)
    # no EVs line in an export: 0 EVs, which the validator refuses (a packed team without EVs
    # it would fill with 252 each instead)
    text = "Tauros\n- Body Slam"
    assert teams.format_problems(teams.parse(text), format) and showdown.validate(text, format)


def test_gen1ou_has_the_battle_rules_of_gen1randombattle(showdown):
    """In the pinned Showdown, gen1ou's rule table is gen1randombattle's plus the Uber ban
    (the clauses, mods and complex bans are the same), gen1ubers' is gen1ou's without it, and
    the formats' other fields differ only in team source and display: the battles are played
    by the same rules."""
    rand, ou, ubers = (showdown.format_rules(f) for f in teams.FORMATS)
    assert set(ou["rules"]) - set(rand["rules"]) == {"-tag:uber"}
    assert set(rand["rules"]) <= set(ou["rules"])
    assert set(ubers["rules"]) == set(ou["rules"]) - {"-tag:uber"}
    assert rand["complex_bans"] == ou["complex_bans"] == ubers["complex_bans"]
    differ = {k for k in {*rand["fields"], *ou["fields"]}
              if rand["fields"].get(k) != ou["fields"].get(k)}
    assert differ == {"name", "id", "fullname", "banlist", "team", "bestOfDefault", "section",
                      "column"}, differ
    # the move pairs ``problems`` refuses are the complex bans of the Obtainable Moves rule
    pairs = {tuple(sorted((s, a, b))) for s, a, b in gen1().incompatible}
    bans = {tuple(sorted(teams.to_id(w) for w in ban.split(" + ")))
            for ban in ou["complex_bans"]}
    assert pairs and pairs <= bans


def test_load_teams_fills_what_showdowns_validator_fills(showdown):
    """A packed team without EVs or level, and an export with only some EVs: ``load_teams``
    gives the sets Showdown's validator leaves after filling them (252 EVs for the packed
    team; Special defense following Special attack)."""
    packed = ("Tauros|||NoAbility|bodyslam,hyperbeam|||||||]"
              "Chansey|||NoAbility|softboiled,seismictoss|||||||")
    export = "Starmie\nEVs: 100 SpA / 4 Spe\nIVs: 30 SpA\n- Surf\n- Recover"
    for text in (packed, export):
        problems, sets = showdown.validated(text, "gen1ou")
        (team,) = teams.load_teams(text, "gen1ou")
        assert not problems and [_as_showdown(s) for s in team] == sets, (text, sets)
    assert teams.load_teams(packed)[0][0].evs == (252,) * 6


def test_load_teams_reads_every_way_teams_are_given(tmp_path):
    """Several exports under ``===`` lines, packed lines with or without the backup's
    ``format]name|`` prefix, a file, a list: the same teams, in order; every problem of every
    team in one error."""
    a = "Tauros\nEVs: 4 HP\n- Body Slam\n"
    b = "Snorlax\nEVs: 4 HP\n- Rest\n"
    packed = [teams.pack(teams.parse(t)) for t in (a, b)]
    expected = [teams.parse(a), teams.parse(b)]
    path = tmp_path / "my.teams"
    path.write_text(f"=== [gen1ou] A ===\n\n{a}\n=== [gen1ou] B ===\n\n{b}")
    for given in (path, str(path), path.read_text(), "\n".join(packed),
                  "\n".join(f"gen1ou]Team {k}|{p}" for k, p in enumerate(packed)), [a, b],
                  [a, packed[1]]):
        assert teams.load_teams(given) == expected, given
    with pytest.raises(teams.TeamError) as error:
        teams.load_teams([a.replace("Tauros", "Mewtwo"), b.replace("4 HP", "0 HP")])
    assert [p.split(":")[0] for p in error.value.problems] == ["team 1", "team 2"]
    with pytest.raises(teams.TeamError, match="no team file"):
        teams.load_teams(str(tmp_path / "missing.txt"))
    with pytest.raises(teams.TeamError, match="unknown format"):
        teams.load_teams(a, "gen2ou")


def test_format_clauses_agree_on_generated_teams(showdown):
    """200 teams of the pool (Showdown's random-battle generator, whose sets may carry Mew,
    Mewtwo, Dig, Fly or an OHKO move, at levels the validator may refuse): the verdicts agree
    in both formats."""
    pool = team_pool()
    for i in range(0, 10_000, 50):
        team = teams.from_arrays(pool, i)
        for format in teams.BANNED_SPECIES:
            ours, theirs = (teams.format_problems(team, format),
                            showdown.validate(teams.pack(team), format))
            assert bool(ours) == bool(theirs), (i, format, ours, theirs)


def test_level_minimums_agree_with_showdowns_validator(showdown):
    """600 random single-move sets of learnable moves at random levels: a level problem here
    (the species, or the move, below its lowest level) exactly when Showdown's Gen 1 validator
    has one."""
    d = gen1()
    rng = np.random.default_rng(3)
    disagreements = []
    for k in range(600):
        species = 1 + k % 151
        move = d.move_names[int(rng.choice(np.flatnonzero(d.learnable[species])))]
        level = int(rng.integers(1, 101))
        text = teams.pack([teams.PokemonSet(d.species_names[species], (move,), level=level,
                                            evs=(1, 0, 0, 0, 0, 0))])
        ours = any("level" in p for p in teams.problems(teams.parse(text)))
        theirs = any("level" in p for p in showdown.validate(text, "gen1ubers"))
        if ours != theirs:
            disagreements.append((d.species_names[species], move, level, ours, theirs))
    assert not disagreements


def test_move_combinations_agree_with_showdowns_validator(showdown):
    """Every pair of moves ``data.incompatible`` holds, and 800 random sets of up to four
    learnable moves at levels each move alone allows (bans aside): a problem here exactly when
    Showdown's Gen 1 validator has one."""
    d = gen1()
    cases = [teams.PokemonSet(s, (a, b), evs=(1, 0, 0, 0, 0, 0))
             for s, a, b in sorted(d.incompatible) if a < b]
    rng = np.random.default_rng(5)
    allowed = np.array([m not in teams.BANNED_MOVES for m in d.move_names])
    for k in range(800):
        species = 1 + k % 151
        learn = np.flatnonzero(d.learnable[species] & allowed)
        moves = rng.choice(learn, min(len(learn), 4), replace=False)
        lowest = max(d.min_level[species], *d.learn_level[species, moves])
        cases.append(teams.PokemonSet(d.species_names[species],
                                      tuple(d.move_names[m] for m in moves),
                                      level=int(rng.integers(lowest, 101)),
                                      evs=(1, 0, 0, 0, 0, 0)))
    disagreements = []
    for case in cases:
        ours = teams.problems([case])
        theirs = showdown.validate(_export([case]), "gen1ubers")
        if bool(ours) != bool(theirs):
            disagreements.append((case, ours, theirs))
    assert len(cases) > 800 + 10 and not disagreements, disagreements[:3]


@pytest.mark.parametrize("species, move", [("fearow", "payday"), ("rapidash", "payday"),
                                           ("magikarp", "dragonrage"), ("pikachu", "fly")])
def test_moves_only_japan_only_events_gave_are_refused_as_showdown_refuses_them(
        showdown, species, move):
    text = teams.pack([teams.PokemonSet(species, (move,), evs=(1, 0, 0, 0, 0, 0))])
    assert any("cannot learn" in p for p in teams.problems(teams.parse(text)))
    assert any("Japan-only" in p for p in showdown.validate(text, "gen1ubers"))
