"""The Pokémon Showdown reference (pinned npm package, Node harness) and its Python driver.

Install once: ``npm ci --prefix jaxenvs/pokejax/reference``. See ``driver.py``.
"""

from jaxenvs.pokejax.reference.driver import (REFERENCE_DIR, ReferenceUnavailable, ShowdownError,
                                               ShowdownProcess, Trajectory, reference_problem)

__all__ = ["REFERENCE_DIR", "ReferenceUnavailable", "ShowdownError", "ShowdownProcess",
           "Trajectory", "reference_problem"]
