"""The effect encoding: every implemented card text as an opcode with three integer arguments.

An effect is ``(op, a, b, c)``: ``op`` is an :class:`Op` and the arguments are plain ints (an
energy type is an :class:`EType` value, a card name is its index in the card table's ``names``
list, an unused argument is 0). The table is small and flat so that the JAX engine can hold it
as one int32 array per card and dispatch on ``op`` with ``lax.switch``.

Texts are looked up after :func:`normalize_text` (the source writes the same text with ``'`` or
``’`` and ``-`` or ``−``). A Trainer that names Pokémon ("your Golem or Onix") takes the
index of that list of names in :data:`NAME_GROUPS`. A text missing from :data:`EFFECTS` is
*not implemented*: the card table records it as such and deck validation refuses the card,
naming the text.

What each opcode does, and when it may be used, is stated in ``RULES.md``, section 6.
"""

from __future__ import annotations

import enum
from typing import NamedTuple


class EType(enum.IntEnum):
    """Pokémon and energy types. Energy types are GRASS..METAL; DRAGON is never an energy and
    COLORLESS appears in attack costs (paid by any energy) and as a Pokémon type."""

    GRASS = 0
    FIRE = 1
    WATER = 2
    LIGHTNING = 3
    PSYCHIC = 4
    FIGHTING = 5
    DARKNESS = 6
    METAL = 7
    DRAGON = 8
    COLORLESS = 9


#: Number of types; cost and attached-energy vectors have this length, indexed by EType.
NUM_TYPES = len(EType)
#: The types an Energy Zone can produce.
ENERGY_TYPES = tuple(EType)[:8]
#: The source's English type names.
TYPE_BY_NAME = {t.name.capitalize(): t for t in EType}
#: The Special Conditions, in the order of both engines' status flags.
CONDITIONS = ("Poisoned", "Burned", "Asleep", "Paralyzed", "Confused")
#: CONDITIONAL_BONUS's conditions, by argument value.
BONUS_CONDITIONS = ("attacker damaged", "defender damaged", "defender Poisoned",
                    "defender evolved", "attacker evolved this turn", "attacker has a Tool")


class Op(enum.IntEnum):
    """Effect opcodes. Arguments in brackets; every op takes exactly three ints (padding 0)."""

    NONE = 0
    # Trainers (played from hand).
    DRAW = 1                      # [n]: draw n cards (each draw obeys the hand limit)
    SWITCH_OPPONENT_ACTIVE = 2    # []: opponent picks a Benched Pokémon to swap with its Active
    ACTIVE_DAMAGE_BONUS = 3       # [amount]: this turn, attacks do +amount to the opp. Active
    HEAL = 4                      # [amount, type+1 or 0 for any]: heal one of your Pokémon
    ACTIVE_TO_HAND = 5            # [-, group]: your Active, named in the group -> hand
    COIN_UNTIL_TAILS_ATTACH = 6   # [type]: on one of your Pokémon of that type, +1 energy/heads
    RANDOM_POKEMON_TO_HAND = 7    # [type+1 or 0 for any, basic]: a uniformly random Pokémon
    #                               of your deck of that type (only Basics if ``basic``) -> hand
    RETREAT_DISCOUNT = 8          # [amount]: this turn, your Active's retreat cost is lower
    OPPONENT_SHUFFLE_DRAW = 9     # [n]: opponent shuffles hand into deck, draws n
    # Abilities (used once per turn per Pokémon; also HEAL_EACH, and as abilities
    # ZONE_ATTACH_SELF on this Pokémon, SWITCH_OPPONENT_ACTIVE and INFLICT_STATUS).
    ZONE_ATTACH_TO_ACTIVE = 10    # [type]: attach 1 energy of type to your Active of that type
    POISON_IF_ACTIVE = 11         # []: if this is your Active, poison the opponent's Active
    # Attacks.
    DEFENDER_CANT_RETREAT = 12    # []: the Defending Pokémon can't retreat next turn
    OPPONENT_BENCH_DAMAGE = 13    # [amount]: also damage each opponent Benched Pokémon
    EXTRA_ENERGY_BONUS = 14       # [type, count, bonus]: +bonus if count extra energy of type
    DISCARD_OWN_ENERGY = 15       # [type, count, all]: discard count energy of type from the
    #                               attacker (``all``: every energy it has)
    COIN_BONUS = 16               # [bonus, coins, recoil]: flip `coins`, all heads: +bonus
    #                               damage, otherwise the attacker takes ``recoil``
    COINS_ZONE_ATTACH_BENCH = 17  # [coins, type]: per heads, attach type to a Benched Pokémon
    DAMAGE_PER_OWN_BENCH = 18     # [per, type, any]: damage = per x your Benched Pokémon of
    #                               type (of any type if ``any``)
    HEAL_SELF = 19                # [amount, coin]: heal the attacker (if ``coin``, on heads)
    COINS_DAMAGE = 20             # [coins, per]: damage = per x heads of `coins` coins
    INFLICT_STATUS = 21           # [condition, coin, on self]: a Special Condition (its index
    #                               in CONDITIONS), if ``coin`` only on heads, on the opponent's
    #                               Active or (``on self``) on the attacker
    SELF_DAMAGE = 22              # [amount]: the attacker also takes amount
    COIN_OR_NOTHING = 23          # []: one coin, tails: the attack does nothing
    CONDITIONAL_BONUS = 24        # [condition, bonus]: +bonus if the BONUS_CONDITIONS entry holds
    BONUS_PER_DEFENDER_ENERGY = 25  # [per]: +per for each energy on the opponent's Active
    ZONE_ATTACH_SELF = 26         # [type]: attach 1 energy of type (not the turn's) to the attacker
    DISCARD_DEFENDER_ENERGY = 27  # [coin]: (if ``coin``, on heads) discard a random energy of
    #                               the opponent's Active
    COIN_UNTIL_TAILS_DAMAGE = 28  # [per, more]: per x heads before the first tails (``more``:
    #                               added to the printed damage)
    DISCARD_DECK_TOPS = 29        # [n]: discard the top n cards of each player's deck
    DISCARD_OPPONENT_HAND = 30    # [coin]: (if ``coin``, on heads) discard a random card of
    #                               the opponent's hand
    HEAL_EACH = 31                # [amount]: heal amount from each of your Pokémon
    # More Trainers.
    MOVE_BENCH_ENERGY_TO_ACTIVE = 32  # [type, group]: all energy of type on your Benched
    #                                   Pokémon moves to your Active, named in the group
    ZONE_ATTACH_NAMED = 33        # [type, group]: target: your Pokémon named in the group; attach
    #                               1 energy of type


#: The opcodes each kind of text may use (the others are not defined for that kind).
OPS_BY_KIND = {
    "trainer": frozenset({Op(i) for i in range(1, 10)}
                         | {Op.MOVE_BENCH_ENERGY_TO_ACTIVE, Op.ZONE_ATTACH_NAMED}),
    "ability": frozenset({Op.ZONE_ATTACH_TO_ACTIVE, Op.POISON_IF_ACTIVE, Op.ZONE_ATTACH_SELF,
                          Op.HEAL_EACH, Op.SWITCH_OPPONENT_ACTIVE, Op.INFLICT_STATUS}),
    "attack": frozenset({Op.NONE, Op.DRAW, Op.RANDOM_POKEMON_TO_HAND}
                        | {Op(i) for i in range(12, 31)}),
}


class Effect(NamedTuple):
    """One encoded effect."""

    op: Op
    args: tuple[int, int, int]


def normalize_text(text: str) -> str:
    """The lookup form of a card text: typographic apostrophe and minus made ASCII, whitespace
    runs (including the fossils' line breaks) collapsed to one space."""
    text = text.replace("\u2019", "'").replace("\u2212", "-")
    return " ".join(text.split())


def _effect(op: Op, *args: int) -> Effect:
    return Effect(op, tuple(int(a) for a in args) + (0,) * (3 - len(args)))


#: The Pokémon names Trainer texts name together (Koga, Lt. Surge, Brock), by argument value.
NAME_GROUPS = (("Muk", "Weezing"), ("Raichu", "Electrode", "Electabuzz"), ("Golem", "Onix"))
#: The opcodes whose second argument is a ``NAME_GROUPS`` index.
NAMING_OPS = frozenset({Op.ACTIVE_TO_HAND, Op.MOVE_BENCH_ENERGY_TO_ACTIVE, Op.ZONE_ATTACH_NAMED})

#: Implemented texts (normalized) -> effect.
EFFECTS: dict[str, Effect] = {
    # Supporters.
    "Draw 2 cards.": _effect(Op.DRAW, 2),
    "Switch out your opponent's Active Pokémon to the Bench. (Your opponent chooses the new "
    "Active Pokémon.)": _effect(Op.SWITCH_OPPONENT_ACTIVE),
    "During this turn, attacks used by your Pokémon do +10 damage to your opponent's Active "
    "Pokémon.": _effect(Op.ACTIVE_DAMAGE_BONUS, 10),
    "Heal 50 damage from 1 of your {G} Pokémon.": _effect(Op.HEAL, 50, EType.GRASS + 1),
    "Put your Muk or Weezing in the Active Spot into your hand.": _effect(Op.ACTIVE_TO_HAND, 0, 0),
    "Move all {L} Energy from your Benched Pokémon to your Raichu, Electrode, or Electabuzz in "
    "the Active Spot.": _effect(Op.MOVE_BENCH_ENERGY_TO_ACTIVE, EType.LIGHTNING, 1),
    "Take 1 {F} Energy from your Energy Zone and attach it to your Golem or Onix.":
        _effect(Op.ZONE_ATTACH_NAMED, EType.FIGHTING, 2),
    "Choose 1 of your {W} Pokémon, and flip a coin until you get tails. For each heads, take a "
    "{W} Energy from your Energy Zone and attach it to that Pokémon.":
        _effect(Op.COIN_UNTIL_TAILS_ATTACH, EType.WATER),
    # Items.
    "Put a random Basic Pokémon from your deck into your hand.":
        _effect(Op.RANDOM_POKEMON_TO_HAND, 0, 1),
    "Heal 20 damage from 1 of your Pokémon.": _effect(Op.HEAL, 20, 0),
    "During this turn, the Retreat Cost of your Active Pokémon is 1 less.":
        _effect(Op.RETREAT_DISCOUNT, 1),
    "Your opponent shuffles their hand into their deck and draws 3 cards.":
        _effect(Op.OPPONENT_SHUFFLE_DRAW, 3),
    # Abilities.
    "Once during your turn, you may take 1 {P} Energy from your Energy Zone and attach it to the "
    "{P} Pokémon in the Active Spot.": _effect(Op.ZONE_ATTACH_TO_ACTIVE, EType.PSYCHIC),
    "Once during your turn, if this Pokémon is in the Active Spot, you may make your opponent's "
    "Active Pokémon Poisoned.": _effect(Op.POISON_IF_ACTIVE),
    "Once during your turn, you may heal 20 damage from each of your Pokémon.":
        _effect(Op.HEAL_EACH, 20),
    "Once during your turn, you may take a {L} Energy from your Energy Zone and attach it to "
    "this Pokémon.": _effect(Op.ZONE_ATTACH_SELF, EType.LIGHTNING),
    "Once during your turn, you may flip a coin. If heads, your opponent's Active Pokémon is now "
    "Asleep.": _effect(Op.INFLICT_STATUS, CONDITIONS.index("Asleep"), 1),
    "Once during your turn, you may switch out your opponent's Active Pokémon to the Bench. "
    "(Your opponent chooses the new Active Pokémon.)": _effect(Op.SWITCH_OPPONENT_ACTIVE),
    # Attacks.
    "During your opponent's next turn, the Defending Pokémon can't retreat.":
        _effect(Op.DEFENDER_CANT_RETREAT),
    "This attack also does 10 damage to each of your opponent's Benched Pokémon.":
        _effect(Op.OPPONENT_BENCH_DAMAGE, 10),
    "If this Pokémon has at least 2 extra {W} Energy attached, this attack does 60 more damage.":
        _effect(Op.EXTRA_ENERGY_BONUS, EType.WATER, 2, 60),
    "Discard 2 {R} Energy from this Pokémon.": _effect(Op.DISCARD_OWN_ENERGY, EType.FIRE, 2),
    "Discard a {R} Energy from this Pokémon.": _effect(Op.DISCARD_OWN_ENERGY, EType.FIRE, 1),
    "Flip a coin. If heads, this attack does 40 more damage.": _effect(Op.COIN_BONUS, 40, 1),
    "Discard 2 {P} Energy from this Pokémon.": _effect(Op.DISCARD_OWN_ENERGY, EType.PSYCHIC, 2),
    "Flip 3 coins. Take an amount of {R} Energy from your Energy Zone equal to the number of "
    "heads and attach it to your Benched {R} Pokémon in any way you like.":
        _effect(Op.COINS_ZONE_ATTACH_BENCH, 3, EType.FIRE),
    "This attack does 30 damage for each of your Benched {L} Pokémon.":
        _effect(Op.DAMAGE_PER_OWN_BENCH, 30, EType.LIGHTNING),
    "Heal 30 damage from this Pokémon.": _effect(Op.HEAL_SELF, 30),
    "Flip 4 coins. This attack does 50 damage for each heads.": _effect(Op.COINS_DAMAGE, 4, 50),
    # Attacks of the other cards that are these opcodes with other arguments.
    "Heal 10 damage from this Pokémon.": _effect(Op.HEAL_SELF, 10),
    "Heal 20 damage from this Pokémon.": _effect(Op.HEAL_SELF, 20),
    **{f"Flip {n} coins. This attack does {per} damage for each heads.":
       _effect(Op.COINS_DAMAGE, n, per)
       for n, per in ((2, 20), (2, 30), (2, 50), (2, 80), (2, 100), (4, 40))},
    "Flip a coin. If heads, this attack does 30 more damage.": _effect(Op.COIN_BONUS, 30, 1),
    "Flip 2 coins. If both of them are heads, this attack does 80 more damage.":
        _effect(Op.COIN_BONUS, 80, 2),
    "Flip a coin. If heads, heal 60 damage from this Pokémon.": _effect(Op.HEAL_SELF, 60, 1),
    "This attack does 30 damage for each of your Benched Pokémon.":
        _effect(Op.DAMAGE_PER_OWN_BENCH, 30, 0, 1),
    "Draw a card.": _effect(Op.DRAW, 1),
    **{f"{cond}, this attack does {bonus} more damage.":
       _effect(Op.CONDITIONAL_BONUS, BONUS_CONDITIONS.index(kind), bonus)
       for cond, kind, bonus in (
           ("If this Pokémon has damage on it", "attacker damaged", 60),
           ("If your opponent's Active Pokémon has damage on it", "defender damaged", 60),
           ("If your opponent's Active Pokémon is Poisoned", "defender Poisoned", 50),
           ("If your opponent's Active Pokémon is an Evolution Pokémon", "defender evolved",
            40),
           ("If this Pokémon evolved during this turn", "attacker evolved this turn", 20),
           ("If this Pokémon has a Pokémon Tool attached", "attacker has a Tool", 30),
           ("If this Pokémon has a Pokémon Tool attached", "attacker has a Tool", 50))},
    **{f"This attack does {per} more damage for each Energy attached to your opponent's "
       f"Active Pokémon.": _effect(Op.BONUS_PER_DEFENDER_ENERGY, per) for per in (20, 30)},
    **{f"Take {a} {{{symbol}}} Energy from your Energy Zone and attach it to this Pokémon.":
       _effect(Op.ZONE_ATTACH_SELF, etype)
       for a, symbol, etype in (("1", "M", EType.METAL), ("a", "G", EType.GRASS),
                                ("a", "L", EType.LIGHTNING))},
    **{f"If this Pokémon has at least {n} extra {{{symbol}}} Energy attached, this attack does "
       f"{bonus} more damage.": _effect(Op.EXTRA_ENERGY_BONUS, etype, n, bonus)
       for symbol, etype, n, bonus in (("F", EType.FIGHTING, 2, 50),
                                       ("L", EType.LIGHTNING, 2, 80),
                                       ("W", EType.WATER, 3, 70))},
    "Discard 1 {R} Energy from this Pokémon.": _effect(Op.DISCARD_OWN_ENERGY, EType.FIRE, 1),
    "Discard a {M} Energy from this Pokémon.": _effect(Op.DISCARD_OWN_ENERGY, EType.METAL, 1),
    "This attack also does 20 damage to each of your opponent's Benched Pokémon.":
        _effect(Op.OPPONENT_BENCH_DAMAGE, 20),
    **{f"Your opponent's Active Pokémon is now {c}.":
       _effect(Op.INFLICT_STATUS, CONDITIONS.index(c)) for c in ("Poisoned", "Asleep", "Confused")},
    **{f"Flip a coin. If heads, your opponent's Active Pokémon is now {c}.":
       _effect(Op.INFLICT_STATUS, CONDITIONS.index(c), 1) for c in ("Burned", "Paralyzed")},
    "This Pokémon is now Asleep.": _effect(Op.INFLICT_STATUS, CONDITIONS.index("Asleep"), 0, 1),
    **{f"This Pokémon also does {n} damage to itself.": _effect(Op.SELF_DAMAGE, n)
       for n in (10, 20, 30, 50, 70)},
    "Flip a coin. If tails, this attack does nothing.": _effect(Op.COIN_OR_NOTHING),
    "Discard a random Energy from your opponent's Active Pokémon.":
        _effect(Op.DISCARD_DEFENDER_ENERGY, 0),
    "Flip a coin. If heads, discard a random Energy from your opponent's Active Pokémon.":
        _effect(Op.DISCARD_DEFENDER_ENERGY, 1),
    "Flip a coin. If heads, this attack does 40 more damage. If tails, this Pokémon also does 20 "
    "damage to itself.": _effect(Op.COIN_BONUS, 40, 1, 20),
    "Discard all Energy from this Pokémon.": _effect(Op.DISCARD_OWN_ENERGY, 0, 0, 1),
    "Put 1 random {G} Pokémon from your deck into your hand.":
        _effect(Op.RANDOM_POKEMON_TO_HAND, EType.GRASS + 1, 0),
    "Put a random Pokémon from your deck into your hand.": _effect(Op.RANDOM_POKEMON_TO_HAND),
    "Flip a coin until you get tails. This attack does 60 damage for each heads.":
        _effect(Op.COIN_UNTIL_TAILS_DAMAGE, 60, 0),
    "Flip a coin until you get tails. This attack does 30 more damage for each heads.":
        _effect(Op.COIN_UNTIL_TAILS_DAMAGE, 30, 1),
    "Discard the top 5 cards of each player's deck.": _effect(Op.DISCARD_DECK_TOPS, 5),
    "Discard a random card from your opponent's hand.": _effect(Op.DISCARD_OPPONENT_HAND, 0),
    "Flip a coin. If heads, discard a random card from your opponent's hand.":
        _effect(Op.DISCARD_OPPONENT_HAND, 1),
}


def encode(text: str | None, kind: str) -> Effect | None:
    """The effect of a card text of ``kind`` (``"trainer"``, ``"ability"`` or ``"attack"``):
    ``Effect(NONE)`` for an attack without text; ``None`` if not implemented, which includes a
    known text on a kind it is not defined for (Grapploct's attack Knock Back has Sabrina's
    text, but the engine has no attack that switches)."""
    if text is None and kind == "attack":
        return _effect(Op.NONE)
    effect = EFFECTS.get(normalize_text(text or ""))
    if effect is None or effect.op not in OPS_BY_KIND[kind]:
        return None
    return effect
