"""L4: the committed PPO policy (``jaxenvs/tcgjax/data/policy``) against the random opponent
in both engines (``jaxenvs.tcgjax.reference.transfer``): it wins far more often than a random agent in
the same games, and (slow) its win rates in the JAX env and in the reference engine over 2,000
games each are equivalent by TOST within 3 percentage points, and at least 90%."""

from pathlib import Path

import numpy as np
import pytest

from jaxenvs.tcgjax.cards import sample_decks
from jaxenvs.tcgjax.reference import RandomPolicy, play_game, transfer
from jaxenvs.tcgjax.rng import PythonRandomSource

CHECKPOINT = Path(transfer.__file__).parents[1] / "data" / "policy"
#: Games per engine in the fast tests; the policy must win at least WIN_RATE of them.
GAMES = 64
WIN_RATE = 0.8


@pytest.fixture(scope="module")
def policy():
    return transfer.load(CHECKPOINT)


def random_agent_wins(policy, games: int, seed: int) -> np.ndarray:
    """The reference's ``RandomPolicy`` in the agent's seat of the games
    ``transfer.reference_wins(policy, games, seed)`` plays (same game and opponent seeds)."""
    decks = [sample_decks()[name] for name in transfer.decks(policy)]
    seat = transfer.seat(policy)
    wins = []
    for g in range(games):
        players = [RandomPolicy(PythonRandomSource(transfer.reference_seed(seed, g, 1)))] * 2
        players[seat] = RandomPolicy(PythonRandomSource(1 + g))  # < reference seeds
        game = play_game(*decks, PythonRandomSource(transfer.reference_seed(seed, g, 0)),
                         tuple(players))
        wins.append(game.winner == seat)
    return np.array(wins, np.float64)


def test_policy_beats_random_in_the_reference_engine(policy):
    ours = transfer.reference_wins(policy, GAMES, seed=0)
    baseline = random_agent_wins(policy, GAMES, seed=0)
    assert ours.mean() >= WIN_RATE, (ours.mean(), baseline.mean())
    assert ours.mean() - baseline.mean() >= 0.25, (ours.mean(), baseline.mean())


def test_policy_beats_random_in_the_jax_engine(policy):
    ours = transfer.jax_decision_wins(policy, GAMES, seed=0)
    assert ours.mean() >= WIN_RATE, ours.mean()


@pytest.mark.slow
def test_win_rates_in_both_engines_are_equivalent(policy):
    """The L4 check: 2,000 games per engine (minutes: the env's step compiles slowly)."""
    result = transfer.compare(policy, games=2000, seed=0)
    assert result.tost.equivalent, result.tost
    assert result.jax_mean >= 0.9 and result.reference_mean >= 0.9, result
