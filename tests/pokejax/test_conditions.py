"""Unit behaviour of ``conditions`` (statuses, clauses, volatiles) on small hand-made states.

The same mechanics are checked against Showdown decision by decision in ``test_moves.py`` and
``test_engine.py``; these tests pin the rules and their PRNG draws in isolation: which calls
draw (the ``SetStatus`` tie-break, sleep's and confusion's lengths) and which do not.
"""

import numpy as np

from jaxenvs.pokejax import teams as tm
from jaxenvs.pokejax._src import conditions as cond
from jaxenvs.pokejax._src import moves, turn
from jaxenvs.pokejax._src.state import init_state


def _state():
    rng = np.random.default_rng(3)
    arrays = [tm.to_arrays(tm.supported_team(rng, 3)) for _ in range(2)]
    return turn.start(init_state(arrays, (1, 2, 3, 4)))


def test_sleep_draws_its_length_and_the_clause_stops_a_second_one():
    state = _state()
    calls = int(state.rng_calls)
    state, ok = cond.set_status(state, 1, cond.SLP, True)
    assert bool(ok) and int(state.status[1, 0]) == cond.SLP
    assert 1 <= int(state.status_turns[1, 0]) <= 7
    assert int(state.rng_calls) == calls + 2  # the SetStatus tie-break, then random(1, 8)
    # the next foe-induced sleep on that side is refused after the tie-break draw
    switched = state.replace(party=state.party.at[1, 0].set(1).at[1, 1].set(0))
    after, ok = cond.set_status(switched, 1, cond.SLP, True)
    assert not bool(ok) and int(after.status[1, 1]) == 0
    assert int(after.rng_calls) == int(switched.rng_calls) + 1
    # a Pokémon's own Rest is not counted by the clause
    rested = state.replace(status_self=state.status_self.at[1, 0].set(True))
    _, ok = cond.set_status(rested.replace(party=switched.party), 1, cond.SLP, True)
    assert bool(ok)


def test_freeze_clause_and_no_draw_for_a_statused_target():
    state = _state()
    state, ok = cond.set_status(state, 0, cond.FRZ, True)
    assert bool(ok)
    calls = int(state.rng_calls)
    again, ok = cond.set_status(state, 0, cond.PAR, True)  # already frozen: no event
    assert not bool(ok) and int(again.rng_calls) == calls
    switched = state.replace(party=state.party.at[0, 0].set(1).at[0, 1].set(0))
    _, ok = cond.set_status(switched, 0, cond.FRZ, True)
    assert not bool(ok)


def test_before_move_order():
    state = _state()
    frozen = state.replace(status=state.status.at[0, 0].set(cond.FRZ))
    after, cant, _ = cond.before_move(frozen, 0)
    assert bool(cant) and int(after.rng_calls) == int(frozen.rng_calls)
    asleep = state.replace(status=state.status.at[0, 0].set(cond.SLP),
                           status_turns=state.status_turns.at[0, 0].set(1))
    after, cant, _ = cond.before_move(asleep, 0)
    assert bool(cant) and int(after.status_turns[0, 0]) == 0  # the waking turn is lost too
    woken, _ = cond.after_move_self(after, 0, True)
    assert int(woken.status[0, 0]) == 0
    confused = cond.add_confusion(state, 0, True)
    turns = int(confused.confusion_turns[0, 0])
    assert 2 <= turns <= 5 and int(confused.rng_calls) == int(state.rng_calls) + 1
    after, _, _ = cond.before_move(confused, 0)
    assert int(after.confusion_turns[0, 0]) == turns - 1


def test_confusion_self_hit_formula():
    # floor(floor((floor(2 * 50 / 5) + 2) * 100 * 40 / 80) / 50) + 2 = 24
    assert int(cond.confusion_damage(50, 100, 80)) == 24


def test_substitute_costs_a_quarter_and_holds_a_quarter_plus_one():
    state = _state()
    maxhp = int(state.maxhp[0, 0])
    after = moves._substitute(state, 0, True)
    assert int(after.hp[0, 0]) == maxhp - maxhp // 4
    assert int(after.sub_hp[0, 0]) == maxhp // 4 + 1
    assert bool(cond.has(after, 0, cond.SUBSTITUTE))
    again = moves._substitute(after, 0, True)  # one is up already: fails
    assert int(again.hp[0, 0]) == int(after.hp[0, 0])
    weak = state.replace(hp=state.hp.at[0, 0].set((maxhp - 1) // 4))
    assert not bool(cond.has(moves._substitute(weak, 0, True), 0, cond.SUBSTITUTE))
