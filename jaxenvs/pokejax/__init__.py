"""PokeJAX: Pokémon Showdown's Gen 1 random battles in JAX (in progress).

So far: the Showdown reference (``reference/``), the Gen 1 tables and the team pool
(``data/``), team parsing (``teams``), Showdown's Gen 5 LCG (``prng``) and Gen 1 stats
(``stats``).
"""
