"""L4: the committed PPO policy (``jaxenvs/halfcheetah/data/policy``, trained in our env) runs
in our env and in gymnasium's MuJoCo HalfCheetah-v5 (``jaxenvs.halfcheetah.reference.transfer``):
it runs forward far beyond what an untrained policy does (about -300 to 0) in both engines, and
(slow) its mean returns over 100 episodes each are equivalent by TOST within 5% of the mean
return, each at least 3,000."""

import pytest

from jaxenvs.halfcheetah.reference import transfer

#: Episodes per engine in the fast test, and the return each must reach (the policy's mean
#: is above 3,000 in both engines; an untrained policy gets about -300 to 0).
EPISODES = 2
MIN_RETURN = 2_000


@pytest.fixture(scope="module")
def policy():
    return transfer.load()


def test_policy_runs_in_mujoco(policy):
    returns = transfer.gymnasium_returns(policy, EPISODES, seed=1)
    assert returns.min() >= MIN_RETURN, returns


def test_policy_runs_in_our_env(policy):
    returns = transfer.jax_returns(policy, EPISODES, seed=0)
    assert returns.min() >= MIN_RETURN, returns


@pytest.mark.slow
def test_returns_in_both_engines_are_equivalent(policy):
    """The L4 check: 100 episodes of 1,000 steps per engine."""
    result = transfer.compare(policy, episodes=100, seed=0)
    assert result.tost.equivalent, result.tost
    assert result.jax_mean >= 3_000 and result.reference_mean >= 3_000, result
