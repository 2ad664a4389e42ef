"""L2/L3: the JAX battle engine against Showdown 0.11.11, decision by decision.

Battles between random legal teams whose moves the engine supports (``engine.supported_team``)
and between the pool teams made only of supported moves, random-vs-random in Showdown (the
harness's ``play_random``), replayed in the engine with the same seed and choices. At every decision the engine must equal Showdown's report exactly (no
tolerance): turn, winner, requests and legal choices, party order, HP, fainted/active flags,
status, boosts, modified and stored stats, volatiles, PP, and the PRNG (number of LCG outputs
and the last one). Mirror matches (the same team on both sides) make speed ties, and so the
tie-break draws of the event system, frequent.
"""

import numpy as np
import pytest

from jaxenvs.pokejax import engine, moves, prng, turn
from jaxenvs.pokejax import teams as tm
from jaxenvs.pokejax.data import gen1, team_pool
from jaxenvs.pokejax.state import from_report, init_state


def _battles(showdown, n, seed, mirror):
    rng = np.random.default_rng(seed)
    for _ in range(n):
        packed = [tm.pack(engine.supported_team(rng)) for _ in range(2)]
        if mirror:
            packed[1] = packed[0]
        words = [int(w) for w in rng.integers(0, 1 << 16, 4)]
        policy = [int(w) for w in rng.integers(0, 1 << 16, 4)]
        yield showdown.random_battle(words, tuple(packed), policy_seed=policy, callers=True)


def _agree(showdown, n, seed, mirror):
    decisions = 0
    for traj in _battles(showdown, n, seed, mirror):
        divergence, compared = engine.replay(traj)
        assert divergence is None, f"seed {traj.seed}, teams {traj.teams}\n{divergence}"
        assert traj.winner is not None
        decisions += compared
    return decisions


@pytest.mark.parametrize("mirror", [False, True], ids=["random", "mirror"])
def test_battles_match_showdown_every_decision(showdown, mirror):
    assert _agree(showdown, 10, 100 + mirror, mirror) > 400


@pytest.mark.slow
@pytest.mark.parametrize("mirror", [False, True], ids=["random", "mirror"])
def test_many_battles_match_showdown(showdown, mirror):
    assert _agree(showdown, 200, 200 + mirror, mirror) > 10000


def test_pool_teams_of_supported_moves_match_showdown(showdown):
    """Battles between the ``gen1randombattle`` pool teams whose moves are all supported."""
    pool = team_pool()
    supported = np.zeros(len(gen1().move_names), bool)
    supported[[0] + [gen1().move_index[m] for m in moves.SUPPORTED]] = True
    candidates = np.flatnonzero(supported[pool.moves].all(axis=(1, 2)))
    assert len(candidates) >= 10
    rng = np.random.default_rng(9)
    decisions = 0
    for _ in range(10):
        a, b = rng.choice(candidates, 2)
        words, policy = ([int(w) for w in rng.integers(0, 1 << 16, 4)] for _ in range(2))
        traj = showdown.random_battle(words, (pool.packed(a), pool.packed(b)),
                                      policy_seed=policy, callers=True)
        divergence, compared = engine.replay(traj)
        assert divergence is None, f"teams {a}, {b}, seed {words}\n{divergence}"
        decisions += compared
    assert decisions > 200


def test_state_injection_from_reports(showdown):
    """From every report of a few battles, injected with ``from_report`` (the PRNG state is
    the seed advanced by every output drawn so far), one decision gives Showdown's next
    report."""
    _, step, _ = engine.jitted()
    compared = 0
    for traj in _battles(showdown, 3, 7, mirror=True):
        arrays = [tm.to_arrays(tm.parse(t)) for t in traj.teams]
        rng, calls, last = init_state(arrays, traj.seed).rng, 0, None
        for k, report in enumerate([traj.initial] + traj.reports[:-1]):
            for c in report["rng"]:
                for raw in c["raw"]:
                    rng, calls, last = prng.next(rng)[0], calls + 1, raw
            state = from_report(report, arrays, rng, calls)
            assert engine.compare(state, report, calls, last) == []
            nxt, choices = traj.reports[k], traj.choices[k]
            actions = [engine.choice_to_action(choices[s]) if s in choices else 0
                       for s in ("p1", "p2")]
            state = step(state, np.asarray(actions, np.int32))
            n_calls = calls + sum(len(c["raw"]) for c in nxt["rng"])
            n_last = next((c["raw"][-1] for c in reversed(nxt["rng"]) if c["raw"]), last)
            assert engine.compare(state, nxt, n_calls, n_last) == [], (k, choices)
            compared += 1
    assert compared > 100


def test_legal_actions_follow_the_request():
    """Move requests offer moves with PP (or Struggle) and living benched Pokémon; switch
    requests only the Pokémon."""
    rng = np.random.default_rng(0)
    arrays = [tm.to_arrays(engine.supported_team(rng, 3)) for _ in range(2)]
    state = engine.jitted()[0](init_state(arrays, (1, 2, 3, 4)))
    legal = np.asarray(turn.legal_actions(state))
    n_moves = [(arrays[s]["moves"][0] > 0).sum() for s in range(2)]
    for s in range(2):
        assert legal[s, :4].tolist() == [k < n_moves[s] for k in range(4)]
        assert legal[s, 4:].tolist() == [True, True, False, False, False]
    empty = state.replace(pp=state.pp.at[0].set(0))
    assert np.asarray(turn.legal_actions(empty))[0, :4].tolist() == [True, False, False, False]


def test_unsupported_moves_are_named():
    with pytest.raises(ValueError, match="blizzard"):
        moves.check_supported(["tackle", "bodyslam", "blizzard"])
    assert all(m in gen1().move_index for m in moves.SUPPORTED)
