"""TCGJax: Pokémon TCG Pocket (Genetic Apex + Promo-A), rules first.

Read in this order: ``RULES.md`` (the rules this project implements, each naming its tests),
``constants`` (the rule numbers), ``effects`` (the effect encoding: opcodes with integer
arguments), ``cards`` (the card table ``data/cards.json``, built by ``tools/tcgjax_cards.py``
from TCGdex's MIT data, and deck validation), ``actions`` (the fixed discrete action space
shared by both engines), ``rng`` (the random sources; the JAX stream's definition), then ``env``
(``TCGJax``, ``TCGJax2P``; their params and state in ``types``). The JAX engine is private
(``_src/``). ``reference/`` is the readable pure-Python engine the JAX one is held to, with
what connects the two (``convert``, ``lockstep``, ``verification``, ``transfer``) and text
views of a game (``render``); the env never imports it.
"""

from jaxenvs.tcgjax.env import TCGJax, TCGJax2P
from jaxenvs.tcgjax.types import TCGJaxParams, TCGJaxState

__all__ = ["TCGJax", "TCGJax2P", "TCGJaxParams", "TCGJaxState"]
