"""L4: each body's committed PPO policy (``jaxenvs/<body>/data/policy``, trained in our env)
runs in our env and in gymnasium's MuJoCo ``-v5`` env (``jaxenvs.planar_reference.transfer``):
it reaches returns far beyond an untrained policy's in both engines, and (slow) its mean
returns over ``transfer.EPISODES`` episodes each are equivalent by TOST within 5% of the mean
return, each at least the return users recognise for the body."""

import pytest

from jaxenvs.planar_reference import transfer

pytest.importorskip("gymnasium")

#: Per body: the return each of the fast test's episodes must reach (an untrained policy gets
#: about -300 to 0 in HalfCheetah and under 100 in Hopper and Walker2d; standing still gets
#: 1,000), and the mean return the L4 check asks of both engines.
RETURNS = {"HalfCheetah": (2_000, 3_000), "Hopper": (2_000, 2_500), "Walker2d": (2_000, 3_000)}
#: Episodes per engine in the fast test.
EPISODES = 2


@pytest.fixture(scope="module", params=sorted(RETURNS))
def policy(request):
    return transfer.load(request.param)


def test_policy_runs_in_mujoco(policy):
    returns = transfer.gymnasium_returns(policy, EPISODES, seed=1)
    assert returns.min() >= RETURNS[policy.env_id][0], returns


def test_policy_runs_in_our_env(policy):
    returns = transfer.jax_returns(policy, EPISODES, seed=0)
    assert returns.min() >= RETURNS[policy.env_id][0], returns


@pytest.mark.slow
@pytest.mark.parametrize("env_id", sorted(RETURNS))
def test_returns_in_both_engines_are_equivalent(env_id):
    """The L4 check: ``transfer.EPISODES`` whole episodes per engine."""
    result = transfer.compare(transfer.load(env_id), episodes=transfer.EPISODES, seed=0)
    assert result.tost.equivalent, result.tost
    target = RETURNS[env_id][1]
    assert result.jax_mean >= target and result.reference_mean >= target, result

