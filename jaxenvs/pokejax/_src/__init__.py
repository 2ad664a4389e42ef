"""PokeJAX's battle rules, Showdown's Gen 1 in arrays.

Read in this order: ``prng`` (Showdown's Gen 5 LCG), ``stats`` (Gen 1 stats), ``state`` (the
battle state), ``damage`` (the damage formula), ``conditions`` (statuses and volatiles),
``moves`` (the moves, with ``moves.SUPPORTED``), ``turn`` (one decision), ``observe`` (what each
player has seen and observes) and ``opponents`` (the opponent policies).
"""
