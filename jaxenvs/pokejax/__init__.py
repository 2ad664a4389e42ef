"""PokeJAX: Pokémon Showdown's Gen 1 singles battles in JAX, checked against Showdown.

The package reads as: the Showdown reference (``reference/``: the pinned Node package, its
JSON-lines harness and the Python driver), the Gen 1 tables and the team pool (``data/``), team
parsing (``teams``), Showdown's Gen 5 LCG (``prng``), Gen 1 stats (``stats``), the battle state
(``state``), the damage formula (``damage``), the moves (``moves``, with ``moves.SUPPORTED``),
one decision step (``turn``), replay against Showdown trajectories (``engine``), what each
player has seen and observes (``observe``), the opponent policies (``opponents``), the
environments (``env``: ``PokeJAX``, ``PokeJAX2P``) and Showdown protocol lines from a JAX
trajectory (``log``).
"""

from jaxenvs.pokejax.env import PokeJAX, PokeJAX2P
from jaxenvs.pokejax.types import PokeJAXParams, PokeJAXState

__all__ = ["PokeJAX", "PokeJAX2P", "PokeJAXParams", "PokeJAXState"]
