"""``jaxenvs verify HalfCheetah`` at a small size: it passes on our env and fails on a perturbed
one (so its checks can fail). Tolerances are the suite's (``verification``): float32 here,
|Δobs| <= 2e-3 (1 + |obs|), median |Δobs| <= 1e-5, replays within 5e-3 for 10 steps.
"""

import pytest

pytest.importorskip("mujoco")

from jaxenvs.halfcheetah import HalfCheetah  # noqa: E402
from jaxenvs.planar_reference.verification import make_suite  # noqa: E402
from jaxenvs.verify.suite import SuiteOptions, get_suite  # noqa: E402


class NudgedHalfCheetah(HalfCheetah):
    """HalfCheetah whose torso moves 0.05 m/s faster along x before each step."""

    def step_env(self, key, state, action, params):
        return super().step_env(key, state.replace(qvel=state.qvel.at[0].add(0.05)), action,
                                params)


def _run(env=None):
    return list(make_suite("HalfCheetah", states=30, seeds=2, env=env)(SuiteOptions()))


def test_suite_is_registered():
    from jaxenvs.planar_reference import verification
    assert get_suite("HalfCheetah") is verification.halfcheetah_suite


def test_suite_passes_at_small_size():
    checks = _run()
    assert all(check.ok for check in checks), [c.name for c in checks if not c.ok]
    names = " ".join(c.name for c in checks)
    assert "state injection" in names and "replay" in names


def test_suite_fails_on_a_perturbed_env():
    checks = _run(NudgedHalfCheetah())
    failed = {c.name.split(" ")[0] for c in checks if not c.ok}
    assert failed == {"state", "replay"}, [(c.name, c.ok) for c in checks]
