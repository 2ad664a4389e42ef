"""convert: reference Game <-> JAX GameState, lossless both ways, on positions of random play
(every sample pairing and random decks of implemented cards)."""

import itertools

import numpy as np


from jaxenvs.tcgjax._src.tables import NUM_CARDS, card_arrays, card_ids, card_index
from jaxenvs.tcgjax.cards import random_deck, sample_decks
from jaxenvs.tcgjax.reference import RandomPolicy, convert, play_game
from jaxenvs.tcgjax.rng import PythonRandomSource

DECKS = sample_decks()
PAIRS = list(itertools.product(sorted(DECKS), repeat=2))


def positions(decks, seed):
    """Every decision position of one random game, as (game dict, game)."""
    out = []
    policies = (RandomPolicy(PythonRandomSource(seed + 1)),
                RandomPolicy(PythonRandomSource(seed + 2)))
    final = play_game(*decks, PythonRandomSource(seed), policies,
                      on_step=lambda game, action: out.append(game.to_dict()))
    return out + [final.to_dict()]


def same_arrays(a, b):
    import jax

    return all(np.array_equal(x, y) and np.asarray(x).dtype == np.asarray(y).dtype
               for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b)))


def test_round_trip_on_positions_of_random_play():
    games = [((DECKS[a], DECKS[b]), s) for s, (a, b) in enumerate(PAIRS)]
    games += [((random_deck(s), random_deck(s + 500)), s) for s in range(16)]
    n = 0
    for decks, seed in games:
        for data in positions(decks, seed)[::3]:
            state = convert.from_dict(data, (1, 2))
            assert convert.to_dict(state) == data
            assert same_arrays(convert.from_dict(convert.to_dict(state), (1, 2)), state)
            game = convert.to_game(state, PythonRandomSource(0))
            assert {**game.to_dict(), "rng_counter": data["rng_counter"]} == data
            n += 1
    assert n > 1500


def test_card_table_arrays_follow_the_card_table():
    t = card_arrays()
    assert len(card_ids()) == NUM_CARDS == t.hp.shape[0]
    venusaur = card_index()["A1-004"]
    assert t.hp[venusaur] == 190 and t.is_ex[venusaur] and t.stage[venusaur] == 2
    assert t.attack_damage[venusaur].tolist() == [60, 100]
    assert t.attack_effect[venusaur, 1].tolist() == [19, 30, 0, 0]
    sabrina = card_index()["A1-225"]
    assert t.is_supporter[sabrina] and not t.is_pokemon[sabrina] and t.trainer[sabrina, 0] == 2
