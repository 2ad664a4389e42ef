"""PokeJAX's parameters and state (``env`` wires them into the gymnax environments)."""

from __future__ import annotations

import jax
from flax import struct

from jaxenvs.pokejax._src import observe, opponents
from jaxenvs.pokejax._src.state import BattleState


@struct.dataclass
class PokeJAXParams:
    """Team pool, opponent policy and episode limit."""

    teams: dict[str, jax.Array]
    """The pool: ``species`` uint8[N, 6], ``moves`` uint8[N, 6, 4], ``level`` uint8[N, 6],
    ``evs``/``ivs`` uint8[N, 6, 6] (``teams.stack``). ``make`` also takes user teams as text
    or a file (``teams.load_teams``)."""
    format: str = struct.field(pytree_node=False, default="gen1randombattle")
    """The Showdown format the teams follow (``teams.FORMATS``): ``gen1randombattle``, whose
    teams the default pool holds, or ``gen1ou`` / ``gen1ubers``, which play the user's teams
    and check them by that format's validator rules. Showdown's battle rules are the same in
    all three."""
    opponent: int = opponents.RANDOM
    """``PokeJAX``: p2's policy, an index into ``opponents.POLICIES`` (0 random legal, 1 greedy
    max-damage; poke-env's 2 simple heuristics and 3 max base power players). ``PokeJAX2P``
    ignores it."""
    max_steps_in_episode: int = 1000
    """Env steps before truncation."""


@struct.dataclass
class PokeJAXState:
    """An episode: the battle, what each side has seen, and the env's step count."""

    battle: BattleState
    """The battle (Showdown's state, PRNG included)."""
    revealed: observe.Revealed
    """What each side has shown its foe (the players' knowledge)."""
    held: jax.Array
    """int32: ``PokeJAX2P``: p1's choice held until p2 makes its own; -1 when none is held
    (always, in ``PokeJAX``)."""
    time: jax.Array
    """int32: env steps so far."""
