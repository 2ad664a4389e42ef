"""The float64 agreement tests of ``test_physics.py``, run in a subprocess with x64 enabled.

JAX's 64-bit mode must be on from the start of a process (switching it inside one breaks
non-jitted indexing), so the main test process, which runs in float32, cannot run them
itself. This test runs that file again with ``JAX_ENABLE_X64=1`` and fails with its output
if any float64 check fails.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mujoco")

PHYSICS_TESTS = Path(__file__).with_name("test_physics.py")


def test_float64_physics_matches_mujoco():
    env = dict(os.environ, JAX_ENABLE_X64="1", JAX_PLATFORMS="cpu")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(PHYSICS_TESTS)],
        env=env, capture_output=True, text=True, timeout=1200)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-3000:]
    assert " passed" in result.stdout and "failed" not in result.stdout
