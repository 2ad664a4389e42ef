"""The Pokémon Showdown reference (pinned npm package, Node harness) and its Python driver.

Install once: ``npm ci --prefix jaxenvs/pokejax/reference``. See ``driver.py``; ``battles``
holds the standard random battles, ``replay`` replays Showdown's battles in the JAX engine and
finds the first divergence, ``suite`` is ``jaxenvs verify PokeJAX`` and ``bench_rows`` puts
Showdown's speed beside the envs in ``jaxenvs bench`` (both registered on import);
``transfer`` runs the L4 check.
"""

from jaxenvs.pokejax.reference.driver import (REFERENCE_DIR, ReferenceUnavailable, ShowdownError,
                                               ShowdownProcess, Trajectory, reference_problem)

__all__ = ["REFERENCE_DIR", "ReferenceUnavailable", "ShowdownError", "ShowdownProcess",
           "Trajectory", "reference_problem"]

from jaxenvs.pokejax.reference import bench_rows  # noqa: E402,F401  (registers the bench rows)
from jaxenvs.pokejax.reference import suite  # noqa: E402,F401  (registers the verification suite)
