"""Fixtures for PokeJAX tests: one Showdown process (Node) shared by the session.

Tests that need the reference take the ``showdown`` fixture. Without Node or the installed
package they are skipped with the install command, except under CI (``CI`` set), where a
missing reference is an error: the equivalence tests must not silently stop running.
"""

import os

import pytest

from jaxenvs.pokejax.reference import ShowdownProcess, reference_problem


@pytest.fixture(scope="session")
def showdown():
    problem = reference_problem()
    if problem:
        if os.environ.get("CI"):
            pytest.fail(problem)
        pytest.skip(problem)
    with ShowdownProcess() as process:
        yield process
