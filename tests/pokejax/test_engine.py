"""L2/L3: the JAX battle engine against Showdown 0.11.11, decision by decision.

Random-vs-random battles in Showdown (the harness's ``play_random``), replayed in the engine
with the same seed and choices (``replay.replay_many``: batches of battles under ``vmap``). At
every decision the engine must equal Showdown's report exactly (no tolerance): turn, winner,
requests and legal choices, party order, HP, fainted/active flags, status and its counter,
boosts, modified and stored stats, types, species, volatiles with the confusion counter and the
substitute's HP, moves, PP, last moves, the sides' selected moves, the last damage, and the
PRNG (number of LCG outputs and the last one). Teams: ``gen1randombattle`` pool teams (all
playable), random legal teams of every supported move (``teams.supported_team``), mirror
matches of those (the same team on both sides: speed ties, and so the tie-break draws of the
event system, are frequent), and user teams in ``gen1ou`` (random teams its validator
accepts, in battles Showdown plays in that format).
"""

from concurrent.futures import ThreadPoolExecutor

import jax
import numpy as np
import pytest

from jaxenvs.pokejax import teams as tm
from jaxenvs.pokejax._src import moves, prng, turn
from jaxenvs.pokejax._src.state import from_report, init_state
from jaxenvs.pokejax.data import gen1, team_pool
from jaxenvs.pokejax.reference import replay
from jaxenvs.pokejax.reference.battles import random_team_battles


def _pool_battles(showdown, n, seed):
    """Battles between random pairs of pool teams."""
    pool = team_pool()
    rng = np.random.default_rng(seed)
    for _ in range(n):
        a, b = (int(k) for k in rng.integers(0, len(pool.moves), 2))
        words, policy = ([int(w) for w in rng.integers(0, 1 << 16, 4)] for _ in range(2))
        yield showdown.random_battle(words, (tm.packed(pool, a), tm.packed(pool, b)),
                                     policy_seed=policy)


def _record_while_compiling(battles):
    """Showdown records the battles (a Node process: the other core) while the engine's batched
    replay compiles."""
    with ThreadPoolExecutor(1) as pool:
        recorded = pool.submit(list, battles)
        replay.warm_up()
        return recorded.result()


def _agree(trajs):
    """Every trajectory agrees at every decision; returns the decisions compared."""
    decisions = 0
    for traj, (divergence, compared) in zip(trajs, replay.replay_many(trajs)):
        assert divergence is None, f"seed {traj.seed}, teams {traj.teams}\n{divergence}"
        assert traj.winner is not None
        decisions += compared
    return decisions


def test_pool_battles_match_showdown(showdown):
    """500 battles between random pool teams (every pool team is playable)."""
    trajs = _record_while_compiling(_pool_battles(showdown, 500, 1))
    assert len({t for traj in trajs for t in traj.teams}) > 900
    assert _agree(trajs) > 25000


@pytest.mark.parametrize("mirror", [False, True], ids=["random", "mirror"])
def test_random_team_battles_match_showdown(showdown, mirror):
    assert _agree(list(random_team_battles(showdown, 32, 100 + mirror, mirror))) > 1500


def _gen1ou_battles(showdown, n, seed):
    """Battles in Showdown's gen1ou between random teams its gen1ou validator accepts."""
    trajs = list(random_team_battles(showdown, n, seed, format="gen1ou"))
    for traj in trajs:
        for team in traj.teams:
            assert showdown.validate(team, "gen1ou") == [], team
    return trajs


def test_gen1ou_battles_between_user_teams_match_showdown(showdown):
    assert _agree(_gen1ou_battles(showdown, 32, 300)) > 1500


@pytest.mark.slow
def test_many_gen1ou_battles_between_user_teams_match_showdown(showdown):
    assert _agree(_gen1ou_battles(showdown, 500, 301)) > 25000


@pytest.mark.slow
def test_many_pool_battles_match_showdown(showdown):
    """10,000 pool battles, recorded and replayed 500 at a time."""
    decisions = 0
    battles = _pool_battles(showdown, 10000, 2)
    for _ in range(20):
        decisions += _agree([next(battles) for _ in range(500)])
    assert decisions > 500000


@pytest.mark.slow
@pytest.mark.parametrize("mirror", [False, True], ids=["random", "mirror"])
def test_many_random_team_battles_match_showdown(showdown, mirror):
    assert _agree(list(random_team_battles(showdown, 500, 200 + mirror, mirror))) > 25000


def test_state_injection_from_reports(showdown):
    """From every report of a few battles, injected with ``from_report`` (the PRNG state is
    the seed advanced by every output drawn so far), one decision gives Showdown's next
    report; ``from_report`` with one base state per battle (built from another seed) gives
    the same state."""
    cases = []
    for traj in random_team_battles(showdown, 3, 7, mirror=True):
        arrays = [tm.to_arrays(tm.parse(t)) for t in traj.teams]
        rng, calls, last = init_state(arrays, traj.seed).rng, 0, None
        base = init_state(arrays, (5, 6, 7, 8))
        for k, report in enumerate([traj.initial] + traj.reports[:-1]):
            for c in report["rng"]:
                for raw in c["raw"]:
                    rng, calls, last = prng.next(rng)[0], calls + 1, raw
            state = from_report(report, arrays, rng, calls)
            assert replay.compare(state, report, calls, last) == []
            same = from_report(report, arrays, rng, calls, base=base)
            assert all(np.array_equal(a, b) for a, b in zip(jax.tree.leaves(state),
                                                            jax.tree.leaves(same)))
            nxt, choices = traj.reports[k], traj.choices[k]
            n_calls = calls + sum(len(c["raw"]) for c in nxt["rng"])
            n_last = next((c["raw"][-1] for c in reversed(nxt["rng"]) if c["raw"]), last)
            cases.append((state, replay._actions(choices), nxt, n_calls, n_last, k))
    stepped = replay.step_many([c[0] for c in cases], np.asarray([c[1] for c in cases]))
    for (_, actions, nxt, n_calls, n_last, k), (state, legal) in zip(cases, stepped):
        assert replay.compare(state, nxt, n_calls, n_last, legal) == [], (k, actions)
    assert len(cases) > 100


def test_legal_actions_follow_the_request():
    """Move requests offer moves with PP (or Struggle) and living benched Pokémon; switch
    requests only the Pokémon; asleep or frozen, only Fight (``move 1``) and the switches."""
    rng = np.random.default_rng(0)
    arrays = [tm.to_arrays(tm.supported_team(rng, 3)) for _ in range(2)]
    state = turn.start(init_state(arrays, (1, 2, 3, 4)))
    legal = np.asarray(turn.legal_actions(state))
    n_moves = [(arrays[s]["moves"][0] > 0).sum() for s in range(2)]
    for s in range(2):
        assert legal[s, :4].tolist() == [k < n_moves[s] for k in range(4)]
        assert legal[s, 4:].tolist() == [True, True, False, False, False]
    empty = state.replace(pp=state.pp.at[0].set(0))
    assert np.asarray(turn.legal_actions(empty))[0, :4].tolist() == [True, False, False, False]
    asleep = state.replace(status=state.status.at[1, 0].set(5))
    assert np.asarray(turn.legal_actions(asleep))[1].tolist() == [True, False, False, False,
                                                                   True, True, False, False,
                                                                   False]


def test_unsupported_moves_are_named():
    with pytest.raises(ValueError, match="notamove"):
        moves.check_supported(["tackle", "bodyslam", "notamove"])
    assert set(moves.SUPPORTED) == set(gen1().move_index)  # all 165 Gen 1 moves


def test_the_whole_pool_is_supported():
    pool = team_pool()
    names = gen1().move_names
    moves.check_supported(names[m] for m in np.unique(pool.moves))
