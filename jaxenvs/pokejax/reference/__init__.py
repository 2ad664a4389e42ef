"""The Pokémon Showdown reference (pinned npm package, Node harness) and its Python driver.

Install once: ``npm ci --prefix jaxenvs/pokejax/reference``. See ``driver.py``; ``battles``
holds the standard random battles, ``bench_rows`` puts Showdown's speed beside the envs in
``jaxenvs bench``, and ``suite`` is ``jaxenvs verify PokeJAX`` (both registered on import).
"""

from jaxenvs.pokejax.reference.driver import (REFERENCE_DIR, ReferenceUnavailable, ShowdownError,
                                               ShowdownProcess, Trajectory, reference_problem)

__all__ = ["REFERENCE_DIR", "ReferenceUnavailable", "ShowdownError", "ShowdownProcess",
           "Trajectory", "reference_problem"]

from jaxenvs.pokejax.reference import bench_rows  # noqa: E402,F401  (registers the bench rows)
from jaxenvs.pokejax.reference import suite  # noqa: E402,F401  (registers the verification suite)
