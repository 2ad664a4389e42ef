"""The JAX engine's game state: one fixed-shape pytree per game.

Field for field the reference ``Game`` (``reference/state.py``), with lists padded to fixed
sizes. Cards are card indices (``tables``), -1 (``NO_CARD``) for an empty entry; types are
``EType`` values, -1 for none. ``players`` holds both players' fields stacked on a leading axis
of size 2 (player 0, player 1). The padding is canonical (an empty entry, slot or pending choice
always holds the same values), so two states of the same game position are equal array for
array; ``convert`` builds and reads these states from and to the reference's. The scalars (a
player's deck size, points, Energy Zone..., the game's turn, phase, counters), each slot's int32
facts and the pending choices are packed into one array per group and read and written by name
like the other fields (``packed``): a compiled step's cost grows with the number of leaves.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxenvs._src import branches
from jaxenvs.tcgjax._src import packed
from jaxenvs.tcgjax.actions import HAND_MAX, NUM_SLOTS
from jaxenvs.tcgjax.cards import DECK_SIZE, MAX_ENERGY_TYPES
from jaxenvs.tcgjax.effects import NUM_TYPES

#: Cards in an evolution stack at most (Basic, Stage 1, Stage 2).
STACK_SIZE = 3
#: Pending choices at most (Inferno Dance's 3 heads; 2 promotions).
MAX_PENDING = 3
#: Special Conditions, in this order (the reference's ``Status``).
STATUSES = ("poisoned", "burned", "asleep", "paralyzed", "confused")
POISONED, BURNED, ASLEEP, PARALYZED, CONFUSED = range(len(STATUSES))
NUM_STATUSES = len(STATUSES)
#: Phases, as the reference's ``Phase`` (values are these indices).
PHASES = ("setup", "start_turn", "main", "after_attack", "end_turn", "over")
SETUP, START_TURN, MAIN, AFTER_ATTACK, END_TURN, OVER = range(len(PHASES))
#: Pending choice kinds, as the reference's ``ChoiceKind``; -1 marks no choice.
CHOICE_KINDS = ("promote", "switch_in", "attach_bench")
PROMOTE, SWITCH_IN, ATTACH_BENCH = range(len(CHOICE_KINDS))
#: An empty slot's ``ability_used_turn`` and ``cant_retreat_turn`` (the reference's defaults).
NEVER = -1


#: A player's scalars, packed into ``PlayerState.counters`` (``packed``).
PLAYER_COUNTERS = packed.Group("counters", {
    "deck_size": "Cards in the deck.",
    "hand_size": "Cards in hand (0..10).",
    "discard_size": "Cards in the discard pile.",
    "points": "Points scored (the knock-outs that end a game can take it past 3).",
    "num_energy_types": "Number of Energy Zone types (1..3).",
    "zone_current": "This turn's Energy Zone energy, -1 for none (or already attached).",
    "zone_next": "Next turn's Energy Zone energy (shown in advance), -1 before the first draw.",
    "supporter_played": "bool: a Supporter was played this turn.",
    "retreated": "bool: the player retreated this turn.",
    "active_damage_bonus": "Giovanni: extra damage of this turn's attacks to the opponent's "
                           "Active.",
    "retreat_discount": "X Speed: retreat cost reduction this turn.",
}, flags=("supporter_played", "retreated"))
#: Each slot's int32 facts, packed into ``PlayerState.slot_facts`` ([slot, fact]).
SLOT_FACTS = packed.Group("slot_facts", {
    "damage": "[4] damage counters (in HP; 0 for an empty slot).",
    "entered_turn": "[4] turn the Pokémon was placed or last evolved (0: setup; 0 for an empty "
                    "slot).",
    "ability_used_turn": "[4] turn its ability was last used (-1: never, and for an empty "
                         "slot).",
    "cant_retreat_turn": "[4] turn during which it cannot retreat (Corner; -1: none, and for "
                         "an empty slot).",
})


@packed.packs(PLAYER_COUNTERS, SLOT_FACTS)
@struct.dataclass
class PlayerState:
    """One player's cards, Pokémon in play and per-turn flags (all int32 unless stated).

    In ``GameState.players`` every field has an extra leading axis of size 2. The scalars and
    each slot's int32 facts are packed (``PLAYER_COUNTERS``, ``SLOT_FACTS``) and read and
    written by name, as fields (``packed``).
    """

    deck: jax.Array
    """[20] card indices, the top card first, -1 after ``deck_size``."""
    hand: jax.Array
    """[10] card indices in hand order (new cards at the end), -1 after ``hand_size``."""
    discard: jax.Array
    """[20] the discard pile in the order cards arrived, -1 after ``discard_size``."""
    stack: jax.Array
    """[4, 3] per slot (0 Active, 1..3 Bench) its evolution stack, Basic first, -1 padded; a
    slot is empty iff ``stack[j, 0] == -1``."""
    energy: jax.Array
    """[4, 10] attached energy per EType (0 for an empty slot)."""
    status: jax.Array
    """bool[4, 5] Special Conditions in ``STATUSES`` order (False for an empty slot)."""
    energy_types: jax.Array
    """[3] the deck's Energy Zone types in registration order, -1 padded."""
    counters: jax.Array
    """[11] ``PLAYER_COUNTERS``."""
    slot_facts: jax.Array
    """[4, 4] ``SLOT_FACTS`` per slot."""


#: ``PlayerState``'s stored fields (its leaves), in order.
PLAYER_FIELDS = tuple(PlayerState.__dataclass_fields__)


#: The game's scalars, packed into ``GameState.counters`` (``packed``).
GAME_COUNTERS = packed.Group("counters", {
    "first_player": "The player who goes first (odd turns are theirs).",
    "turn": "Current turn, 1..``turn_limit`` (0 during setup).",
    "phase": "Index into ``PHASES``. At a decision: SETUP, MAIN, OVER, or any phase with a "
             "pending choice (the flow resumes there once the choices are answered).",
    "setup_player": "The player placing Pokémon during SETUP.",
    "num_pending": "Pending choices (0..3); the first is the current decision.",
    "winner": "0 or 1 once won; -1 while running or for a draw.",
    "decisions": "Actions taken so far.",
    "rng_counter": "Random calls made so far: call k uses ``fold_in(game key, k)`` "
                   "(``rng.py``).",
    "turn_limit": "``RuleOptions.turn_limit``: the turn after which an undecided game is a "
                  "draw.",
    "first_turn_draw": "bool: ``RuleOptions.first_turn_draw``.",
    "first_turn_supporter": "bool: ``RuleOptions.first_turn_supporter``.",
}, flags=("first_turn_draw", "first_turn_supporter"))
#: The pending choices, packed into ``GameState.pending`` ([choice, fact]).
PENDING = packed.Group("pending", {
    "pending_kind": "[3] pending choices in order, index into ``CHOICE_KINDS``, -1 after "
                    "``num_pending``.",
    "pending_player": "[3] who answers each pending choice, -1 after ``num_pending``.",
    "pending_energy": "[3] the EType an ATTACH_BENCH choice attaches, -1 otherwise.",
})


@packed.packs(GAME_COUNTERS, PENDING)
@struct.dataclass
class GameState:
    """A whole game (all int32). Its scalars and the pending choices are packed
    (``GAME_COUNTERS``, ``PENDING``) and read and written by name, as fields (``packed``)."""

    players: PlayerState
    """Both players, stacked on a leading axis of size 2."""
    counters: jax.Array
    """[11] ``GAME_COUNTERS``."""
    pending: jax.Array
    """[3, 3] ``PENDING`` per choice."""
    deck_ids: jax.Array
    """[2] each player's deck as an index into the sorted sample deck ids, -1 for another deck
    (information only: the rules never read it)."""


def empty_player() -> PlayerState:
    """A player with no cards: the padding values of every field (numpy)."""
    i32 = np.int32
    return PlayerState.from_fields(
        deck=np.full(DECK_SIZE, -1, i32), deck_size=i32(0),
        hand=np.full(HAND_MAX, -1, i32), hand_size=i32(0),
        discard=np.full(DECK_SIZE, -1, i32), discard_size=i32(0),
        stack=np.full((NUM_SLOTS, STACK_SIZE), -1, i32), damage=np.zeros(NUM_SLOTS, i32),
        energy=np.zeros((NUM_SLOTS, NUM_TYPES), i32),
        status=np.zeros((NUM_SLOTS, NUM_STATUSES), bool), entered_turn=np.zeros(NUM_SLOTS, i32),
        ability_used_turn=np.full(NUM_SLOTS, NEVER, i32),
        cant_retreat_turn=np.full(NUM_SLOTS, NEVER, i32), points=i32(0),
        energy_types=np.full(MAX_ENERGY_TYPES, -1, i32), num_energy_types=i32(0),
        zone_current=i32(-1), zone_next=i32(-1), supporter_played=np.bool_(False),
        retreated=np.bool_(False), active_damage_bonus=i32(0), retreat_discount=i32(0))


def stack_players(p0: PlayerState, p1: PlayerState) -> PlayerState:
    """Two numpy players stacked (numpy: building a state from the reference stays fast)."""
    return jax.tree.map(lambda a, b: np.stack([a, b]), p0, p1)


def player(state: GameState, p) -> PlayerState:
    """Player ``p``'s fields. A traced ``p`` reads them at ``p`` where the call runs unbatched
    (env by env in an XLA:CPU kernel), and selects between the two players where it is
    batched, cheaper there than a gather (``branches.by_batching``); unbatched, the read at
    ``p`` (with ``set_player``'s write) runs fewer kernel instructions than selecting both
    ways."""
    if isinstance(p, int):
        return jax.tree.map(lambda x: x[p], state.players)

    def read(players, p):
        return jax.tree.map(lambda x: jax.lax.dynamic_index_in_dim(x, p, keepdims=False),
                            players)

    def select(players, p):
        return jax.tree.map(lambda x: jnp.where(p == 0, x[0], x[1]), players)

    shapes = jax.tree.map(lambda x: jax.ShapeDtypeStruct(x.shape[1:], x.dtype), state.players)
    return branches.by_batching(read, select, state.players, jnp.asarray(p, jnp.int32),
                                result_shapes=shapes)


def set_player(state: GameState, p, me: PlayerState, base: PlayerState | None = None
               ) -> GameState:
    """``state`` with player ``p``'s fields replaced by ``me``; fields of ``me`` that are the
    very objects of ``base`` (``player(state, p)`` before the change) are left alone, which keeps
    the compiled program small. As ``player``: written at ``p`` unbatched, selected batched."""
    base = jax.tree.map(lambda _: None, me) if base is None else base
    names = [f for f in PLAYER_FIELDS if getattr(me, f) is not getattr(base, f)]
    if not names:
        return state
    old = {f: getattr(state.players, f) for f in names}
    new = {f: jnp.asarray(getattr(me, f), old[f].dtype) for f in names}
    if isinstance(p, int):
        return state.replace(players=state.players.replace(
            **{f: old[f].at[p].set(new[f]) for f in names}))

    def write(old, new, p):
        return {f: jax.lax.dynamic_update_index_in_dim(old[f], new[f], p, 0) for f in old}

    def select(old, new, p):
        return {f: jnp.where((jnp.arange(2) == p).reshape((2,) + (1,) * (x.ndim - 1)),
                             new[f][None], x) for f, x in old.items()}

    changed = branches.by_batching(write, select, old, new, jnp.asarray(p, jnp.int32),
                                   result_shapes=old)
    return state.replace(players=state.players.replace(**changed))


def turn_player(state: GameState) -> jax.Array:
    """Odd turns belong to the first player. Parity as the lowest bit: ``turn % 2`` (floor
    modulo, the same for every int32) compiles to a sign correction as well, which XLA
    repeats in each fused operation that reads the turn player, many per TCGJax env step."""
    return jnp.where((state.turn & 1) == 1, state.first_player, 1 - state.first_player)


def current_player(state: GameState) -> jax.Array:
    """Whose decision it is: a pending choice's player, else the placing player in SETUP, else
    the turn player (meaningless once over)."""
    return jnp.where(state.num_pending > 0, state.pending_player[0],
                     jnp.where(state.phase == SETUP, state.setup_player, turn_player(state)))


def rewards(state: GameState) -> jax.Array:
    """float32[2]: +1 win, -1 loss, 0 draw or not over."""
    won = jnp.asarray([state.winner == 0, state.winner == 1])
    return jnp.where(state.winner < 0, 0.0, jnp.where(won, 1.0, -1.0)).astype(jnp.float32)
