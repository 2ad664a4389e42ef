"""The battle state: a fixed-size pytree holding everything Showdown's Gen 1 battle tracks.

Two sides of six Pokémon. Per-Pokémon arrays are indexed ``[side, team_index]`` where
``team_index`` is the Pokémon's place in the team as given (Showdown's ``teamIndex``); the
party order Showdown's ``switch j`` refers to is ``party[side]`` (``party[side, 0]`` is the
active Pokémon; a switch swaps two entries, as ``side.pokemon`` does in Showdown).

Stats follow Showdown's Gen 1 mod: ``stats`` are the stored stats (``storedStats``, which are
also ``baseStoredStats`` without Transform) and ``mod_stats`` the ``modifiedStats`` that boosts,
burn and paralysis change and that the damage formula and speed ordering read. ``speed`` is
Showdown's cached ``pokemon.speed`` (refreshed only by ``updateSpeed``), which orders the
event handlers whose speed ties draw from the PRNG.

``init_state`` builds the state of a new battle before its start (leads not yet sent out);
``from_report`` builds it from a harness report (state injection). ``draw`` and ``chance`` are
Showdown's ``random`` and ``randomChance`` on the battle's LCG, drawn only where asked, so
that every engine function advances the stream exactly where Showdown does.
"""

from __future__ import annotations

from typing import Any, Sequence

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxenvs.pokejax import prng
from jaxenvs.pokejax.data import Gen1Data, gen1
from jaxenvs.pokejax.stats import calc_stats

#: Status ids (``status``): Showdown's status strings by id.
STATUSES = ("", "brn", "frz", "par", "psn", "slp", "tox")
#: Boost order of ``boosts``.
BOOSTS = ("atk", "def", "spa", "spd", "spe", "accuracy", "evasion")
#: Volatile conditions modelled, by bit of ``volatiles`` (Showdown's volatile ids).
VOLATILES = ("reflect", "lightscreen", "focusenergy", "mustrecharge")
#: Request kinds (``request``): what a side must choose now.
REQ_NONE, REQ_MOVE, REQ_SWITCH = 0, 1, 2
#: ``winner`` values.
NO_WINNER, P1, P2, TIE = -1, 0, 1, 2


def max_pp(base_pp: jax.Array) -> jax.Array:
    """Showdown's Gen 1-2 PP with three PP Ups."""
    return base_pp * 8 // 5 - jnp.where(base_pp == 40, 3, 0)


@struct.dataclass
class BattleState:
    """One Gen 1 singles battle. Shapes: S = 2 sides, T = 6 team slots, M = 4 move slots."""

    # -- team (fixed for the battle) --------------------------------------------------------
    present: jax.Array
    """bool[S, T]: the team has a Pokémon in this slot."""
    species: jax.Array
    """int32[S, T]: species id (0 for an empty slot)."""
    level: jax.Array
    """int32[S, T]."""
    types: jax.Array
    """int32[S, T, 2]: type ids (second 0 if single-typed)."""
    base_spe: jax.Array
    """int32[S, T]: base Speed of the set's species (the Gen 1 critical-hit rate)."""
    maxhp: jax.Array
    """int32[S, T]."""
    stats: jax.Array
    """int32[S, T, 5]: stored atk, def, spa, spd, spe."""
    moves: jax.Array
    """int32[S, T, M]: move ids (0 = empty slot)."""
    maxpp: jax.Array
    """int32[S, T, M]."""
    # -- per-Pokémon battle state -----------------------------------------------------------
    hp: jax.Array
    """int32[S, T]: current HP (0 once fainted)."""
    fainted: jax.Array
    """bool[S, T]."""
    status: jax.Array
    """int32[S, T]: index into ``STATUSES``."""
    status_turns: jax.Array
    """int32[S, T]: the status counter (sleep turns left; Toxic stage). Neither sleep nor Toxic
    is modelled yet: always 0."""
    boosts: jax.Array
    """int32[S, T, 7]: stat stages in ``BOOSTS`` order, -6..6."""
    mod_stats: jax.Array
    """int32[S, T, 5]: Showdown's ``modifiedStats`` (atk, def, spa, spd, spe)."""
    speed: jax.Array
    """int32[S, T]: Showdown's cached ``pokemon.speed``."""
    volatiles: jax.Array
    """uint32[S, T]: volatile conditions as bit flags, bit i = ``VOLATILES[i]``."""
    pp: jax.Array
    """int32[S, T, M]: PP left."""
    # -- per side ---------------------------------------------------------------------------
    party: jax.Array
    """int32[S, T]: team index at each party position; position 0 is active."""
    pokemon_left: jax.Array
    """int32[S]: Showdown's ``pokemonLeft`` (Pokémon not fainted)."""
    last_slot: jax.Array
    """int32[S]: ``side.lastSelectedMoveSlot`` (the slot PP is deducted from)."""
    request: jax.Array
    """int32[S]: ``REQ_*``: what the side must choose for the next step."""
    # -- battle -----------------------------------------------------------------------------
    turn: jax.Array
    """int32: Showdown's ``battle.turn``."""
    winner: jax.Array
    """int32: ``NO_WINNER``, ``P1``, ``P2`` or ``TIE``."""
    rng: jax.Array
    """uint32[2]: the Gen 5 LCG state (hi, lo)."""
    rng_calls: jax.Array
    """int32: LCG outputs drawn since the battle was created."""

    @property
    def ended(self) -> jax.Array:
        return self.winner != NO_WINNER

    def active(self) -> jax.Array:
        """int32[S]: team index of each side's active Pokémon."""
        return self.party[..., 0]


def _team_arrays(team: dict[str, jax.Array], data: Gen1Data) -> dict[str, jax.Array]:
    """Per-slot arrays for teams in ``teams.to_arrays`` form (any leading shape; traceable)."""
    species = jnp.asarray(team["species"], jnp.int32)
    present = species > 0
    stats = calc_stats(jnp.asarray(data.base_stats)[species], team["ivs"], team["evs"],
                       team["level"])
    moves = jnp.asarray(team["moves"], jnp.int32)
    base_pp = jnp.asarray(data.move_pp)[moves]
    return {
        "present": present,
        "species": species,
        "level": jnp.asarray(team["level"], jnp.int32),
        "types": jnp.asarray(data.species_types)[species],
        "base_spe": jnp.asarray(data.base_stats)[species, 5],
        "maxhp": jnp.where(present, stats[..., 0], 0),
        "stats": jnp.where(present[..., None], stats[..., 1:], 0),
        "moves": moves,
        "maxpp": jnp.where(moves > 0, max_pp(base_pp), 0),
    }


def init_state(teams: Sequence[dict[str, Any]] | dict[str, Any], seed: Sequence[int] | jax.Array,
               data: Gen1Data | None = None) -> BattleState:
    """A new battle before its start (leads not yet sent out; ``turn.start`` sends them).

    ``teams``: p1's and p2's teams in ``teams.to_arrays`` form, or one such dict whose arrays
    have a leading axis of 2; ``seed``: the Gen 5 LCG seed as four 16-bit words, or an LCG
    state ``uint32[2]``. Traceable (``jit``/``vmap``) when ``teams`` and ``seed`` are arrays.
    """
    data = data or gen1()
    if not isinstance(teams, dict):
        teams = {k: jnp.stack([jnp.asarray(t[k]) for t in teams]) for k in teams[0]}
    team = _team_arrays(teams, data)
    seed = jnp.asarray(seed)
    rng = seed.astype(jnp.uint32) if seed.shape == (2,) else prng.seed_from_words(seed)
    present = team["present"]
    return BattleState(
        **team,
        hp=team["maxhp"],
        fainted=jnp.zeros((2, 6), bool),
        status=jnp.zeros((2, 6), jnp.int32),
        status_turns=jnp.zeros((2, 6), jnp.int32),
        boosts=jnp.zeros((2, 6, 7), jnp.int32),
        mod_stats=team["stats"],
        speed=team["stats"][..., 4],
        volatiles=jnp.zeros((2, 6), jnp.uint32),
        pp=team["maxpp"],
        party=jnp.tile(jnp.arange(6, dtype=jnp.int32), (2, 1)),
        pokemon_left=present.sum(axis=1).astype(jnp.int32),
        last_slot=jnp.zeros(2, jnp.int32),
        request=jnp.zeros(2, jnp.int32),
        turn=jnp.int32(0),
        winner=jnp.int32(NO_WINNER),
        rng=rng,
        rng_calls=jnp.int32(0),
    )


_REQUEST_KINDS = {None: REQ_NONE, "wait": REQ_NONE, "move": REQ_MOVE, "switch": REQ_SWITCH}


def from_report(report: dict[str, Any], teams: Sequence[dict[str, np.ndarray]],
                rng: jax.Array, rng_calls: int = 0, data: Gen1Data | None = None
                ) -> BattleState:
    """The state a harness report describes (state injection).

    ``teams`` are the two teams as given to Showdown (``teams.to_arrays`` form; they fix the
    team order and the unchanging fields); ``rng`` is the LCG state at the report (the battle
    seed advanced by every output drawn so far, which a report does not carry).
    """
    data = data or gen1()
    base = init_state(teams, rng, data)
    fields = {k: np.array(getattr(base, k)) for k in (
        "hp", "fainted", "status", "status_turns", "boosts", "mod_stats", "speed", "pp",
        "party", "pokemon_left", "request", "volatiles")}
    for s, side in enumerate(report["sides"]):
        fields["pokemon_left"][s] = side["pokemon_left"]
        fields["request"][s] = _REQUEST_KINDS[(side["request"] or {}).get("kind")]
        for pos, p in enumerate(side["pokemon"]):
            t = p["team_index"]
            fields["party"][s, pos] = t
            fields["hp"][s, t] = p["hp"]
            fields["fainted"][s, t] = p["fainted"]
            fields["status"][s, t] = STATUSES.index(p["status"]) if p["status"] != "fnt" else 0
            fields["status_turns"][s, t] = (p["status_state"] or {}).get("time", 0)
            fields["boosts"][s, t] = [p["boosts"][b] for b in BOOSTS]
            if p["modified_stats"]:
                fields["mod_stats"][s, t] = [p["modified_stats"][k]
                                             for k in ("atk", "def", "spa", "spd", "spe")]
            fields["speed"][s, t] = p.get("speed", fields["mod_stats"][s, t, 4])
            fields["pp"][s, t, :len(p["moves"])] = [m["pp"] for m in p["moves"]]
            fields["volatiles"][s, t] = sum(1 << VOLATILES.index(v) for v in p["volatiles"])
    return base.replace(
        **{k: jnp.asarray(v) for k, v in fields.items()},
        turn=jnp.int32(report["turn"]),
        winner=jnp.int32(_winner(report)),
        rng_calls=jnp.int32(rng_calls),
    )


def _winner(report: dict[str, Any]) -> int:
    if not report["ended"]:
        return NO_WINNER
    return {"p1": P1, "p2": P2}.get(report["winner"], TIE)


# -- the battle's PRNG stream -------------------------------------------------------------------

def draw(state: BattleState, when: jax.Array, m, n=None) -> tuple[BattleState, jax.Array]:
    """Showdown's ``random(m)`` / ``random(m, n)`` on the battle stream, drawn only ``when``
    (otherwise the state is unchanged and the value meaningless)."""
    rng, r = prng.random(state.rng, m, n)
    when = jnp.asarray(when)
    return state.replace(rng=jnp.where(when, rng, state.rng),
                         rng_calls=state.rng_calls + when.astype(jnp.int32)), r.astype(jnp.int32)


def chance(state: BattleState, when: jax.Array, numerator, denominator
           ) -> tuple[BattleState, jax.Array]:
    """Showdown's ``randomChance(numerator, denominator)``, drawn only ``when`` (False if not)."""
    state, r = draw(state, when, denominator)
    return state, jnp.asarray(when) & (r < numerator)
