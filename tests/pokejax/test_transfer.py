"""L4: the committed PPO policy (``jaxenvs/pokejax/data/policy``) against the random opponent
in PokeJAX and in Pokémon Showdown (``jaxenvs.pokejax.reference.transfer``): it wins far more often than
a random agent (about half the battles) in both engines, and (slow) its win rates over 2,000
battles each are equivalent by TOST within 3 percentage points."""

from pathlib import Path

import pytest

from jaxenvs.pokejax.reference import transfer

CHECKPOINT = Path(transfer.__file__).parents[1] / "data" / "policy"
#: Battles per engine in the fast tests; the policy must win at least WIN_RATE of them (a
#: random agent wins about half: 0.75 is ~3 standard deviations above that over 32 battles).
BATTLES = 32
WIN_RATE = 0.75


@pytest.fixture(scope="module")
def policy():
    return transfer.load(CHECKPOINT)


def test_policy_beats_random_in_showdown(policy, showdown):
    wins, unfinished = transfer.showdown_wins(policy, BATTLES, seed=1, process=showdown)
    assert unfinished == 0
    assert wins.mean() >= WIN_RATE, wins.mean()


def test_policy_beats_random_in_pokejax(policy):
    wins, unfinished = transfer.jax_wins(policy, BATTLES, seed=0)
    assert unfinished == 0
    assert wins.mean() >= WIN_RATE, wins.mean()


@pytest.mark.slow
def test_win_rates_in_both_engines_are_equivalent(policy):
    """The L4 check: 2,000 battles per engine (about half an hour on 2 cores)."""
    result = transfer.compare(policy, battles=2000, seed=0)
    assert result.tost.equivalent, result.tost
    assert result.jax_mean >= 0.8 and result.reference_mean >= 0.8, result
