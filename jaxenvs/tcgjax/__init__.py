"""TCGJax: Pokémon TCG Pocket (Genetic Apex + Promo-A), rules first.

Read in this order: ``RULES.md`` (the rules this project implements, each naming its tests),
``effects`` (the effect encoding: opcodes with integer arguments), ``cards`` (the card table
``data/cards.json``, built by ``build_cards`` from TCGdex's MIT data, and deck validation),
``actions`` (the fixed discrete action space shared by both engines), ``rng`` (the random
sources; the JAX stream's definition), ``reference/`` (the readable pure-Python engine) and
``render`` (text views of a game and its log).

The JAX engine and the environment class are not written yet; they will use this action space,
this card table and the random stream of ``rng``, and must match ``reference`` step by step.
"""
