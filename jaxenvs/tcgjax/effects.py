"""The effect encoding: every implemented card text as an opcode with three integer arguments.

An effect is ``(op, a, b, c)``: ``op`` is an :class:`Op` and the arguments are plain ints (an
energy type is an :class:`EType` value, a card name is its index in the card table's ``names``
list, an unused argument is 0). The table is small and flat so that the JAX engine can hold it
as one int32 array per card and dispatch on ``op`` with ``lax.switch``.

Texts are looked up after :func:`normalize_text` (the source writes the same text with ``'`` or
``’`` and ``-`` or ``−``). A text missing from :data:`EFFECTS` is *not implemented*: the card
table records it as such and deck validation refuses the card, naming the text.

Stage 1 implements the 23 distinct texts of the six sample decks (``data/decks.json``).
What each opcode does, and when it may be used, is stated in ``RULES.md``.
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


class Op(enum.IntEnum):
    """Effect opcodes. Arguments in brackets; every op takes exactly three ints (padding 0)."""

    NONE = 0
    # Trainers (played from hand).
    DRAW = 1                      # [n]: draw n cards (each draw obeys the hand limit)
    SWITCH_OPPONENT_ACTIVE = 2    # []: opponent picks a Benched Pokémon to swap with its Active
    ACTIVE_DAMAGE_BONUS = 3       # [amount]: this turn, attacks do +amount to the opp. Active
    HEAL = 4                      # [amount, type+1 or 0 for any]: heal one of your Pokémon
    ACTIVE_TO_HAND = 5            # [name, name]: your Active with one of these names -> hand
    COIN_UNTIL_TAILS_ATTACH = 6   # [type]: on one of your Pokémon of that type, +1 energy/heads
    RANDOM_BASIC_TO_HAND = 7      # []: a uniformly random Basic Pokémon of your deck -> hand
    RETREAT_DISCOUNT = 8          # [amount]: this turn, your Active's retreat cost is lower
    OPPONENT_SHUFFLE_DRAW = 9     # [n]: opponent shuffles hand into deck, draws n
    # Abilities (used once per turn per Pokémon).
    ZONE_ATTACH_TO_ACTIVE = 10    # [type]: attach 1 energy of type to your Active of that type
    POISON_IF_ACTIVE = 11         # []: if this is your Active, poison the opponent's Active
    # Attacks.
    DEFENDER_CANT_RETREAT = 12    # []: the Defending Pokémon can't retreat next turn
    OPPONENT_BENCH_DAMAGE = 13    # [amount]: also damage each opponent Benched Pokémon
    EXTRA_ENERGY_BONUS = 14       # [type, count, bonus]: +bonus if count extra energy of type
    DISCARD_OWN_ENERGY = 15       # [type, count]: discard count energy of type from attacker
    COIN_BONUS = 16               # [bonus]: one coin, heads: +bonus damage
    COINS_ZONE_ATTACH_BENCH = 17  # [coins, type]: per heads, attach type to a Benched Pokémon
    DAMAGE_PER_OWN_BENCH = 18     # [per, type]: damage = per x your Benched Pokémon of type
    HEAL_SELF = 19                # [amount]: heal the attacker
    COINS_DAMAGE = 20             # [coins, per]: damage = per x heads of `coins` coins


#: The opcodes each kind of text may use (the others are not defined for that kind).
OPS_BY_KIND = {
    "trainer": frozenset(Op(i) for i in range(1, 10)),
    "ability": frozenset({Op.ZONE_ATTACH_TO_ACTIVE, Op.POISON_IF_ACTIVE}),
    "attack": frozenset({Op.NONE} | {Op(i) for i in range(12, 21)}),
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


#: The two names Koga accepts, encoded by name index at build time (see ``tools/tcgjax_cards.py``).
KOGA_NAMES = ("Muk", "Weezing")

#: Implemented texts (normalized) -> effect. ``ACTIVE_TO_HAND``'s name arguments are filled in
#: by :func:`encode` from the card table's name list.
EFFECTS: dict[str, Effect] = {
    # Supporters.
    "Draw 2 cards.": _effect(Op.DRAW, 2),
    "Switch out your opponent's Active Pokémon to the Bench. (Your opponent chooses the new "
    "Active Pokémon.)": _effect(Op.SWITCH_OPPONENT_ACTIVE),
    "During this turn, attacks used by your Pokémon do +10 damage to your opponent's Active "
    "Pokémon.": _effect(Op.ACTIVE_DAMAGE_BONUS, 10),
    "Heal 50 damage from 1 of your {G} Pokémon.": _effect(Op.HEAL, 50, EType.GRASS + 1),
    "Put your Muk or Weezing in the Active Spot into your hand.": _effect(Op.ACTIVE_TO_HAND),
    "Choose 1 of your {W} Pokémon, and flip a coin until you get tails. For each heads, take a "
    "{W} Energy from your Energy Zone and attach it to that Pokémon.":
        _effect(Op.COIN_UNTIL_TAILS_ATTACH, EType.WATER),
    # Items.
    "Put a random Basic Pokémon from your deck into your hand.": _effect(Op.RANDOM_BASIC_TO_HAND),
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
    # Attacks.
    "During your opponent's next turn, the Defending Pokémon can't retreat.":
        _effect(Op.DEFENDER_CANT_RETREAT),
    "This attack also does 10 damage to each of your opponent's Benched Pokémon.":
        _effect(Op.OPPONENT_BENCH_DAMAGE, 10),
    "If this Pokémon has at least 2 extra {W} Energy attached, this attack does 60 more damage.":
        _effect(Op.EXTRA_ENERGY_BONUS, EType.WATER, 2, 60),
    "Discard 2 {R} Energy from this Pokémon.": _effect(Op.DISCARD_OWN_ENERGY, EType.FIRE, 2),
    "Discard a {R} Energy from this Pokémon.": _effect(Op.DISCARD_OWN_ENERGY, EType.FIRE, 1),
    "Flip a coin. If heads, this attack does 40 more damage.": _effect(Op.COIN_BONUS, 40),
    "Discard 2 {P} Energy from this Pokémon.": _effect(Op.DISCARD_OWN_ENERGY, EType.PSYCHIC, 2),
    "Flip 3 coins. Take an amount of {R} Energy from your Energy Zone equal to the number of "
    "heads and attach it to your Benched {R} Pokémon in any way you like.":
        _effect(Op.COINS_ZONE_ATTACH_BENCH, 3, EType.FIRE),
    "This attack does 30 damage for each of your Benched {L} Pokémon.":
        _effect(Op.DAMAGE_PER_OWN_BENCH, 30, EType.LIGHTNING),
    "Heal 30 damage from this Pokémon.": _effect(Op.HEAL_SELF, 30),
    "Flip 4 coins. This attack does 50 damage for each heads.": _effect(Op.COINS_DAMAGE, 4, 50),
}


def encode(text: str | None, kind: str, names: list[str]) -> Effect | None:
    """The effect of a card text of ``kind`` (``"trainer"``, ``"ability"`` or ``"attack"``):
    ``Effect(NONE)`` for an attack without text; ``None`` if not implemented, which includes a
    known text on a kind it is not defined for (Grapploct's attack Knock Back has Sabrina's
    text, but the engine has no attack that switches).

    ``names`` is the card table's sorted list of distinct names (for ``ACTIVE_TO_HAND``).
    """
    if text is None and kind == "attack":
        return _effect(Op.NONE)
    effect = EFFECTS.get(normalize_text(text or ""))
    if effect is None or effect.op not in OPS_BY_KIND[kind]:
        return None
    if effect.op == Op.ACTIVE_TO_HAND:
        effect = _effect(Op.ACTIVE_TO_HAND, *(names.index(n) for n in KOGA_NAMES))
    return effect
