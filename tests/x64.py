"""``run_in_x64``: a Python script run in a process of its own with JAX's 64-bit mode on;
``run_tests_in_x64``: test files run so.

x64 must be on from the start of a process (switching it inside one breaks non-jitted
indexing), so the test process, which runs in JAX's default 32-bit mode, checks x64
behaviour through a subprocess.
"""

import os
import subprocess
import sys


def run_in_x64(script: str, timeout: float = 300) -> str:
    """``script``'s printed output (stripped), run with ``JAX_ENABLE_X64=1`` on the CPU;
    fails the test, showing the end of its stderr, if it exits with an error."""
    env = dict(os.environ, JAX_ENABLE_X64="1", JAX_PLATFORMS="cpu")
    result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                            text=True, timeout=timeout)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout.strip()


def run_tests_in_x64(paths: list[str], *pytest_args: str, timeout: float = 3000) -> None:
    """Run the test files ``paths`` with ``JAX_ENABLE_X64=1`` on the CPU; fails the test,
    showing the end of their output, unless some pass and none fails."""
    env = dict(os.environ, JAX_ENABLE_X64="1", JAX_PLATFORMS="cpu")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *pytest_args, *paths],
        env=env, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-3000:]
    assert " passed" in result.stdout and "failed" not in result.stdout
