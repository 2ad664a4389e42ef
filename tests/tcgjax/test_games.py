"""Whole games: every ordered pairing of the sample decks, invariants at every decision,
determinism from a seed, and the JAX-defined random stream."""

import itertools

import jax
import pytest
from hypothesis import given, settings, strategies as st

from jaxenvs.tcgjax import actions as A
from jaxenvs.tcgjax.cards import DECK_SIZE, random_deck, sample_decks
from jaxenvs.tcgjax.reference import (
    Phase, RandomPolicy, ScriptedPolicy, action_mask, legal_actions, play_game, step)
from jaxenvs.tcgjax.constants import TURN_LIMIT, WIN_POINTS
from jaxenvs.tcgjax.reference.state import HAND_MAX, game_from_dict
from jaxenvs.tcgjax.rng import (
    JaxKeyRandomSource, PythonRandomSource, RecordingRandomSource, ScriptedRandomSource)

DECKS = sample_decks()
PAIRS = list(itertools.product(sorted(DECKS), repeat=2))


def check_invariants(game, action):
    """What must hold at every decision."""
    legal = legal_actions(game)
    assert legal and action in legal and all(0 <= a < A.NUM_ACTIONS for a in legal)
    assert sum(action_mask(game)) == len(legal)
    for player in game.players:
        in_play = [m for m in player.slots if m is not None]
        assert len(player.deck) + len(player.hand) + len(player.discard) + sum(
            len(m.cards) for m in in_play) == DECK_SIZE
        assert len(player.hand) <= HAND_MAX and player.points < WIN_POINTS
        assert all(0 <= m.damage < m.card.hp and min(m.energy) >= 0 for m in in_play)
    if game.phase is Phase.MAIN and not game.pending:
        assert all(p.active is not None for p in game.players)
        assert 1 <= game.turn <= TURN_LIMIT


def play(deck0, deck1, seed, policies=None):
    if policies is None:
        policies = (RandomPolicy(PythonRandomSource(seed + 1)),
                    RandomPolicy(PythonRandomSource(seed + 2)))
    return play_game(DECKS[deck0], DECKS[deck1], PythonRandomSource(seed), policies,
                     on_step=check_invariants)


def check_outcome(game):
    assert game.over and game.winner in (0, 1, None)
    r0, r1 = game.rewards()
    assert r0 == -r1 and r0 in (-1.0, 0.0, 1.0)
    if game.winner is not None:
        loser = game.players[1 - game.winner]
        assert game.players[game.winner].points >= WIN_POINTS or not loser.has_pokemon()
    else:
        assert game.turn == TURN_LIMIT or all(p.points >= WIN_POINTS for p in game.players)


@pytest.mark.parametrize("deck0, deck1", PAIRS)
def test_random_games_every_pairing(deck0, deck1):
    for seed in range(3):
        check_outcome(play(deck0, deck1, 100 * seed))


@pytest.mark.parametrize("deck0, deck1", PAIRS[::7])
def test_scripted_against_random_and_itself(deck0, deck1):
    check_outcome(play(deck0, deck1, 5, (ScriptedPolicy(), RandomPolicy(PythonRandomSource(6)))))
    check_outcome(play(deck0, deck1, 7, (ScriptedPolicy(), ScriptedPolicy())))


def test_scripted_beats_random_more_often_than_not():
    wins = sum(play(d0, d1, s, (ScriptedPolicy(), RandomPolicy(PythonRandomSource(s)))).winner == 0
               for s, (d0, d1) in enumerate(PAIRS))
    assert wins > len(PAIRS) // 2


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), pair=st.sampled_from(PAIRS))
def test_random_games_property(seed, pair):
    check_outcome(play(*pair, seed))


def test_same_seed_same_game():
    a = play("water-blastoise", "fire-charizard-moltres", 11)
    b = play("water-blastoise", "fire-charizard-moltres", 11)
    assert a.to_dict() == b.to_dict() and a.log == b.log
    c = play("water-blastoise", "fire-charizard-moltres", 12)
    assert c.log != a.log


def test_recorded_stream_replays_the_same_game():
    rec = RecordingRandomSource(PythonRandomSource(3))
    policies = (RandomPolicy(PythonRandomSource(4)), RandomPolicy(PythonRandomSource(5)))
    a = play_game(DECKS["darkness-weezing-arbok-koga"], DECKS["grass-venusaur-exeggutor"], rec,
                  policies)
    coins = [r for kind, _, r in rec.calls if kind == "coin"]
    ints = [r for kind, _, r in rec.calls if kind == "randint"]
    perms = [r for kind, _, r in rec.calls if kind == "permutation"]
    policies = (RandomPolicy(PythonRandomSource(4)), RandomPolicy(PythonRandomSource(5)))
    b = play_game(DECKS["darkness-weezing-arbok-koga"], DECKS["grass-venusaur-exeggutor"],
                  ScriptedRandomSource(coins, ints, perms), policies)
    assert a.log == b.log and a.to_dict()["players"] == b.to_dict()["players"]


def test_jax_source_follows_the_documented_stream():
    source = JaxKeyRandomSource(7)
    key = jax.random.key(7)
    got = [source.coin(), source.randint(6), source.permutation(5), source.coin()]
    hi, lo = (int(w) for w in jax.random.key_data(jax.random.fold_in(key, 1)))
    want = [bool(jax.random.bernoulli(jax.random.fold_in(key, 0), 0.5)), (hi << 32 | lo) % 6,
            [int(x) for x in jax.random.permutation(jax.random.fold_in(key, 2), 20) if x < 5],
            bool(jax.random.bernoulli(jax.random.fold_in(key, 3), 0.5))]
    assert got == want and source.counter == 4
    assert sorted(got[2]) == list(range(5))


def test_game_driven_by_the_jax_stream_is_deterministic():
    def run():
        policies = (RandomPolicy(PythonRandomSource(1)), RandomPolicy(PythonRandomSource(2)))
        return play_game(DECKS["psychic-mewtwo-gardevoir"], DECKS["lightning-pikachu-zapdos"],
                         JaxKeyRandomSource(0), policies, on_step=check_invariants)

    a, b = run(), run()
    assert a.over and a.log == b.log and a.to_dict() == b.to_dict()
    assert a.to_dict()["rng_counter"] > 0


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_random_decks_of_implemented_cards(seed):
    decks = (random_deck(seed), random_deck(seed + 1))
    policies = (RandomPolicy(PythonRandomSource(seed + 2)),
                RandomPolicy(PythonRandomSource(seed + 3)))
    check_outcome(play_game(*decks, PythonRandomSource(seed), policies,
                            on_step=check_invariants))


@pytest.mark.slow
def test_many_random_games():
    for seed in range(20):
        for deck0, deck1 in PAIRS:
            check_outcome(play(deck0, deck1, 1000 + seed))
    for seed in range(300):
        decks = (random_deck(seed), random_deck(10**6 + seed))
        policies = (RandomPolicy(PythonRandomSource(seed)), ScriptedPolicy())
        check_outcome(play_game(*decks, PythonRandomSource(seed), policies,
                                on_step=check_invariants))


def test_state_dict_round_trip_and_resume():
    """``to_dict`` holds the whole state: a game rebuilt from it at any decision continues
    exactly like the original (same actions, same remaining random answers)."""
    decks = (DECKS["darkness-weezing-arbok-koga"], DECKS["fire-charizard-moltres"])
    rec = RecordingRandomSource(PythonRandomSource(21))
    actions, snapshots = [], []

    def record(game, action):
        snapshots.append((game.to_dict(), len(rec.calls)))
        actions.append(action)

    policies = (RandomPolicy(PythonRandomSource(22)), RandomPolicy(PythonRandomSource(23)))
    final = play_game(*decks, rec, policies, on_step=record).to_dict()
    for n in range(0, len(actions), 7):
        data, used = snapshots[n]
        rest = rec.calls[used:]
        game = game_from_dict(data, ScriptedRandomSource(
            [r for k, _, r in rest if k == "coin"], [r for k, _, r in rest if k == "randint"],
            [r for k, _, r in rest if k == "permutation"]))
        assert game.to_dict() == {**data, "rng_counter": None}
        for action in actions[n:]:
            step(game, action)
        assert {**game.to_dict(), "rng_counter": None} == {**final, "rng_counter": None}
