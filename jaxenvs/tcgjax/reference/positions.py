"""Hand-built game positions, for tests and for injecting states into other engines.

``position(player(...), player(...), turn=3)`` is a game in the MAIN phase of ``turn``, whose
random source answers only what the test scripts (``ScriptedRandomSource``), so a test states
every coin it expects. Pokémon are given as card ids or built with ``pokemon``.
"""

from __future__ import annotations

from jaxenvs.tcgjax.cards import card
from jaxenvs.tcgjax.constants import RuleOptions
from jaxenvs.tcgjax.effects import TYPE_BY_NAME, EType
from jaxenvs.tcgjax.reference.state import Game, Phase, Player, PokemonInPlay, Status
from jaxenvs.tcgjax.rng import RandomSource, ScriptedRandomSource

SYMBOL_TYPES = {"G": EType.GRASS, "R": EType.FIRE, "W": EType.WATER, "L": EType.LIGHTNING,
                "P": EType.PSYCHIC, "F": EType.FIGHTING, "D": EType.DARKNESS, "M": EType.METAL}


def pokemon(*card_ids: str, damage: int = 0, energy: str = "",
            statuses: tuple[Status, ...] = (), entered_turn: int = 0) -> PokemonInPlay:
    """A Pokémon in play; ``card_ids`` is its evolution stack (Basic first), ``energy`` a string
    of symbols such as ``"WWL"``."""
    mon = PokemonInPlay([card(i) for i in card_ids], damage=damage, entered_turn=entered_turn)
    for symbol in energy:
        mon.energy[SYMBOL_TYPES[symbol]] += 1
    mon.statuses.update(statuses)
    return mon


def player(active: str | PokemonInPlay | None = None,
           bench: tuple[str | PokemonInPlay | None, ...] = (), hand: tuple[str, ...] = (),
           deck: tuple[str, ...] = (), energy: tuple[str, ...] = ("Lightning",),
           zone: tuple[str | None, str | None] = (None, None), points: int = 0) -> Player:
    """A player; ``bench`` fills Bench slots 1, 2, 3 in order (None leaves a slot empty);
    ``zone`` is (this turn's energy, next energy) as type names."""
    def mon(x):
        return pokemon(x) if isinstance(x, str) else x

    p = Player(deck=[card(i) for i in deck], energy_types=tuple(TYPE_BY_NAME[e] for e in energy),
               hand=[card(i) for i in hand], points=points)
    p.slots = [mon(active)] + [mon(b) for b in bench] + [None] * (3 - len(bench))
    p.zone_current, p.zone_next = (None if t is None else TYPE_BY_NAME[t] for t in zone)
    return p


def position(p0: Player, p1: Player, turn: int = 3, first_player: int = 0,
             rng: RandomSource | None = None, options: RuleOptions = RuleOptions()) -> Game:
    """A game in MAIN of ``turn`` (turn player: ``first_player`` on odd turns), played by
    ``options``."""
    return Game(players=[p0, p1], rng=rng if rng is not None else ScriptedRandomSource(),
                first_player=first_player, turn=turn, phase=Phase.MAIN, options=options)
