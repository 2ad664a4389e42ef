"""The card table as arrays, for the JAX engine: one row per card of ``cards.card_table()``.

A card is an int32 index into these arrays (its position in ``card_table()``, A1 then P-A by
number); :data:`NO_CARD` (-1) marks an empty entry. Type-valued fields hold an ``EType`` value,
or -1 for none. Effects are the ``(op, a, b, c)`` rows of ``effects.py``; a missing or
unimplemented effect is ``(0, 0, 0, 0)`` (cards with unimplemented texts never reach a game:
deck validation refuses them).
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from jaxenvs.tcgjax.actions import NUM_ATTACKS
from jaxenvs.tcgjax.cards import Card, card_names, card_table
from jaxenvs.tcgjax.effects import NAME_GROUPS, NUM_TYPES

NO_CARD = -1


class CardArrays(NamedTuple):
    """Per-card facts, each an array with the card index as first axis."""

    hp: np.ndarray
    """int32: HP (0 for Trainers)."""
    type: np.ndarray
    """int32: the Pokémon's EType, -1 for Trainers."""
    weakness: np.ndarray
    """int32: EType of the weakness, -1 for none."""
    retreat: np.ndarray
    """int32: retreat cost."""
    is_ex: np.ndarray
    """bool: an ex (2 points when knocked out)."""
    is_pokemon: np.ndarray
    """bool."""
    is_basic: np.ndarray
    """bool: a Basic Pokémon."""
    stage: np.ndarray
    """int32: 0, 1, 2 for Pokémon, -1 for Trainers."""
    name: np.ndarray
    """int32: index of the card's name in ``cards.card_names()``."""
    evolves_from: np.ndarray
    """int32: name index of the pre-evolution, -1 for none."""
    is_supporter: np.ndarray
    """bool: a Supporter (at most one per turn)."""
    trainer: np.ndarray
    """int32[4]: the Trainer effect ``(op, a, b, c)``."""
    has_ability: np.ndarray
    """bool: the card has an (implemented) ability."""
    ability: np.ndarray
    """int32[4]: the ability effect."""
    name_groups: np.ndarray
    """int32: bit g set if the card's name is in ``effects.NAME_GROUPS[g]``."""
    num_attacks: np.ndarray
    """int32: 0..2."""
    attack_cost: np.ndarray
    """int32[2, NUM_TYPES]: energy per EType (COLORLESS: any), per attack."""
    attack_damage: np.ndarray
    """int32[2]: printed damage (0 if none)."""
    attack_does_damage: np.ndarray
    """bool[2]: whether the attack prints damage."""
    attack_effect: np.ndarray
    """int32[2, 4]: the attack's effect."""


def _code(effect) -> list[int]:
    return [0, 0, 0, 0] if effect is None else [int(effect.op), *effect.args]


def _row(c: Card, names: dict[str, int]) -> dict:
    attacks = list(c.attacks[:NUM_ATTACKS])
    pad = NUM_ATTACKS - len(attacks)
    return dict(
        hp=c.hp, type=-1 if c.type is None else int(c.type),
        weakness=-1 if c.weakness is None else int(c.weakness), retreat=c.retreat,
        is_ex=c.is_ex, is_pokemon=c.is_pokemon, is_basic=c.is_basic,
        stage=-1 if c.stage is None else c.stage, name=c.name_index,
        evolves_from=names.get(c.evolves_from, -1), is_supporter=c.is_supporter,
        trainer=_code(c.trainer_effect), has_ability=c.ability is not None,
        ability=_code(c.ability), num_attacks=len(attacks),
        name_groups=sum(1 << g for g, group in enumerate(NAME_GROUPS) if c.name in group),
        attack_cost=[list(a.cost) for a in attacks] + [[0] * NUM_TYPES] * pad,
        attack_damage=[a.damage for a in attacks] + [0] * pad,
        attack_does_damage=[a.does_damage for a in attacks] + [False] * pad,
        attack_effect=[_code(a.effect) for a in attacks] + [[0, 0, 0, 0]] * pad)


@functools.cache
def card_arrays() -> CardArrays:
    """The whole card table as arrays (numpy; JAX code turns them into constants)."""
    names = {n: i for i, n in enumerate(card_names())}
    rows = [_row(c, names) for c in card_table().values()]
    out = {}
    for field in CardArrays._fields:
        values = np.array([r[field] for r in rows])
        out[field] = values.astype(bool if values.dtype == bool else np.int32)
    return CardArrays(**out)


@functools.cache
def card_index() -> dict[str, int]:
    """Card id -> card index."""
    return {cid: i for i, cid in enumerate(card_table())}


@functools.cache
def card_ids() -> tuple[str, ...]:
    """Card index -> card id."""
    return tuple(card_table())


NUM_CARDS = len(card_table())
