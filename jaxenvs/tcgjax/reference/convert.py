"""Reference ``Game`` <-> JAX ``GameState``, both ways, lossless.

The interchange form is the reference's plain-data dict (``Game.to_dict``): ``from_dict`` builds
a ``GameState`` from it, ``to_dict`` reads one back into it. The dict holds everything but the
game log and the random source; a JAX state additionally holds ``deck_ids`` (given here) and
keeps the random-call counter as ``rng_counter``.
"""

from __future__ import annotations

import numpy as np

from jaxenvs.tcgjax._src import packed
from jaxenvs.tcgjax._src.state import (CHOICE_KINDS, MAX_PENDING, PHASES, STATUSES, GameState,
                                       PlayerState, current_player, empty_player)
from jaxenvs.tcgjax._src.tables import card_ids, card_index
from jaxenvs.tcgjax.reference.state import Game, game_from_dict
from jaxenvs.tcgjax.rng import RandomSource


def _fill(length: int, values: list[int]) -> np.ndarray:
    out = np.full(length, -1, np.int32)
    out[:len(values)] = values
    return out


_EMPTY = empty_player()
_EMPTY2 = {name: np.stack([getattr(_EMPTY, name)] * 2)
           for name in packed.field_names(PlayerState)}


def _players(ds: list[dict]) -> PlayerState:
    """Both players, stacked, filled in place (this runs at every step of the agreement
    checks, so it avoids building per-player trees)."""
    idx = card_index()
    f = {name: x.copy() for name, x in _EMPTY2.items()}
    for k, d in enumerate(ds):
        for name in ("deck", "hand", "discard"):
            cards = [idx[c] for c in d[name]]
            f[name][k, :len(cards)] = cards
            f[f"{name}_size"][k] = len(cards)
        for j, mon in enumerate(d["slots"]):
            if mon is None:
                continue
            f["stack"][k, j, :len(mon["cards"])] = [idx[c] for c in mon["cards"]]
            f["damage"][k, j], f["energy"][k, j] = mon["damage"], mon["energy"]
            f["status"][k, j] = [s in mon["statuses"] for s in STATUSES]
            f["entered_turn"][k, j] = mon["entered_turn"]
            f["ability_used_turn"][k, j] = mon["ability_used_turn"]
            f["cant_retreat_turn"][k, j] = mon["cant_retreat_turn"]
        for name in ("points", "active_damage_bonus", "retreat_discount", "supporter_played",
                     "retreated"):
            f[name][k] = d[name]
        f["energy_types"][k, :len(d["energy_types"])] = d["energy_types"]
        f["num_energy_types"][k] = len(d["energy_types"])
        for name in ("zone_current", "zone_next"):
            f[name][k] = -1 if d[name] is None else d[name]
    return PlayerState.from_fields(**f)


def from_dict(data: dict, deck_ids=(-1, -1), rng_counter: int | None = None) -> GameState:
    """The JAX state of a reference state dict. ``rng_counter`` defaults to the dict's (0 if it
    has none, as with a scripted random source)."""
    pending = data["pending"]
    counter = data["rng_counter"] if rng_counter is None else rng_counter
    return GameState.from_fields(
        players=_players(data["players"]),
        first_player=np.int32(data["first_player"]), turn=np.int32(data["turn"]),
        phase=np.int32(PHASES.index(data["phase"])),
        setup_player=np.int32(data["setup_player"]),
        pending_kind=_fill(MAX_PENDING, [CHOICE_KINDS.index(c["kind"]) for c in pending]),
        pending_player=_fill(MAX_PENDING, [c["player"] for c in pending]),
        pending_energy=_fill(MAX_PENDING, [-1 if c["energy"] is None else c["energy"]
                                           for c in pending]),
        num_pending=np.int32(len(pending)),
        winner=np.int32(-1 if data["winner"] is None else data["winner"]),
        decisions=np.int32(data["decisions"]), rng_counter=np.int32(counter or 0),
        turn_limit=np.int32(data["options"]["turn_limit"]),
        first_turn_draw=np.bool_(data["options"]["first_turn_draw"]),
        first_turn_supporter=np.bool_(data["options"]["first_turn_supporter"]),
        deck_ids=np.asarray(deck_ids, np.int32))


def from_game(game: Game, deck_ids=(-1, -1), rng_counter: int | None = None) -> GameState:
    """The JAX state of a reference game (see ``from_dict``)."""
    return from_dict(game.to_dict(), deck_ids, rng_counter)


def _opt(x) -> int | None:
    return None if int(x) < 0 else int(x)


def _player_dict(p, k: int) -> dict:
    ids = card_ids()

    def cards(arr, size):
        return [ids[int(c)] for c in np.asarray(arr)[:int(size)]]

    slots = []
    for j in range(p.stack.shape[1]):
        stack = [int(c) for c in np.asarray(p.stack[k, j]) if c >= 0]
        if not stack:
            slots.append(None)
            continue
        slots.append({"cards": [ids[c] for c in stack], "damage": int(p.damage[k, j]),
                      "energy": [int(e) for e in p.energy[k, j]],
                      "statuses": sorted(s for s, on in zip(STATUSES, p.status[k, j]) if on),
                      "entered_turn": int(p.entered_turn[k, j]),
                      "ability_used_turn": int(p.ability_used_turn[k, j]),
                      "cant_retreat_turn": int(p.cant_retreat_turn[k, j])})
    return {"deck": cards(p.deck[k], p.deck_size[k]), "hand": cards(p.hand[k], p.hand_size[k]),
            "discard": cards(p.discard[k], p.discard_size[k]), "slots": slots,
            "points": int(p.points[k]),
            "energy_types": [int(t) for t in np.asarray(p.energy_types[k])[
                :int(p.num_energy_types[k])]],
            "zone_current": _opt(p.zone_current[k]), "zone_next": _opt(p.zone_next[k]),
            "supporter_played": bool(p.supporter_played[k]), "retreated": bool(p.retreated[k]),
            "active_damage_bonus": int(p.active_damage_bonus[k]),
            "retreat_discount": int(p.retreat_discount[k])}


def to_dict(state: GameState) -> dict:
    """The reference state dict of a (single, unbatched) JAX state."""
    import jax

    s = jax.tree.map(np.asarray, state)
    n = int(s.num_pending)
    over = int(s.phase) == PHASES.index("over")
    return {"players": [_player_dict(s.players, k) for k in (0, 1)],
            "first_player": int(s.first_player), "turn": int(s.turn),
            "phase": PHASES[int(s.phase)], "setup_player": int(s.setup_player),
            "pending": [{"kind": CHOICE_KINDS[int(s.pending_kind[i])],
                         "player": int(s.pending_player[i]),
                         "energy": _opt(s.pending_energy[i])} for i in range(n)],
            "current_player": int(current_player(s)), "over": over,
            "winner": _opt(s.winner), "decisions": int(s.decisions),
            "options": {"turn_limit": int(s.turn_limit),
                        "first_turn_draw": bool(s.first_turn_draw),
                        "first_turn_supporter": bool(s.first_turn_supporter)},
            "rng_counter": int(s.rng_counter)}


def to_game(state: GameState, rng: RandomSource) -> Game:
    """A reference game in the position of ``state``, drawing from ``rng`` from now on."""
    return game_from_dict(to_dict(state), rng)
