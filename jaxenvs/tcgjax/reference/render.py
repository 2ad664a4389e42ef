"""Text rendering of a reference game for people: the state, the legal actions, the log.

``render(game)`` shows both players in full (hands and deck sizes included; this is a debugging
view, not an observation), the phase and whose decision it is, and the legal actions with
descriptions. ``render_log(game)`` is the game's event log, one line per event.
"""

from __future__ import annotations

from jaxenvs.tcgjax import actions as A
from jaxenvs.tcgjax.effects import EType
from jaxenvs.tcgjax.reference.rules import legal_actions
from jaxenvs.tcgjax.reference.state import Game, PokemonInPlay

SYMBOLS = "GRWLPFDMNC"
"""One letter per EType (N: Dragon), as on the cards' {X} symbols."""


def energy_text(energy: list[int]) -> str:
    return "".join(SYMBOLS[t] * n for t, n in enumerate(energy)) or "-"


def pokemon_text(mon: PokemonInPlay | None) -> str:
    if mon is None:
        return "(empty)"
    card = mon.card
    status = ",".join(sorted(s.value for s in mon.statuses))
    return (f"{card.name} [{card.id}] {mon.hp_left}/{card.hp} HP, energy {energy_text(mon.energy)}"
            + (f", {status}" if status else ""))


def describe_action(game: Game, action: int) -> str:
    """What ``action`` would do for the current player, in words."""
    kind, index, slot = A.decode(action)
    me = game.players[game.current_player]

    def at(j: int) -> str:
        mon = me.slots[j]
        where = "Active" if j == 0 else f"Bench {j}"
        return f"{where} ({mon.card.name if mon else 'empty'})"

    if kind == "end":
        return "done placing" if game.phase.value == "setup" else "end turn"
    if kind == "attack":
        return f"attack: {me.active.card.attacks[index].name}"
    if kind == "attach":
        return f"attach {EType(me.zone_current).name.capitalize()} energy to {at(slot)}"
    if kind == "play":
        return f"play {me.hand[index].name}"
    if kind == "play_on":
        return f"play {me.hand[index].name} on {at(slot)}"
    if kind == "ability":
        return f"use {me.slots[slot].card.ability_name} of {at(slot)}"
    if kind == "retreat":
        return f"retreat to {at(slot)}"
    return f"{game.pending[0].kind.value}: {at(slot)}"


def render(game: Game) -> str:
    """A multi-line picture of the whole state."""
    lines = [f"turn {game.turn}, phase {game.phase.value}, first player P{game.first_player}"]
    for p, player in enumerate(game.players):
        zone = "/".join("-" if t is None else SYMBOLS[t] for t in
                        (player.zone_current, player.zone_next))
        lines.append(f"P{p}: {player.points} points, deck {len(player.deck)}, discard "
                     f"{len(player.discard)}, energy zone now/next {zone}")
        for j, mon in enumerate(player.slots):
            lines.append(f"  {'Active ' if j == 0 else f'Bench {j} '} {pokemon_text(mon)}")
        lines.append(f"  hand: {', '.join(c.name for c in player.hand) or '-'}")
    if game.over:
        result = "draw" if game.winner is None else f"P{game.winner} wins"
        lines.append(f"game over: {result}")
    else:
        lines.append(f"P{game.current_player} to decide:")
        lines += [f"  {a:2d} {A.name(a):14s} {describe_action(game, a)}"
                  for a in legal_actions(game)]
    return "\n".join(lines)


def render_log(game: Game) -> str:
    return "\n".join(game.log)
