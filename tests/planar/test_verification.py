"""``jaxenvs verify Hopper`` and ``jaxenvs verify Walker2d`` at a small size: each suite is
registered, passes on our env in float64 and fails on a perturbed one (so its checks can
fail). Tolerances are the suite's (``jaxenvs.planar_reference.verification``). In float32 the
injection fails on the states where MJX's float32 fails too (docs/hopper-walker2d.md), which
a small sample may hold, so the passing suite is checked in float64 (|Δobs| <= 1e-7,
termination exact, replays for the body's float64 target of steps).
"""

import jax
import pytest

pytest.importorskip("mujoco")

from jaxenvs.hopper import Hopper  # noqa: E402
from jaxenvs.planar_reference import verification  # noqa: E402
from jaxenvs.verify.suite import SuiteOptions, get_suite  # noqa: E402
from jaxenvs.walker2d import Walker2d  # noqa: E402
from tests.x64 import run_tests_in_x64  # noqa: E402

ENVS = {"Hopper": Hopper, "Walker2d": Walker2d}
x64 = jax.config.jax_enable_x64


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


@pytest.mark.skipif(not x64, reason="float64 check: run with x64")
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


@pytest.mark.skipif(x64, reason="runs without x64")
def test_suite_passes_in_float64():
    run_tests_in_x64([f"{__file__}::test_suite_passes_at_small_size"], timeout=900)
