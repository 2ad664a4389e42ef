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

from jaxenvs._src import branches
from jaxenvs._src.barrier import materialize
from jaxenvs.pokejax._src import prng
from jaxenvs.pokejax._src.stats import calc_stats
from jaxenvs.pokejax.data import Gen1Data, gen1

#: Status ids (``status``): Showdown's status strings by id.
STATUSES = ("", "brn", "frz", "par", "psn", "slp", "tox")
#: Boost order of ``boosts``.
BOOSTS = ("atk", "def", "spa", "spd", "spe", "accuracy", "evasion")
#: Volatile conditions modelled, by bit of ``volatiles`` (Showdown's volatile ids).
VOLATILES = ("reflect", "lightscreen", "focusenergy", "mustrecharge", "confusion", "flinch",
             "substitute", "twoturnmove", "defensecurl", "minimize", "mist", "residualdmg",
             "leechseed", "disable", "rage", "lockedmove", "invulnerability", "bide",
             "partialtrappinglock", "partiallytrapped", "fakepartiallytrapped")
#: Request kinds (``request``): what a side must choose now.
REQ_NONE, REQ_MOVE, REQ_SWITCH = 0, 1, 2
#: Showdown's ``'nomove'``: a side's ``last_selected`` before it ever selects a move (one past
#: the last real move id; a frozen Pokémon thawed before it moves uses a typeless 102-power
#: special move then).
NO_MOVE = len(gen1().move_names)
#: Showdown's ``'cannotmove'``: the selection Gen 1 Haze leaves to a side whose Pokémon it
#: thawed or woke (its queued move this turn, and a later Fight button, do nothing).
CANNOT_MOVE = NO_MOVE + 1
#: Showdown's names of ``last_selected`` values that are not moves.
PSEUDO_MOVES = {NO_MOVE: "nomove", CANNOT_MOVE: "cannotmove"}
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
    """int32[S, T, 5]: stored atk, def, spa, spd, spe (Showdown's ``storedStats``: the set's,
    or after Transform the target's)."""
    base_stats: jax.Array
    """int32[S, T, 5]: the set's stats (``baseStoredStats``, what a critical hit uses)."""
    spe_core: jax.Array
    """int32[S, T]: the set's Speed IV & 30 plus EV / 4 (Transform's ``setSpecies`` computes a
    Speed from them with the target's base Speed)."""
    moves: jax.Array
    """int32[S, T, M]: move ids (0 = empty slot): Showdown's ``moveSlots``, which Mimic changes
    until the Pokémon leaves the field."""
    maxpp: jax.Array
    """int32[S, T, M]."""
    base_moves: jax.Array
    """int32[S, T, M]: the set's moves (``baseMoveSlots``), restored on switching out."""
    base_maxpp: jax.Array
    """int32[S, T, M]."""
    base_pp: jax.Array
    """int32[S, T, M]: the set's PP left (the same as ``pp`` except while transformed, whose
    copied moves have their own PP)."""
    transformed: jax.Array
    """bool[S, T]: Showdown's ``pokemon.transformed``."""
    form: jax.Array
    """int32[S, T]: the current species (``pokemon.species``): the set's, or after Transform
    the target's current one."""
    # -- per-Pokémon battle state -----------------------------------------------------------
    hp: jax.Array
    """int32[S, T]: current HP (0 once fainted)."""
    fainted: jax.Array
    """bool[S, T]."""
    status: jax.Array
    """int32[S, T]: index into ``STATUSES``."""
    status_turns: jax.Array
    """int32[S, T]: the status counter: Showdown's ``statusState.time`` (sleep: the moves left
    to lose; 0 for the other statuses). Toxic is not modelled yet."""
    status_self: jax.Array
    """bool[S, T]: the status was set by the Pokémon itself (``statusState.source`` is an ally:
    Rest), which the Sleep Clause Mod does not count."""
    boosts: jax.Array
    """int32[S, T, 7]: stat stages in ``BOOSTS`` order, -6..6."""
    mod_stats: jax.Array
    """int32[S, T, 5]: Showdown's ``modifiedStats`` (atk, def, spa, spd, spe)."""
    speed: jax.Array
    """int32[S, T]: Showdown's cached ``pokemon.speed``."""
    volatiles: jax.Array
    """uint32[S, T]: volatile conditions as bit flags, bit i = ``VOLATILES[i]``."""
    confusion_turns: jax.Array
    """int32[S, T]: the confusion volatile's ``time`` (0 without confusion)."""
    sub_hp: jax.Array
    """int32[S, T]: the substitute volatile's ``hp`` (0 without one)."""
    disable_move: jax.Array
    """int32[S, T]: the disable volatile's ``move`` (the disabled move's id; 0 without one)."""
    disable_slot: jax.Array
    """int32[S, T]: the disable volatile's ``slotIndex`` (the slot the requests disable)."""
    disable_turns: jax.Array
    """int32[S, T]: the disable volatile's ``time`` (``BeforeMove`` counts it down)."""
    rage_accuracy: jax.Array
    """int32[S, T]: the rage volatile's ``accuracy`` (Gen 1 keeps a raging Pokémon's last
    accuracy, evasion-reduced each use; 0 without the volatile)."""
    lock_turns: jax.Array
    """int32[S, T]: the ``lockedmove`` volatile's ``time`` (Thrash / Petal Dance: the uses
    left; 0 without the volatile)."""
    lock_accuracy: jax.Array
    """int32[S, T]: the ``lockedmove`` volatile's ``accuracy`` (kept and evasion-reduced like
    Rage's; 0 without the volatile)."""
    bide_damage: jax.Array
    """int32[S, T]: the ``bide`` volatile's ``damage`` (the last damage summed at each of its
    turns; 0 without the volatile)."""
    bide_turns: jax.Array
    """int32[S, T]: the ``bide`` volatile's ``time`` (turns left; 0 without the volatile)."""
    trap_turns: jax.Array
    """int32[S, T]: the ``partialtrappinglock`` volatile's ``duration`` (the user of Wrap,
    Bind, Clamp or Fire Spin: the residuals left; 0 without the volatile)."""
    trap_total: jax.Array
    """int32[S, T]: its ``totalDuration`` (2-5)."""
    trap_damage: jax.Array
    """int32[S, T]: its ``damage`` (the first hit's, which the later ones repeat)."""
    trap_target: jax.Array
    """int32[S, T]: its ``locked`` Pokémon (the foe's team index)."""
    trapped_turns: jax.Array
    """int32[S, T]: the ``partiallytrapped`` volatile's ``duration`` (its target cannot move;
    0 without the volatile)."""
    trapped_by: jax.Array
    """int32[S, T]: its ``source`` (the foe's team index)."""
    trapped_maybe_locked: jax.Array
    """bool[S, T]: its ``maybeLocked`` (set from the trapper's second use on)."""
    fake_trap_turns: jax.Array
    """int32[S, T]: the ``fakepartiallytrapped`` volatile's ``duration`` (0 without it)."""
    toxic_counter: jax.Array
    """int32[S, T]: the ``residualdmg`` volatile's ``counter`` (Gen 1's Toxic counter, which
    multiplies poison, burn and Leech Seed damage; 0 without the volatile)."""
    last_move: jax.Array
    """int32[S, T]: ``pokemon.lastMove``, the last move it used (0: none since it came in, or
    since sleep or freeze stopped it), which the foe's Mirror Move copies."""
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
    last_selected: jax.Array
    """int32[S]: ``side.lastSelectedMove``: the id of the move the side last selected (kept
    across switches; ``NO_MOVE`` before any), which an asleep or frozen Pokémon's Fight button
    and a recharge turn run."""
    last_enemy_selected: jax.Array
    """int32[S]: ``side.lastEnemySelectedMove``: the move in the selected slot as the foe saw
    it (``NO_MOVE`` before any; Counter fails against a shown Counter)."""
    last_used: jax.Array
    """int32[S]: ``side.lastEnemyMove``: the last move the side's active Pokémon got to use
    (0 before any; Counter needs a Normal or Fighting damaging one)."""
    # -- battle -----------------------------------------------------------------------------
    last_damage: jax.Array
    """int32: Showdown's Gen 1 ``battle.lastDamage`` (what Counter doubles)."""
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
        "base_stats": jnp.where(present[..., None], stats[..., 1:], 0),
        "spe_core": (jnp.asarray(team["ivs"], jnp.int32)[..., 5] & 30)
        + jnp.asarray(team["evs"], jnp.int32)[..., 5] // 4,
        "moves": moves,
        "maxpp": jnp.where(moves > 0, max_pp(base_pp), 0),
    }


def _lcg_state(seed: Sequence[int] | jax.Array) -> jax.Array:
    """The LCG state ``uint32[2]`` of a seed given as four 16-bit words or as a state."""
    seed = jnp.asarray(seed)
    return seed.astype(jnp.uint32) if seed.shape == (2,) else prng.seed_from_words(seed)


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
    rng = _lcg_state(seed)
    present = team["present"]
    return BattleState(
        **team,
        base_moves=team["moves"],
        base_maxpp=team["maxpp"],
        base_pp=team["maxpp"],
        transformed=jnp.zeros((2, 6), bool),
        form=team["species"],
        hp=team["maxhp"],
        fainted=jnp.zeros((2, 6), bool),
        status=jnp.zeros((2, 6), jnp.int32),
        status_turns=jnp.zeros((2, 6), jnp.int32),
        status_self=jnp.zeros((2, 6), bool),
        boosts=jnp.zeros((2, 6, 7), jnp.int32),
        mod_stats=team["stats"],
        speed=team["stats"][..., 4],
        volatiles=jnp.zeros((2, 6), jnp.uint32),
        confusion_turns=jnp.zeros((2, 6), jnp.int32),
        sub_hp=jnp.zeros((2, 6), jnp.int32),
        toxic_counter=jnp.zeros((2, 6), jnp.int32),
        rage_accuracy=jnp.zeros((2, 6), jnp.int32),
        lock_turns=jnp.zeros((2, 6), jnp.int32),
        bide_damage=jnp.zeros((2, 6), jnp.int32),
        trap_turns=jnp.zeros((2, 6), jnp.int32),
        trap_total=jnp.zeros((2, 6), jnp.int32),
        trap_damage=jnp.zeros((2, 6), jnp.int32),
        trap_target=jnp.zeros((2, 6), jnp.int32),
        trapped_turns=jnp.zeros((2, 6), jnp.int32),
        trapped_by=jnp.zeros((2, 6), jnp.int32),
        trapped_maybe_locked=jnp.zeros((2, 6), bool),
        fake_trap_turns=jnp.zeros((2, 6), jnp.int32),
        bide_turns=jnp.zeros((2, 6), jnp.int32),
        lock_accuracy=jnp.zeros((2, 6), jnp.int32),
        disable_move=jnp.zeros((2, 6), jnp.int32),
        disable_slot=jnp.zeros((2, 6), jnp.int32),
        disable_turns=jnp.zeros((2, 6), jnp.int32),
        last_move=jnp.zeros((2, 6), jnp.int32),
        pp=team["maxpp"],
        party=jnp.tile(jnp.arange(6, dtype=jnp.int32), (2, 1)),
        pokemon_left=present.sum(axis=1).astype(jnp.int32),
        last_slot=jnp.zeros(2, jnp.int32),
        request=jnp.zeros(2, jnp.int32),
        last_selected=jnp.full(2, NO_MOVE, jnp.int32),
        last_enemy_selected=jnp.full(2, NO_MOVE, jnp.int32),
        last_used=jnp.zeros(2, jnp.int32),
        last_damage=jnp.int32(0),
        turn=jnp.int32(0),
        winner=jnp.int32(NO_WINNER),
        rng=rng,
        rng_calls=jnp.int32(0),
    )


_REQUEST_KINDS = {None: REQ_NONE, "wait": REQ_NONE, "move": REQ_MOVE, "switch": REQ_SWITCH}


def from_report(report: dict[str, Any], teams: Sequence[dict[str, np.ndarray]],
                rng: jax.Array, rng_calls: int = 0, data: Gen1Data | None = None,
                base: BattleState | None = None) -> BattleState:
    """The state a harness report describes (state injection).

    ``teams`` are the two teams as given to Showdown (``teams.to_arrays`` form; they fix the
    team order and the unchanging fields); ``rng`` is the LCG state at the report (the battle
    seed advanced by every output drawn so far, which a report does not carry). ``base``:
    ``init_state(teams, seed)`` for any seed, if the caller already has it: building it is
    most of this function's cost, and the result is the same (what the report gives is
    overwritten, the rest keeps ``init_state``'s values either way), so one base can serve
    every report of a battle.
    """
    data = data or gen1()
    base = (init_state(teams, rng, data) if base is None
            else base.replace(rng=_lcg_state(rng)))
    fields = {k: np.array(getattr(base, k)) for k in (
        "hp", "fainted", "status", "status_turns", "boosts", "mod_stats", "speed", "pp",
        "party", "pokemon_left", "request", "volatiles", "confusion_turns", "sub_hp", "last_move",
        "status_self", "toxic_counter", "disable_move", "disable_slot", "disable_turns",
        "rage_accuracy", "lock_turns", "lock_accuracy", "bide_damage", "bide_turns",
        "trap_turns", "trap_total", "trap_damage", "trap_target", "trapped_turns", "trapped_by",
        "trapped_maybe_locked", "fake_trap_turns",
        "moves", "maxpp", "stats", "types", "transformed", "base_pp", "form", "last_slot",
        "last_selected")}
    for s, side in enumerate(report["sides"]):
        fields["pokemon_left"][s] = side["pokemon_left"]
        fields["last_slot"][s] = side["last_selected_move_slot"] or 0
        fields["last_selected"][s] = data.move_index.get(
            side["last_selected_move"],
            CANNOT_MOVE if side["last_selected_move"] == "cannotmove" else NO_MOVE)
        fields["request"][s] = _REQUEST_KINDS[(side["request"] or {}).get("kind")]
        for pos, p in enumerate(side["pokemon"]):
            t = p["team_index"]
            fields["party"][s, pos] = t
            fields["hp"][s, t] = p["hp"]
            fields["fainted"][s, t] = p["fainted"]
            fields["status"][s, t] = STATUSES.index(p["status"]) if p["status"] != "fnt" else 0
            status_state = p["status_state"] or {}
            fields["status_turns"][s, t] = status_state.get("time", 0)
            # the Sleep Clause Mod's ``statusState.source.isAlly(pokemon)``
            fields["status_self"][s, t] = str(status_state.get("source")).startswith(
                f"{side['id']}:")
            fields["boosts"][s, t] = [p["boosts"][b] for b in BOOSTS]
            if p["modified_stats"]:
                fields["mod_stats"][s, t] = [p["modified_stats"][k]
                                             for k in ("atk", "def", "spa", "spd", "spe")]
            fields["speed"][s, t] = p.get("speed", fields["mod_stats"][s, t, 4])
            fields["pp"][s, t, :len(p["moves"])] = [m["pp"] for m in p["moves"]]
            fields["moves"][s, t, :len(p["moves"])] = [data.move_index[m["id"]]
                                                       for m in p["moves"]]
            fields["maxpp"][s, t, :len(p["moves"])] = [m["maxpp"] for m in p["moves"]]
            fields["last_move"][s, t] = data.move_index.get(p["last_move"], 0)
            fields["stats"][s, t] = [p["stored_stats"][k] for k in ("atk", "def", "spa", "spd",
                                                                   "spe")]
            fields["types"][s, t] = [data.type_index[x] for x in p["types"]] + [0] * (
                2 - len(p["types"]))
            fields["transformed"][s, t] = p["transformed"]
            fields["form"][s, t] = data.species_index[p["species"]]
            if not p["transformed"]:
                fields["base_pp"][s, t] = fields["pp"][s, t]
            fields["volatiles"][s, t] = sum(1 << VOLATILES.index(v) for v in p["volatiles"])
            fields["confusion_turns"][s, t] = (p["volatiles"].get("confusion") or {}).get("time", 0)
            fields["sub_hp"][s, t] = (p["volatiles"].get("substitute") or {}).get("hp", 0)
            fields["toxic_counter"][s, t] = (p["volatiles"].get("residualdmg") or {}).get(
                "counter", 0)
            fields["rage_accuracy"][s, t] = (p["volatiles"].get("rage") or {}).get("accuracy", 0)
            trap = p["volatiles"].get("partialtrappinglock") or {}
            fields["trap_turns"][s, t] = trap.get("duration", 0)
            fields["trap_total"][s, t] = trap.get("totalDuration", 0)
            fields["trap_damage"][s, t] = trap.get("damage", 0)
            fields["trap_target"][s, t] = int(trap.get("locked", ":0").split(":")[1])
            trapped = p["volatiles"].get("partiallytrapped") or {}
            fields["trapped_turns"][s, t] = trapped.get("duration", 0)
            fields["trapped_by"][s, t] = int(trapped.get("source", ":0").split(":")[1])
            fields["trapped_maybe_locked"][s, t] = bool(trapped.get("maybeLocked"))
            fields["fake_trap_turns"][s, t] = (p["volatiles"].get("fakepartiallytrapped")
                                               or {}).get("duration", 0)
            bide = p["volatiles"].get("bide") or {}
            fields["bide_damage"][s, t] = bide.get("damage", 0)
            fields["bide_turns"][s, t] = bide.get("time", 0)
            lock = p["volatiles"].get("lockedmove") or {}
            fields["lock_turns"][s, t] = lock.get("time", 0)
            fields["lock_accuracy"][s, t] = lock.get("accuracy", 0)
            disable = p["volatiles"].get("disable") or {}
            fields["disable_move"][s, t] = data.move_index.get(disable.get("move"), 0)
            fields["disable_slot"][s, t] = disable.get("slotIndex", 0)
            fields["disable_turns"][s, t] = disable.get("time", 0)
    return base.replace(
        **{k: jnp.asarray(v) for k, v in fields.items()},
        last_damage=jnp.int32(report["last_damage"]),
        turn=jnp.int32(report["turn"]),
        winner=jnp.int32(_winner(report)),
        rng_calls=jnp.int32(rng_calls),
    )


def _winner(report: dict[str, Any]) -> int:
    if not report["ended"]:
        return NO_WINNER
    return {"p1": P1, "p2": P2}.get(report["winner"], TIE)


def select(when: jax.Array, new: BattleState, old: BattleState) -> BattleState:
    """``new`` where ``when``, else ``old`` (field by field; a field both share is passed on
    as it is, with nothing to trace)."""
    return jax.tree_util.tree_map(lambda a, b: a if a is b else jnp.where(when, a, b), new, old)


# -- one entry's read and update ---------------------------------------------------------------

def get(array: jax.Array, index) -> jax.Array:
    """``array[index]`` for an ``index`` of non-negative integers in range, as the battle
    state's indices are (a side, a party position, a move slot). Scalar indices read one
    dynamic slice: NumPy-style indexing also handles negative ones, a dozen more operations to
    trace at every read. Array indices (both sides at once) index as NumPy does."""
    index = index if isinstance(index, tuple) else (index,)
    if any(jnp.ndim(i) for i in index):
        return array[index]
    return _window(array, index, _start(array, index))


def put(array: jax.Array, index, value, when=True) -> jax.Array:
    """``array.at[index].set(value)`` (only ``when``), for an ``index`` as ``get``'s. One
    dynamic update: in XLA:CPU's kernel a scatter is a clamped read, a check that drops an
    update out of range and a write, one point after the other
    (``jaxenvs._src.cpu_kernels.kernel_rewrite``), where this is the write alone."""
    return _update(array, index, lambda old: jnp.broadcast_to(value, old.shape), when)


def add_at(array: jax.Array, index, delta) -> jax.Array:
    """``array.at[index].add(delta)``, for an index as ``get``'s (``put``)."""
    return _update(array, index, lambda old: old + jnp.asarray(delta).astype(array.dtype), True)


def _start(array: jax.Array, index: tuple) -> list:
    start = [np.int32(i) if isinstance(i, int) else jax.lax.convert_element_type(i, jnp.int32)
             for i in index]
    return start + [np.int32(0)] * (array.ndim - len(index))


def _window(array: jax.Array, index: tuple, start: list) -> jax.Array:
    """The entry at scalar ``index`` (``start`` is its ``_start``), as one dynamic slice."""
    window = jax.lax.dynamic_slice(array, start, (1,) * len(index) + array.shape[len(index):],
                                   allow_negative_indices=False)
    return window.reshape(array.shape[len(index):])


def _update(array: jax.Array, index, fn, when) -> jax.Array:
    """``array`` with its entry at ``index`` replaced by ``fn`` of it where ``when``: one
    dynamic slice and one dynamic update."""
    index = index if isinstance(index, tuple) else (index,)
    start = _start(array, index)
    old = _window(array, index, start)
    new = fn(old).astype(array.dtype)
    if when is not True:
        new = jnp.where(when, new, old)
    shape = (1,) * len(index) + array.shape[len(index):]
    return jax.lax.dynamic_update_slice(array, new.reshape(shape), start,
                                        allow_negative_indices=False)


# -- the battle's PRNG stream -------------------------------------------------------------------

def draw(state: BattleState, when: jax.Array, m, n=None) -> tuple[BattleState, jax.Array]:
    """Showdown's ``random(m)`` / ``random(m, n)`` on the battle stream, drawn only ``when``
    (otherwise the state is unchanged and the value 0, meaningless).

    The draw is a branch (``branches.cond`` on the stream alone): most of the rules' draw sites
    draw only now and then (a crit roll, a secondary's chance, a speed tie), and on a CPU,
    where each env's step is one kernel, the LCG step of each site would otherwise run at every
    decision.
    Bounds that are Python ints stay constants inside it.

    The draw is computed in full before anything uses it (``barrier.materialize``): each draw
    continues the LCG chain of the draws before it, and fused into the many selects the result
    decides, that chain would run once per select and per element
    (``docs/game-engines-on-cpu.md``, "The fused-recomputation barrier")."""
    bounds = (m,) if n is None else (m, n)
    traced = [b for b in bounds if not isinstance(b, int)]

    def drawn(rng, calls, *traced_bounds):
        given = iter(traced_bounds)
        args = [b if isinstance(b, int) else next(given) for b in bounds]
        rng, r = materialize(prng.random(rng, *args), calls)
        return rng, calls + 1, r.astype(jnp.int32)

    rng, calls, r = branches.cond(
        when, drawn, lambda rng, calls, *_: (rng, calls, jnp.int32(0)),
        state.rng, state.rng_calls, *traced,
        result_shapes=(state.rng, state.rng_calls, jnp.int32(0)))
    return state.replace(rng=rng, rng_calls=calls), r


def chance(state: BattleState, when: jax.Array, numerator, denominator
           ) -> tuple[BattleState, jax.Array]:
    """Showdown's ``randomChance(numerator, denominator)``, drawn only ``when`` (False if not)."""
    state, r = draw(state, when, denominator)
    return state, jnp.asarray(when) & (r < numerator)
