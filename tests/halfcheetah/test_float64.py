"""The float64 agreement tests of ``test_physics.py``, ``test_horizons.py`` and
``test_agreement.py``, run in a subprocess with x64 enabled.

JAX's 64-bit mode must be on from the start of a process (switching it inside one breaks
non-jitted indexing), so the main test process, which runs in float32, cannot run them
itself. These tests run those files again with ``JAX_ENABLE_X64=1`` and fail with the output
if any float64 check fails: the fast ones here, the slow ones (``-m slow``) in the slow test.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mujoco")

FLOAT64_TESTS = [str(Path(__file__).with_name(name))
                 for name in ("test_physics.py", "test_horizons.py", "test_agreement.py")]


def _run_x64(*pytest_args: str) -> None:
    env = dict(os.environ, JAX_ENABLE_X64="1", JAX_PLATFORMS="cpu")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *pytest_args,
         *FLOAT64_TESTS], env=env, capture_output=True, text=True, timeout=3000)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-3000:]
    assert " passed" in result.stdout and "failed" not in result.stdout


def test_float64_physics_matches_mujoco():
    _run_x64()


@pytest.mark.slow
def test_float64_long_rollouts_match_mujoco():
    _run_x64("-m", "slow")
