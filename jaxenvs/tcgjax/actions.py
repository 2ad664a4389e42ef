"""The action space, shared by the reference engine and the JAX engine.

One fixed-size discrete space of :data:`NUM_ACTIONS` actions with a legal-action mask. Every
decision of the game (setup, a turn, a choice inside an effect, a promotion) is one action of
the player ``current_player``. Slots: 0 is the Active Spot, 1..3 the Bench spots (fixed
positions; a Bench spot keeps its number when others empty). Hand positions 0..9 index the hand
in its current order (new cards go to the end; a played card closes the gap).

==========  =====  ==========================================================================
range       count  meaning
==========  =====  ==========================================================================
0           1      END: end the turn (MAIN); done placing (SETUP)
1..2        2      ATTACK k: the Active uses attack k (0 or 1)
3..6        4      ATTACH j: attach this turn's Energy Zone energy to the Pokémon in slot j
7..16       10     PLAY i: play hand card i with no target: a Basic onto the first empty Bench
                   spot (in SETUP: the Active Spot first, then the Bench), an untargeted Trainer
17..56      40     PLAY_ON i,j (17 + 4 i + j): play hand card i onto your slot j: evolve the
                   Pokémon there, or a targeted Trainer (Potion, Erika, Misty)
57..60      4      ABILITY j: use the ability of your Pokémon in slot j
61..63      3      RETREAT j: retreat the Active, Bench slot j (1..3) becomes Active
64..67      4      CHOOSE j: the answer to a pending choice naming slot j: promote Bench j after
                   a knock-out or Koga; the new Active after the opponent's Sabrina; the Benched
                   Pokémon that gets the next energy of Moltres ex's Inferno Dance
==========  =====  ==========================================================================
"""

from __future__ import annotations

from typing import NamedTuple

HAND_MAX = 10
BENCH_SIZE = 3
NUM_SLOTS = 1 + BENCH_SIZE
NUM_ATTACKS = 2

END = 0
ATTACK_BASE = 1
ATTACH_BASE = ATTACK_BASE + NUM_ATTACKS
PLAY_BASE = ATTACH_BASE + NUM_SLOTS
PLAY_ON_BASE = PLAY_BASE + HAND_MAX
ABILITY_BASE = PLAY_ON_BASE + HAND_MAX * NUM_SLOTS
RETREAT_BASE = ABILITY_BASE + NUM_SLOTS
CHOOSE_BASE = RETREAT_BASE + BENCH_SIZE
NUM_ACTIONS = CHOOSE_BASE + NUM_SLOTS


def attack(k: int) -> int:
    return ATTACK_BASE + k


def attach(slot: int) -> int:
    return ATTACH_BASE + slot


def play(i: int) -> int:
    return PLAY_BASE + i


def play_on(i: int, slot: int) -> int:
    return PLAY_ON_BASE + NUM_SLOTS * i + slot


def ability(slot: int) -> int:
    return ABILITY_BASE + slot


def retreat(bench_slot: int) -> int:
    """Retreat to Bench slot ``bench_slot`` (1..3)."""
    return RETREAT_BASE + bench_slot - 1


def choose(slot: int) -> int:
    return CHOOSE_BASE + slot


class Decoded(NamedTuple):
    """An action as (kind, hand index or attack number, slot); unused fields are -1."""

    kind: str
    index: int
    slot: int


def decode(action: int) -> Decoded:
    """The kind and arguments of an action id; ``ValueError`` if out of range."""
    a = int(action)
    if a == END:
        return Decoded("end", -1, -1)
    if ATTACK_BASE <= a < ATTACH_BASE:
        return Decoded("attack", a - ATTACK_BASE, -1)
    if ATTACH_BASE <= a < PLAY_BASE:
        return Decoded("attach", -1, a - ATTACH_BASE)
    if PLAY_BASE <= a < PLAY_ON_BASE:
        return Decoded("play", a - PLAY_BASE, -1)
    if PLAY_ON_BASE <= a < ABILITY_BASE:
        i, j = divmod(a - PLAY_ON_BASE, NUM_SLOTS)
        return Decoded("play_on", i, j)
    if ABILITY_BASE <= a < RETREAT_BASE:
        return Decoded("ability", -1, a - ABILITY_BASE)
    if RETREAT_BASE <= a < CHOOSE_BASE:
        return Decoded("retreat", -1, a - RETREAT_BASE + 1)
    if CHOOSE_BASE <= a < NUM_ACTIONS:
        return Decoded("choose", -1, a - CHOOSE_BASE)
    raise ValueError(f"action {action} is outside 0..{NUM_ACTIONS - 1}")


def name(action: int) -> str:
    """A short label, e.g. ``play_on(3, 1)``."""
    kind, index, slot = decode(action)
    args = [str(x) for x in (index, slot) if x >= 0]
    return f"{kind}({', '.join(args)})"
