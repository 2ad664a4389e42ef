"""PokeJAX: Pokémon Showdown's Gen 1 singles battles in JAX, checked against Showdown.

Public: the environments (``env``: ``PokeJAX``, ``PokeJAX2P``), their params and state
(``types``), team parsing (``teams``), the Gen 1 tables and the team pool (``data/``) and
Showdown protocol lines from a JAX trajectory (``log``). The battle rules are private
(``_src/``). ``reference/`` drives the pinned Showdown in Node, replays its battles in the
engine (``replay``) and runs the L4 check (``transfer``); the env never imports it.
"""

from jaxenvs.pokejax.env import PokeJAX, PokeJAX2P
from jaxenvs.pokejax.types import PokeJAXParams, PokeJAXState

__all__ = ["PokeJAX", "PokeJAX2P", "PokeJAXParams", "PokeJAXState"]
