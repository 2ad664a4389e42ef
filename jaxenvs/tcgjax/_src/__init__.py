"""TCGJax's JAX engine, in stages mirroring the reference engine.

Read in this order: ``tables`` (the card table as arrays), ``packed`` (small fields packed into
words), ``state`` (the fixed-size game state), ``engine`` (``new_game``,
``legal_action_mask``, ``step``) and ``observe`` (each player's view, the opponents' policies).
"""
