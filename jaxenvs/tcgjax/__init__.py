"""TCGJax: Pokémon TCG Pocket (Genetic Apex + Promo-A), rules first.

Read in this order: ``RULES.md`` (the rules this project implements, each naming its tests),
``effects`` (the effect encoding: opcodes with integer arguments), ``cards`` (the card table
``data/cards.json``, built by ``tools/tcgjax_cards.py`` from TCGdex's MIT data, and deck validation),
``actions`` (the fixed discrete action space shared by both engines), ``rng`` (the random
sources; the JAX stream's definition), ``reference/`` (the readable pure-Python engine) and
``render`` (text views of a game and its log).

The JAX engine follows the same plan with arrays: ``tables`` (the card table as arrays),
``state`` (the fixed-size game state), ``engine`` (``new_game``, ``legal_action_mask``, ``step``,
in stages mirroring the reference), ``convert`` (reference game <-> JAX state), ``lockstep``
(both engines over the same games, the L3 check and its first-divergence report;
``verification`` runs it as ``jaxenvs verify TCGJax``), ``observe``
(each player's view, the opponents' policies) and ``env`` (``TCGJax``, ``TCGJax2P``; their parameters and state in ``types``);
``speed`` measures both engines in one run; ``transfer`` evaluates a trained policy in both
engines and tests their win rates for equivalence (L4; ``data/policy`` is the trained policy).
"""

from jaxenvs.tcgjax.env import TCGJax, TCGJax2P
from jaxenvs.tcgjax.types import TCGJaxParams, TCGJaxState

__all__ = ["TCGJax", "TCGJax2P", "TCGJaxParams", "TCGJaxState"]
