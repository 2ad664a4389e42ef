"""``jaxenvs verify Hopper`` and ``jaxenvs verify Walker2d`` at a small size: each suite is
registered, passes on our env and fails on a perturbed one (so its checks can fail).
Tolerances are the suite's (``jaxenvs.planar_reference.verification``): float32 here, |Δobs|
<= 2e-3 (1 + |obs|), termination exact, median |Δobs| <= 1e-5, replays within 5e-3 for the
body's target number of random-action steps.
"""

import pytest

pytest.importorskip("mujoco")

from jaxenvs.hopper import Hopper  # noqa: E402
from jaxenvs.planar_reference import verification  # noqa: E402
from jaxenvs.verify.suite import SuiteOptions, get_suite  # noqa: E402
from jaxenvs.walker2d import Walker2d  # noqa: E402

ENVS = {"Hopper": Hopper, "Walker2d": Walker2d}


def _nudged(env_class):
    """``env_class`` whose root moves 0.05 m/s faster along x before each step."""

    class Nudged(env_class):
        def step_env(self, key, state, action, params):
            return super().step_env(key, state.replace(qvel=state.qvel.at[0].add(0.05)),
                                    action, params)

    return Nudged()


def _run(env_id, env=None):
    return list(verification.make_suite(env_id, states=30, seeds=2, env=env)(SuiteOptions()))


@pytest.mark.parametrize("env_id", list(ENVS))
def test_suite_is_registered(env_id):
    assert get_suite(env_id) is getattr(verification, f"{env_id.lower()}_suite")


@pytest.mark.parametrize("env_id", list(ENVS))
def test_suite_passes_at_small_size(env_id):
    checks = _run(env_id)
    assert all(check.ok for check in checks), [c.name for c in checks if not c.ok]
    names = " ".join(c.name for c in checks)
    assert "state injection" in names and "replay" in names


@pytest.mark.parametrize("env_id", list(ENVS))
def test_suite_fails_on_a_perturbed_env(env_id):
    checks = _run(env_id, _nudged(ENVS[env_id]))
    failed = {c.name.split(" ")[0] for c in checks if not c.ok}
    assert failed == {"state", "replay"}, [(c.name, c.ok) for c in checks]
