"""Decision steps: Showdown's ``commitChoices`` -> ``turnLoop`` for Gen 1 singles.

A decision step takes both sides' actions (ignored for a side that has no request) and runs
the battle to the next request, drawing from the PRNG exactly where Showdown does:

* **Action order** (``queue.sort``): lower order first (switch 103 before move 200), then
  higher move priority, then higher Speed (``modifiedStats.spe``); a full tie is a
  ``shuffle`` of the two actions (one ``random(0, 2)``).
* **Speed-tie shuffles of the event system**: every ``eachEvent`` (``BeforeTurn`` and the
  ``Update`` run after each action) sorts the active Pokémon by their cached ``speed``; when
  both are active and tied that is one ``random(0, 2)`` even though no handler listens. A
  ``runSwitch`` queued behind an equally fast one is placed by ``random(0, 2)``
  (``insertChoice``).
* **Gen 1 faint rule**: a faint clears the queue (the rest of the turn, residual included);
  the turn ends after the replacements come in.
* **Gen 1 choices** (``side.commitChoices``): a chosen move becomes the side's
  ``lastSelectedMove``, which the action runs; a Pokémon locked into a move (recharge, a
  charged two-turn move, Rage, Thrash), semi-locked (Bide, a trapping lock) or, asleep or
  frozen, offered only the Fight button runs the side's previous selection, whose priority
  orders the action; a partially trapped one selects ``cannotmove``. A trapping lock or a
  partial trap offers only ``move 1`` unless the turn's ``DisableMove`` made it
  ``maybeLocked``.
* **Residual**: the volatiles with a duration (flinch, the trapping ones) count down
  (``conditions.residual``); a switch-in makes every active Pokémon forget its last move
  (``runSwitch``), and a foe holding a trapping lock from a Metronome slot selects Metronome
  again. ``endTurn`` ends broken trapping pairs, then ``DisableMove`` draws its ties.

Actions (``NUM_ACTIONS`` = 9): 0-3 use the move in slot 0-3 (``move 1``-``move 4``), 4-8
switch to party position 1-5 (``switch 2``-``switch 6``).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxenvs._src import branches
from jaxenvs.pokejax._src import conditions as cond
from jaxenvs.pokejax._src import moves as mv
from jaxenvs.pokejax._src.state import (CANNOT_MOVE, NO_WINNER, P1, P2, REQ_MOVE, REQ_NONE,
                                        REQ_SWITCH, STATUSES, TIE, BattleState, add_at, draw, put,
                                        select)
from jaxenvs.pokejax.data import gen1

NUM_ACTIONS = 9
_SPECIES_TYPES = jax.device_put(gen1().species_types)
FIRST_SWITCH = 4
_ORDER_SWITCH, _ORDER_MOVE = 103, 200


def legal_actions(state: BattleState) -> jax.Array:
    """bool[2, 9]: the actions Showdown accepts from each side now (none when it waits)."""
    team = state.party
    sides = jnp.arange(2)[:, None]
    can_switch = (state.present[sides, team] & ~state.fainted[sides, team]).at[:, 0].set(False)
    usable = mv.usable_moves(state, jnp.arange(2))
    usable = usable.at[:, 0].set(usable[:, 0] | ~jnp.any(usable, axis=1))  # Struggle
    sides = jnp.arange(2)
    locked = mv.locked(state, sides)[:, None]  # one move, no switch
    # Gen 1: asleep or frozen, the only move is Fight (``move 1``), switching stays open; so
    # for Bide, and unless ``maybeLocked``, for a trapping lock and a partial trap
    maybe = cond.maybe_locked(state)
    one = fight_only(state) | (~maybe & (cond.has(state, sides, cond.TRAP_LOCK)
                                         | cond.has(state, sides, cond.TRAPPED)))
    usable = jnp.where(locked | one[:, None], jnp.arange(4) == 0, usable)
    can_switch = can_switch & ~locked
    move_req = (state.request == REQ_MOVE)[:, None]
    any_req = (state.request != REQ_NONE)[:, None]
    return jnp.concatenate([usable & move_req, can_switch[:, 1:] & any_req], axis=1)


def fight_only(state: BattleState) -> jax.Array:
    """bool[2]: the side's active Pokémon is asleep or frozen, so its move request offers only
    Gen 1's Fight button (``move 1``), which leaves the selected move slot alone; or it is
    semi-locked into Bide (``move 1`` is Bide, which leaves the selection alone just the
    same). Switching stays open."""
    sides = jnp.arange(2)
    status = state.status[sides, state.party[:, 0]]
    return (status == cond.SLP) | (status == cond.FRZ) | cond.has(state, sides, cond.BIDE)


def _update_speed(state: BattleState) -> BattleState:
    """``battle.updateSpeed``: each non-fainted active Pokémon caches its Speed."""
    sides = jnp.arange(2)
    active = state.party[:, 0]
    fresh = jnp.where(state.fainted[sides, active], state.speed[sides, active],
                      state.mod_stats[sides, active, 4])
    return state.replace(speed=state.speed.at[sides, active].set(fresh))


def _event_tie(state: BattleState, when: jax.Array = True) -> BattleState:
    """An ``eachEvent``'s speed sort of the active Pokémon: one draw if both are on the field
    with equal cached Speed."""
    sides = jnp.arange(2)
    active = state.party[:, 0]
    alive = ~state.fainted[sides, active]
    speed = state.speed[sides, active]
    state, _ = draw(state, when & alive[0] & alive[1] & (speed[0] == speed[1]), 0, 2)
    return state


def clear_volatile(state: BattleState, side: jax.Array, t: jax.Array) -> BattleState:
    """``pokemon.clearVolatile``: boosts, volatiles and the last move go, the set's moves and
    their PP come back (after Mimic or Transform), and ``setSpecies`` restores the set's stats
    and types and recomputes the modified stats, with the paralysis and burn drops again (the
    cached speed becomes the stored Speed)."""
    stats = state.base_stats[side, t]
    mod = cond.status_drops(stats, state.status[side, t])
    return state.replace(
        boosts=put(state.boosts, (side, t), 0),
        volatiles=put(state.volatiles, (side, t), 0),
        confusion_turns=put(state.confusion_turns, (side, t), 0),
        sub_hp=put(state.sub_hp, (side, t), 0),
        toxic_counter=put(state.toxic_counter, (side, t), 0),
        rage_accuracy=put(state.rage_accuracy, (side, t), 0),
        lock_turns=put(state.lock_turns, (side, t), 0),
        bide_damage=put(state.bide_damage, (side, t), 0),
        trap_turns=put(state.trap_turns, (side, t), 0),
        trap_total=put(state.trap_total, (side, t), 0),
        trap_damage=put(state.trap_damage, (side, t), 0),
        trap_target=put(state.trap_target, (side, t), 0),
        trapped_turns=put(state.trapped_turns, (side, t), 0),
        trapped_by=put(state.trapped_by, (side, t), 0),
        trapped_maybe_locked=put(state.trapped_maybe_locked, (side, t), False),
        fake_trap_turns=put(state.fake_trap_turns, (side, t), 0),
        bide_turns=put(state.bide_turns, (side, t), 0),
        lock_accuracy=put(state.lock_accuracy, (side, t), 0),
        disable_move=put(state.disable_move, (side, t), 0),
        disable_slot=put(state.disable_slot, (side, t), 0),
        disable_turns=put(state.disable_turns, (side, t), 0),
        last_move=put(state.last_move, (side, t), 0),
        moves=put(state.moves, (side, t), state.base_moves[side, t]),
        maxpp=put(state.maxpp, (side, t), state.base_maxpp[side, t]),
        pp=put(state.pp, (side, t), state.base_pp[side, t]),
        transformed=put(state.transformed, (side, t), False),
        form=put(state.form, (side, t), state.species[side, t]),
        types=put(state.types, (side, t), _SPECIES_TYPES[state.species[side, t]]),
        stats=put(state.stats, (side, t), stats),
        mod_stats=put(state.mod_stats, (side, t), mod),
        speed=put(state.speed, (side, t), stats[4]),
    )


def _switch_in(state: BattleState, side: jax.Array, pos: jax.Array) -> BattleState:
    """``actions.switchIn`` of party position ``pos`` plus its ``runSwitch`` bookkeeping."""
    old = state.party[side, 0]
    new = state.party[side, pos]
    state = branches.when(state.hp[side, old] > 0, clear_volatile, state, side, old)
    party = put(put(state.party, (side, 0), new), (side, pos), old)
    # tox's onSwitchIn: a badly poisoned Pokémon comes in merely poisoned
    status = state.status[side, new]
    # runSwitch (Gen 1): a foe holding a trapping lock whose selected slot is Metronome
    # selects Metronome again (its queued move too)
    foe = 1 - side
    f = state.party[foe, 0]
    metronome = (cond.has(state, foe, cond.TRAP_LOCK) & (state.hp[foe, f] > 0)
                 & (state.moves[foe, f, state.last_slot[foe]] == mv.METRONOME))
    state = state.replace(
        last_selected=put(state.last_selected, foe, mv.METRONOME, metronome),
        last_enemy_selected=put(state.last_enemy_selected, foe, mv.METRONOME, metronome))
    # runSwitch (Gen 1-2): every active Pokémon forgets its last move
    return state.replace(
        status=put(state.status, (side, new), jnp.where(status == cond.TOX, cond.PSN, status)),
        last_move=state.last_move.at[jnp.arange(2), party[:, 0]].set(0),
        party=party,
        speed=put(state.speed, (side, new), state.mod_stats[side, new, 4]),
        last_slot=put(state.last_slot, side, 0),
    )


def _faint(state: BattleState, side: jax.Array, when: jax.Array) -> BattleState:
    """``faintMessages`` for ``side``'s active Pokémon."""
    def faint(state, side):
        t = state.party[side, 0]
        fainted = clear_volatile(state, side, t)
        return fainted.replace(fainted=put(state.fainted, (side, t), True),
                               hp=put(state.hp, (side, t), 0),
                               pokemon_left=add_at(state.pokemon_left, side, -1))

    return branches.when(when, faint, state, side)


def _check_win(state: BattleState) -> BattleState:
    """``checkWin``: no Pokémon left on both sides is a tie, on one side a win for the other."""
    left = state.pokemon_left
    winner = jnp.where((left[0] == 0) & (left[1] == 0), TIE,
                       jnp.where(left[1] == 0, P1, jnp.where(left[0] == 0, P2, state.winner)))
    return state.replace(winner=jnp.where(state.winner == NO_WINNER, winner, state.winner))


def _run_switch(state: BattleState, side: jax.Array, action: jax.Array
                ) -> tuple[BattleState, jax.Array]:
    """``run_action`` of a switch action."""
    state = _event_tie(_switch_in(state, side, action - FIRST_SWITCH + 1))
    # runSwitch: a burned or poisoned Pokémon is hurt as it comes in
    state, fainted = cond.residual_damage(state, side, True)
    state = _check_win(_faint(state, side, fainted))
    return _event_tie(state, ~fainted), fainted


def _run_move(state: BattleState, side: jax.Array, action: jax.Array
              ) -> tuple[BattleState, jax.Array]:
    """``run_action`` of a move action (the move is the active Pokémon's chosen one)."""
    state, target_fainted, user_fainted = mv.use_move(state, side)
    state = _faint(state, 1 - side, target_fainted)
    state = _check_win(_faint(state, side, user_fainted))
    fainted = target_fainted | user_fainted
    return _event_tie(state, ~fainted), fainted


def run_action(state: BattleState, side: jax.Array, action: jax.Array
               ) -> tuple[BattleState, jax.Array]:
    """One queued action (switch or move) and the ``Update`` after it. Returns (state, a
    faint cleared the queue)."""
    return branches.cond(action >= FIRST_SWITCH, _run_switch, _run_move, state, side, action,
                         result_shapes=(state, jnp.bool_(False)))


_GHOST = gen1().type_index["Ghost"]
_FROZEN = STATUSES.index("frz")
_TRANSFORM = gen1().move_index["transform"]
#: Showdown ties a battle when ``endTurn`` reaches this turn.
MAX_TURN = 1000


def _cannot_progress(state: BattleState) -> jax.Array:
    """Showdown's Gen 1 Endless Battle Clause (``maybeTriggerEndlessBattleClause``): on every
    side each remaining Pokémon is frozen, knows only Transform while every remaining foe
    does too, or is out of PP facing only Ghosts."""
    out = state.fainted | ~state.present
    ghost = jnp.any(state.types == _GHOST, axis=-1)
    only_transform = jnp.all((state.moves == _TRANSFORM) | (state.moves == 0), axis=-1)
    foe_all_ghosts = jnp.all(out | ghost, axis=1)[::-1]
    foe_all_transform = jnp.all(out | only_transform, axis=1)[::-1]
    no_pp = jnp.all(state.pp == 0, axis=-1)
    stuck = (out | (state.status == _FROZEN) | (only_transform & foe_all_transform[:, None])
             | (no_pp & foe_all_ghosts[:, None]))
    return jnp.all(stuck)


def _tied_where(state: BattleState, tie: jax.Array) -> BattleState:
    """``state`` with the battle tied (no requests) where ``tie`` holds."""
    return state.replace(winner=jnp.where(tie, TIE, state.winner),
                         request=jnp.where(tie, REQ_NONE, state.request))


def _end_turn(state: BattleState) -> BattleState:
    """``endTurn``: the next turn's move request, unless the Endless Battle Clause
    (``_cannot_progress``) or the turn limit ties the battle."""
    # Gen 1 trapping clean-up, then each active Pokémon's DisableMove event
    state = cond.disable_move_event(cond.end_turn_traps(state))
    state = state.replace(turn=state.turn + 1, request=jnp.full(2, REQ_MOVE, jnp.int32))
    return _tied_where(state, _cannot_progress(state) | (state.turn > MAX_TURN))


def begin_move_turn(state: BattleState, actions: jax.Array) -> tuple[BattleState, jax.Array]:
    """A turn from a move request on both sides, up to its first action: ``commitChoices``,
    the cached speeds, the action order with its draws (a full tie's ``random(0, 2)``), then
    the ``BeforeTurn`` and ``Update`` speed ties. Returns (state, the side that acts first)."""
    state = _update_speed(state)
    sides = jnp.arange(2)
    active = state.party[:, 0]
    is_switch = actions >= FIRST_SWITCH
    order = jnp.where(is_switch, _ORDER_SWITCH, _ORDER_MOVE)
    # commitChoices: a chosen move becomes the side's selection (Struggle without PP); a locked
    # move (recharge, a charged two-turn move), a semi-locked one (Bide, a trapping lock) and
    # the Fight button keep it (and run it); a partially trapped Pokémon's Fight selects
    # ``cannotmove``
    kept = mv.locked(state, sides) | fight_only(state) | cond.has(state, sides, cond.TRAP_LOCK)
    cannot = ~is_switch & ~kept & cond.has(state, sides, cond.TRAPPED)
    chosen = ~is_switch & ~kept & ~cannot
    struggle = ~jnp.any(mv.usable_moves(state, sides), axis=-1)
    move_ids = state.moves[sides, active, jnp.clip(actions, 0, 3)]
    last_slot = jnp.where(chosen & ~struggle, actions, state.last_slot)
    shown = jnp.where(chosen & struggle, mv.STRUGGLE, state.moves[sides, active, last_slot])
    shown = jnp.where(cannot, CANNOT_MOVE, shown)
    state = state.replace(
        last_selected=jnp.where(cannot, CANNOT_MOVE,
                                jnp.where(chosen, jnp.where(struggle, mv.STRUGGLE, move_ids),
                                          state.last_selected)),
        last_slot=last_slot,
        last_enemy_selected=jnp.where(is_switch, state.last_enemy_selected, shown))
    priority = jnp.where(is_switch, 0, mv.MOVE_PRIORITY[state.last_selected])
    speed = state.mod_stats[sides, active, 4]

    key = jnp.stack([-order, priority, speed], axis=1)  # larger goes first
    diff = key[0] - key[1]
    nonzero = diff != 0
    first_diff = diff[jnp.argmax(nonzero)]
    tie = ~jnp.any(nonzero)
    state, r = draw(state, tie, 0, 2)
    first = jnp.where(tie, r, jnp.where(first_diff > 0, 0, 1))
    return _event_tie(_event_tie(state)), first  # BeforeTurn, then Update


def _move_turn(state: BattleState, actions: jax.Array) -> BattleState:
    """A turn from a move request on both sides."""
    state, first = begin_move_turn(state, actions)

    def run(k, carry):  # the two actions in order (a loop: one copy of the action code)
        state, halted = carry
        side = jnp.where(k == 0, first, 1 - first)
        return branches.cond(halted, _halted, run_action, state, side, actions[side],
                             result_shapes=(state, halted))

    state, halted = jax.lax.fori_loop(0, 2, run, (state, jnp.bool_(False)))
    return branches.cond(halted, _replacements, _residual_and_end, state, result_shapes=state)


def _halted(state: BattleState, side: jax.Array, action: jax.Array
            ) -> tuple[BattleState, jax.Array]:
    """``run_action`` after a faint cleared the queue: nothing runs."""
    return state, jnp.bool_(True)


def _replacements(state: BattleState) -> BattleState:
    """A turn a faint cut short: the requests to replace the fainted Pokémon."""
    active = state.party[:, 0]
    needs_switch = state.fainted[jnp.arange(2), active] & ~state.ended
    return state.replace(request=jnp.where(needs_switch, REQ_SWITCH, REQ_NONE))


def _residual_and_end(state: BattleState) -> BattleState:
    """A full turn's end: the volatiles with a duration count down (flinch ends), the
    ``Update``, then ``endTurn``."""
    return _end_turn(_event_tie(cond.residual(_update_speed(state))))


def _switch_turn(state: BattleState, actions: jax.Array) -> BattleState:
    """The replacements after a faint (Showdown's ``instaswitch`` actions)."""
    state = _update_speed(state)
    sides = jnp.arange(2)
    switching = state.request == REQ_SWITCH
    both = switching[0] & switching[1]
    speed = state.mod_stats[sides, state.party[:, 0], 4]
    state, r = draw(state, both & (speed[0] == speed[1]), 0, 2)
    first = jnp.where(both, jnp.where(speed[0] == speed[1], r, jnp.where(speed[0] > speed[1],
                                                                        0, 1)),
                      jnp.where(switching[0], 0, 1))
    second = 1 - first
    pos = actions - FIRST_SWITCH + 1
    state = _switch_in(state, first, pos[first])
    state = branches.when(both, _switch_in, state, second, pos[second])
    # the second runSwitch is queued behind the first: a tie is placed by random(0, 2)
    new_speed = state.speed[sides, state.party[:, 0]]
    state, _ = draw(state, both & (new_speed[0] == new_speed[1]), 0, 2)
    return _end_turn(_event_tie(_event_tie(_event_tie(state), both)))


def start(state: BattleState) -> BattleState:
    """Showdown's ``start`` action: both leads come out, then turn 1's move request (or, as
    turn 1's ``endTurn`` finds it, a battle that cannot progress tied before any move)."""
    sides = jnp.arange(2)
    lead = state.party[:, 0]
    speed = state.mod_stats[sides, lead, 4]
    state = state.replace(speed=state.speed.at[sides, lead].set(speed))
    state, _ = draw(state, speed[0] == speed[1], 0, 2)
    state = _event_tie(_event_tie(_event_tie(state)))
    state = state.replace(request=jnp.full(2, REQ_MOVE, jnp.int32), turn=jnp.int32(1))
    return _tied_where(state, _cannot_progress(state))  # turn 1's endTurn checks it too


def step(state: BattleState, actions: jax.Array) -> BattleState:
    """One decision: ``actions`` int[2] (p1, p2); a side without a request is ignored. A
    finished battle is returned unchanged."""
    actions = jnp.asarray(actions, jnp.int32)
    moving = state.request[0] == REQ_MOVE
    new = branches.cond(moving, _move_turn, _switch_turn, state, actions,
                       result_shapes=state)
    return select(state.winner == NO_WINNER, new, state)


def replace_fainted(state: BattleState, actions: jax.Array) -> BattleState:
    """``step`` for a state whose only requests are replacements of fainted Pokémon (no side
    has a move request). Under ``vmap`` the ``lax.cond`` of ``step`` runs both kinds of turn,
    so a caller that knows the request is a replacement calls this, the switch turn alone."""
    new = _switch_turn(state, jnp.asarray(actions, jnp.int32))
    return select(state.winner == NO_WINNER, new, state)

