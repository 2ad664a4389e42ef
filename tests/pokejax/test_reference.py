"""The Showdown harness and its Python driver: battles, reports, choices, the RNG record."""

import pytest

from jaxenvs.pokejax import teams as tm
from jaxenvs.pokejax.data import team_pool
from jaxenvs.pokejax.reference import ShowdownError, ShowdownProcess, driver, reference_problem

SEED = [1, 2, 3, 4]


def _teams(i=0):
    pool = team_pool()
    return tm.packed(pool, 2 * i), tm.packed(pool, 2 * i + 1)


def test_report_fields(showdown):
    p1, p2 = _teams()
    battle, report = showdown.new_battle(p1, p2, SEED)
    try:
        assert report["turn"] == 1 and not report["ended"] and report["winner"] is None
        assert "|start" in report["log"] and not any(l.startswith("|t:|") for l in report["log"])
        for side in report["sides"]:
            assert len(side["pokemon"]) == 6
            active = [p for p in side["pokemon"] if p["active"]]
            assert len(active) == 1 and active[0] is side["pokemon"][0]
            assert side["request"]["kind"] == "move"
            assert side["legal"][:len(side["request"]["moves"])] == [
                f"move {i + 1}" for i in range(len(side["request"]["moves"]))]
            assert side["legal"][-5:] == [f"switch {j}" for j in range(2, 7)]
            for p in side["pokemon"]:
                assert p["hp"] == p["maxhp"] > 0 and p["status"] == "" and not p["fainted"]
                assert all(m["pp"] == m["maxpp"] for m in p["moves"])
        assert showdown.state(battle)["sides"] == report["sides"]
    finally:
        showdown.close_battle(battle)


def test_switch_reorders_party(showdown):
    """``switch 3`` swaps party slots 1 and 3, as Showdown's choice numbering expects."""
    p1, p2 = _teams(1)
    battle, before = showdown.new_battle(p1, p2, SEED)
    try:
        after = showdown.choose(battle, p1="switch 3", p2="move 1")
        b, a = before["sides"][0]["pokemon"], after["sides"][0]["pokemon"]
        assert a[0]["team_index"] == b[2]["team_index"] and a[0]["active"]
        assert a[2]["team_index"] == b[0]["team_index"] and not a[2]["active"]
    finally:
        showdown.close_battle(battle)


def test_rejected_choice(showdown):
    p1, p2 = _teams()
    battle, _ = showdown.new_battle(p1, p2, SEED)
    try:
        with pytest.raises(ShowdownError, match="move 7"):
            showdown.choose(battle, p1="move 7", p2="move 1")
    finally:
        showdown.close_battle(battle)
    with pytest.raises(ShowdownError, match="no battle"):
        showdown.choose(987654, p1="move 1")
    with pytest.raises(ValueError, match="four integers"):
        showdown.new_battle(p1, p2, [1, 2, 3])


def test_rng_record_is_complete(showdown):
    """The raw outputs of all recorded calls, in order, are exactly the LCG's stream from the
    battle seed (no call is missed), and each call's result follows from its raw outputs."""
    traj = showdown.random_battle([7, 77, 777, 7777], _teams(2), policy_seed=[1, 1, 1, 1])
    calls = traj.rng_calls()
    raw = [r for c in calls for r in c["raw"]]
    assert len(raw) > 50
    assert raw == showdown.prng_stream([7, 77, 777, 7777], [("next",)] * len(raw))
    for c in calls:
        if c["fn"] == "random" and len(c["args"]) == 1:
            assert c["result"] == c["raw"][0] * c["args"][0] // 2**32
        elif c["fn"] == "random":
            m, n = c["args"]
            assert c["result"] == m + c["raw"][0] * (n - m) // 2**32
        elif c["fn"] == "randomChance":
            a, b = c["args"]
            assert c["result"] == (c["raw"][0] * b // 2**32 < a)
        elif c["fn"] == "shuffle":
            length, start, end = c["args"]
            assert len(c["raw"]) == max(end - start - 1, 0)
            assert sorted(c["result"]) == list(range(length))


def test_random_battle_replays_identically(showdown):
    """Same seed, teams and choices: the step-by-step replay from Python gives the reports
    that the in-Node random player recorded, and a second run gives the same trajectory."""
    teams = _teams(3)
    traj = showdown.random_battle([9, 8, 7, 6], teams, policy_seed=[5, 5, 5, 5])
    assert traj.reports[-1]["ended"] and traj.winner in ("p1", "p2", "")
    assert traj.num_decisions == len(traj.choices) == len(traj.reports)
    assert traj.num_choices == sum(len(c) for c in traj.choices) > traj.num_decisions
    previous = traj.initial
    for choices, report in zip(traj.choices, traj.reports):
        for k, side in enumerate(("p1", "p2")):
            legal = previous["sides"][k]["legal"]
            assert (choices.get(side) in legal) if legal else side not in choices
        previous = report
    again = showdown.random_battle([9, 8, 7, 6], teams, policy_seed=[5, 5, 5, 5])
    assert again.reports == traj.reports and again.choices == traj.choices
    replay = showdown.replay([9, 8, 7, 6], teams, traj.choices)
    assert replay.initial == traj.initial and replay.reports == traj.reports
    assert replay.num_choices == traj.num_choices
    fast = showdown.random_battle([9, 8, 7, 6], teams, policy_seed=[5, 5, 5, 5], record=False)
    assert (fast.num_decisions, fast.num_choices, fast.winner) == \
        (traj.num_decisions, traj.num_choices, traj.winner)


def test_callers(showdown):
    p1, p2 = _teams(4)
    battle, _ = showdown.new_battle(p1, p2, SEED, callers=True)
    try:
        report = showdown.choose(battle, p1="move 1", p2="move 1")
        assert report["rng"] and all(c["caller"] for c in report["rng"])
        assert any("getDamage" in f for c in report["rng"] for f in c["caller"])
    finally:
        showdown.close_battle(battle)


def test_missing_reference_names_the_install(monkeypatch, tmp_path):
    assert "Node.js" in reference_problem(node="no-such-node-binary")
    monkeypatch.setattr(driver, "REFERENCE_DIR", tmp_path)
    problem = reference_problem()
    assert problem is not None and "npm ci --prefix" in problem
    with pytest.raises(driver.ReferenceUnavailable, match="npm ci --prefix"):
        ShowdownProcess()


def test_standard_battles_save_and_load(showdown, tmp_path):
    from jaxenvs.pokejax.reference.battles import (battle_inputs, load_trajectories,
                                                   random_battles, save_trajectories)

    trajs = list(random_battles(showdown, range(3)))
    assert all(t.reports[-1]["ended"] for t in trajs)
    assert battle_inputs(1)[1] == (tm.packed(team_pool(), 2), tm.packed(team_pool(), 3))
    assert save_trajectories(tmp_path / "t.jsonl.gz", trajs) == 3
    assert load_trajectories(tmp_path / "t.jsonl.gz") == trajs


def test_legal_list_is_what_showdown_accepts(showdown):
    """At every decision of 12 random battles, ``legal`` is exactly the set of the 10 candidate
    choices that Showdown's ``side.choose`` accepts; trying them changes nothing (the battle
    then continues exactly as the uninterrupted recording)."""
    from jaxenvs.pokejax.reference.battles import battle_inputs, random_battles

    for i, traj in enumerate(random_battles(showdown, range(100, 112))):
        seed, teams, _ = battle_inputs(100 + i)
        battle, report = showdown.new_battle(teams[0], teams[1], seed)
        try:
            assert report == traj.initial
            for choices, want in zip(traj.choices, traj.reports):
                accepted = showdown.check_choices(battle)
                for side in report["sides"]:
                    assert sorted(accepted[side["id"]]) == sorted(side["legal"]), side["request"]
                report = showdown.choose(battle, choices.get("p1"), choices.get("p2"))
                assert report == want
        finally:
            showdown.close_battle(battle)


def test_refused_step_leaves_the_battle_unchanged(showdown):
    """A step with one bad choice is refused whole: the good one is withdrawn too."""
    p1, p2 = _teams(5)
    battle, _ = showdown.new_battle(p1, p2, SEED)
    try:
        with pytest.raises(ShowdownError, match="p2 choice"):
            showdown.choose(battle, p1="move 1", p2="switch 1")
        after = showdown.choose(battle, p1="switch 2", p2="move 1")
        assert after["turn"] == 2 and after["sides"][0]["pokemon"][0]["team_index"] == 1
    finally:
        showdown.close_battle(battle)
    fresh, _ = showdown.new_battle(p1, p2, SEED)
    try:
        assert showdown.choose(fresh, p1="switch 2", p2="move 1") == after
    finally:
        showdown.close_battle(fresh)
