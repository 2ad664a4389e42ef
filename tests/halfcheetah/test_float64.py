"""The float64 agreement tests of ``test_physics.py``, ``test_horizons.py`` and
``test_agreement.py``, run in a subprocess with x64 enabled.

JAX's 64-bit mode must be on from the start of a process (switching it inside one breaks
non-jitted indexing), so the main test process, which runs in float32, cannot run them
itself. These tests run those files again with ``JAX_ENABLE_X64=1`` and fail with the output
if any float64 check fails: the fast ones here, the slow ones (``-m slow``) in the slow test.
"""

from pathlib import Path

import pytest

from tests.x64 import run_tests_in_x64

pytest.importorskip("mujoco")

FLOAT64_TESTS = [str(Path(__file__).with_name(name))
                 for name in ("test_physics.py", "test_horizons.py", "test_agreement.py")]


def test_float64_physics_matches_mujoco():
    run_tests_in_x64(FLOAT64_TESTS)


@pytest.mark.slow
def test_float64_long_rollouts_match_mujoco():
    run_tests_in_x64(FLOAT64_TESTS, "-m", "slow")
