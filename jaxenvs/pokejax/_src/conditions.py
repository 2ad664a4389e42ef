"""Statuses and volatile conditions: Showdown's gen1 ``conditions.js`` and the clauses.

Each function acts on ``side``'s active Pokémon and draws from the battle's PRNG exactly where
Showdown does, only ``when`` asked:

* ``set_status`` (``pokemon.setStatus``): the ``SetStatus`` event sorts its two equal handlers,
  the Sleep Clause Mod and the Freeze Clause Mod, with one ``random(0, 2)``; either clause may
  then refuse (a foe may not put a second Pokémon of a side to sleep, or freeze a second one);
  sleep's ``onStart`` draws its length, ``random(1, 8)``; paralysis and a burn cut the modified
  Speed / Attack.
* ``before_move``: the ``BeforeMove`` handlers in Showdown's priority order, each stopping the
  move: freeze (12; never thaws by itself in Gen 1), sleep (10; the counter drops, and the turn
  is lost even on waking; both clear the last move), partially trapped (9), flinch (8),
  recharge (7; it ends),
  Disable (6; its counter drops and it ends at 0, otherwise it stops the disabled move),
  confusion (3; the counter drops, confusion ends at 0, otherwise ``randomChance(128, 256)``
  not to hit itself with a typeless 40-power physical hit, ``self_damage``), full paralysis
  (2; ``randomChance(63, 256)``); the self-hit and full paralysis also drop a charged two-turn
  move, a Thrash lock, Bide and a trapping lock (the self-hit ends Dig / Fly's invulnerability
  too); last (0), a trapping lock on a Pokémon no longer there ends (Bide's handler, also 0,
  is ``moves._bide``).
* ``self_damage`` (Gen 1's ``directDamage`` for confusion and a Jump Kick crash: behind a
  substitute, the foe's substitute takes it) and ``hit_substitute``.
* ``after_move_self`` (``AfterMoveSelf``): the Toxic counter (``residualdmg``, 100) counts a
  burn or (bad) poison; a sleeper whose counter ran out wakes (3); burn and (bad) poison hurt
  (2), times the Toxic counter when there is one; Leech Seed (1) counts the Toxic counter again
  and drains max(maxhp / 16, 1) times it into the foe. Bad poison (``tox``, from Toxic) starts
  the counter at 0 and becomes plain poison when the Pokémon switches in; the counter stays
  through Rest until the Pokémon leaves the field.
* ``add_confusion`` (its ``onStart``: ``random(2, 6)`` moves), ``add_flinch`` (its ``onStart``
  cancels a pending recharge; it lasts to the end of the turn).
* Partial trapping (``partialtrappinglock`` on the user, ``partiallytrapped`` on the target,
  ``fakepartiallytrapped`` on both after the last turn): ``residual`` (the Residual event counts
  every volatile with a duration down, shuffling tied handlers: one draw per extra handler of
  equal holder speed), ``end_turn_traps`` (Gen 1 ``endTurn``: a lock, trap or fake trap whose
  counterpart is gone ends), ``disable_move_event`` (the turn's ``DisableMove`` handlers tied on
  priority are shuffled) and ``maybe_locked`` (what the requests offer).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxenvs._src import branches
from jaxenvs.pokejax._src.state import (STATUSES, VOLATILES, BattleState, add_at, chance, draw,
                                         get, put)
from jaxenvs.pokejax.data import gen1

BRN, FRZ, PAR, PSN, SLP, TOX = (STATUSES.index(s)
                                for s in ("brn", "frz", "par", "psn", "slp", "tox"))
(REFLECT, LIGHT_SCREEN, FOCUS_ENERGY, MUST_RECHARGE, CONFUSION, FLINCH, SUBSTITUTE,
 TWO_TURN_MOVE, DEFENSE_CURL, MINIMIZE, MIST, RESIDUAL_DMG, LEECH_SEED, DISABLE,
 RAGE, LOCKED_MOVE, INVULNERABILITY, BIDE, TRAP_LOCK, TRAPPED,
 FAKE_TRAPPED) = (1 << VOLATILES.index(v) for v in VOLATILES)
#: The volatiles with a ``duration`` (counted down by the Residual event).
_TIMED = (FLINCH, TRAP_LOCK, TRAPPED, FAKE_TRAPPED)
#: The volatiles whose ``BeforeMove`` handlers act (with a status: sleep, freeze, paralysis).
BEFORE_MOVE_VOLATILES = TRAPPED | FLINCH | MUST_RECHARGE | DISABLE | CONFUSION | TRAP_LOCK
#: Showdown's gen1 type chart makes Poison types immune to poison (``psn: 3``), no other type
#: to any status.
_POISON = gen1().type_index["Poison"]
#: Gen 1's full-paralysis chance, ``randomChance(63, 256)`` before each move.
FULL_PARALYSIS = 63
#: Sleep lasts ``random(1, 8)`` moves; confusion ``random(2, 6)``.
SLEEP_TURNS, CONFUSION_TURNS = (1, 8), (2, 6)


def active_volatiles(state: BattleState, side: jax.Array) -> jax.Array:
    """The volatile bits of ``side``'s active Pokémon."""
    return get(state.volatiles, (side, get(state.party, (side, 0))))


def has(state: BattleState, side: jax.Array, volatile: int) -> jax.Array:
    """``side``'s active Pokémon has the ``volatile`` bit."""
    return (active_volatiles(state, side) & jnp.uint32(volatile)) > 0


def add_volatile(state: BattleState, side: jax.Array, volatile: int, when: jax.Array
                 ) -> BattleState:
    t = get(state.party, (side, 0))
    v = get(state.volatiles, (side, t))
    return state.replace(volatiles=put(state.volatiles, (side, t), v | jnp.uint32(volatile),
                                        when))


def remove_volatile(state: BattleState, side: jax.Array, volatile: int, when: jax.Array
                    ) -> BattleState:
    t = get(state.party, (side, 0))
    v = get(state.volatiles, (side, t))
    return state.replace(volatiles=put(state.volatiles, (side, t), v & ~jnp.uint32(volatile),
                                        when))


def status_drops(stats: jax.Array, status: jax.Array, when: jax.Array = True) -> jax.Array:
    """int[5] modified stats after the paralysis (Speed / 4) or burn (Attack / 2) drop."""
    par = when & (status == PAR)
    brn = when & (status == BRN)
    return stats.at[4].set(jnp.where(par, jnp.maximum(stats[4] // 4, 1), stats[4])).at[0].set(
        jnp.where(brn, jnp.maximum(stats[0] // 2, 1), stats[0]))


def reapply_status_drops(state: BattleState, side: jax.Array, when: jax.Array) -> BattleState:
    """``side``'s active Pokémon's status drop on its modified stats: paralysis quarters Speed,
    a burn halves Attack (at least 1). Gen 1 applies it when the status is set, and again (a
    cartridge bug) to the foe's active Pokémon whenever a move changes a stat stage."""
    t = state.party[side, 0]
    return state.replace(mod_stats=put(state.mod_stats, (side, t),
        status_drops(state.mod_stats[side, t], state.status[side, t], when)))


def set_status(state: BattleState, side: jax.Array, status: jax.Array, when: jax.Array,
               by_self: jax.Array = False, override: jax.Array = False
               ) -> tuple[BattleState, jax.Array]:
    """``pokemon.setStatus`` on ``side``'s active Pokémon: only a standing one, without a
    status (or, with ``override``, without this one) and not immune (Poison types to poison);
    the clauses apply to a status from the foe (not ``by_self``). Sleep draws its length. Then
    the paralysis / burn drop. Returns (state, the status was set)."""
    t = state.party[side, 0]
    current = state.status[side, t]
    immune = ((status == PSN) | (status == TOX)) & jnp.any(state.types[side, t] == _POISON)
    free = jnp.where(override, current != status, current == 0)
    ok = when & (status > 0) & (state.hp[side, t] > 0) & free & ~immune
    state, _ = draw(state, ok, 0, 2)
    team = state.status[side]
    standing = ~state.fainted[side]
    asleep_by_foe = (team == SLP) & (state.hp[side] > 0) & ~state.status_self[side]
    clause = ~by_self & (((status == SLP) & jnp.any(asleep_by_foe))
                         | ((status == FRZ) & jnp.any((team == FRZ) & standing)))
    ok = ok & ~clause
    state, turns = draw(state, ok & (status == SLP), *SLEEP_TURNS)
    state = state.replace(
        status=put(state.status, (side, t), status, ok),
        status_turns=put(state.status_turns, (side, t), jnp.where(status == SLP, turns, 0), ok),
        status_self=put(state.status_self, (side, t), by_self, ok))
    # tox's onStart: the residualdmg volatile (added if missing), its counter reset
    toxic = ok & (status == TOX)
    state = add_volatile(state, side, RESIDUAL_DMG, toxic)
    state = state.replace(toxic_counter=put(state.toxic_counter, (side, t), 0, toxic))
    return reapply_status_drops(state, side, ok), ok


def cure_status(state: BattleState, side: jax.Array, when: jax.Array) -> BattleState:
    """``pokemon.cureStatus`` (no event, no draw)."""
    t = state.party[side, 0]
    when = when & (state.hp[side, t] > 0)
    return state.replace(status=put(state.status, (side, t), 0, when),
                         status_turns=put(state.status_turns, (side, t), 0, when),
                         status_self=put(state.status_self, (side, t), False, when))


def add_confusion(state: BattleState, side: jax.Array, when: jax.Array) -> BattleState:
    """``addVolatile('confusion')``: a standing Pokémon not already confused becomes confused
    for ``random(2, 6)`` moves."""
    t = state.party[side, 0]
    ok = when & (state.hp[side, t] > 0) & ~has(state, side, CONFUSION)
    state, turns = draw(state, ok, *CONFUSION_TURNS)
    state = add_volatile(state, side, CONFUSION, ok)
    return state.replace(confusion_turns=put(state.confusion_turns, (side, t), turns, ok))


def end_lock(state: BattleState, side: jax.Array, when: jax.Array) -> BattleState:
    """``removeVolatile('lockedmove')``: the Thrash / Petal Dance lock ends."""
    t = state.party[side, 0]
    state = remove_volatile(state, side, LOCKED_MOVE, when)
    return state.replace(lock_turns=put(state.lock_turns, (side, t), 0, when),
                         lock_accuracy=put(state.lock_accuracy, (side, t), 0, when))


def end_bide(state: BattleState, side: jax.Array, when: jax.Array) -> BattleState:
    """``removeVolatile('bide')``."""
    t = state.party[side, 0]
    state = remove_volatile(state, side, BIDE, when)
    return state.replace(bide_damage=put(state.bide_damage, (side, t), 0, when),
                         bide_turns=put(state.bide_turns, (side, t), 0, when))


def end_trap_lock(state: BattleState, side: jax.Array, when: jax.Array) -> BattleState:
    """``partialtrappinglock`` ends (removed or deleted: it has no End handler)."""
    t = state.party[side, 0]
    when = when & has(state, side, TRAP_LOCK)
    state = remove_volatile(state, side, TRAP_LOCK, when)
    return state.replace(trap_turns=put(state.trap_turns, (side, t), 0, when),
                         trap_total=put(state.trap_total, (side, t), 0, when),
                         trap_damage=put(state.trap_damage, (side, t), 0, when),
                         trap_target=put(state.trap_target, (side, t), 0, when))


def end_trapped(state: BattleState, side: jax.Array, when: jax.Array) -> BattleState:
    """``partiallytrapped`` ends."""
    t = state.party[side, 0]
    when = when & has(state, side, TRAPPED)
    state = remove_volatile(state, side, TRAPPED, when)
    return state.replace(
        trapped_turns=put(state.trapped_turns, (side, t), 0, when),
        trapped_by=put(state.trapped_by, (side, t), 0, when),
        trapped_maybe_locked=put(state.trapped_maybe_locked, (side, t), False, when))


def end_fake_trapped(state: BattleState, side: jax.Array, when: jax.Array) -> BattleState:
    """``fakepartiallytrapped`` ends."""
    t = state.party[side, 0]
    state = remove_volatile(state, side, FAKE_TRAPPED, when)
    return state.replace(fake_trap_turns=put(state.fake_trap_turns, (side, t), 0, when))


def add_trapped(state: BattleState, side: jax.Array, when: jax.Array) -> BattleState:
    """``addVolatile('partiallytrapped')`` on ``side``'s standing active Pokémon by the foe's:
    2 residuals (its onRestart only resets that, keeping the source and ``maybeLocked``)."""
    t = state.party[side, 0]
    when = when & (state.hp[side, t] > 0)
    new = when & ~has(state, side, TRAPPED)
    state = add_volatile(state, side, TRAPPED, when)
    return state.replace(
        trapped_turns=put(state.trapped_turns, (side, t), 2, when),
        trapped_by=put(state.trapped_by, (side, t), state.party[1 - side, 0], new),
        trapped_maybe_locked=put(state.trapped_maybe_locked, (side, t), False, new))


def add_fake_trapped(state: BattleState, side: jax.Array, when: jax.Array) -> BattleState:
    """``addVolatile('fakepartiallytrapped')`` (2 residuals; nothing if already there)."""
    t = state.party[side, 0]
    new = when & (state.hp[side, t] > 0) & ~has(state, side, FAKE_TRAPPED)
    state = add_volatile(state, side, FAKE_TRAPPED, new)
    return state.replace(fake_trap_turns=put(state.fake_trap_turns, (side, t), 2, new))


def maybe_locked(state: BattleState) -> jax.Array:
    """bool[2]: ``pokemon.maybeLocked`` after the turn's ``DisableMove`` handlers, in their
    order: partially trapped with ``maybeLocked`` and fake-trapped (priority 1) set it, sleep
    and freeze (priority 0, a status) clear it, then a trapping lock from its third turn sets it
    and Bide clears it."""
    sides = jnp.arange(2)
    t = state.party[:, 0]
    status = state.status[sides, t]
    m = (has(state, sides, TRAPPED) & state.trapped_maybe_locked[sides, t]) | has(
        state, sides, FAKE_TRAPPED)
    m = m & (status != SLP) & (status != FRZ)
    m = m | (has(state, sides, TRAP_LOCK)
             & (state.trap_total[sides, t] - state.trap_turns[sides, t] > 1))
    return m & ~has(state, sides, BIDE)


def _shuffle_draws(state: BattleState, n: jax.Array, most: int) -> BattleState:
    """The draws of ``prng.shuffle`` over ``n`` tied handlers (``n - 1``; at most ``most``)."""
    for k in range(most):
        state, _ = draw(state, k < n - 1, 0, 2)
    return state


def _count(state: BattleState, side: int, volatiles: int) -> jax.Array:
    v = active_volatiles(state, side) & jnp.uint32(volatiles)
    return jax.lax.population_count(v).astype(jnp.int32)


def disable_move_event(state: BattleState) -> BattleState:
    """The draws of each active Pokémon's ``DisableMove`` event at the start of a turn: its
    handlers tied on priority are shuffled (partially and fake-trapped at 1; a trapping lock,
    Disable and Bide at 0)."""
    for side in range(2):
        state = _shuffle_draws(state, _count(state, side, TRAPPED | FAKE_TRAPPED), 1)
        state = _shuffle_draws(state, _count(state, side, TRAP_LOCK | DISABLE | BIDE), 2)
    return state


def residual(state: BattleState) -> BattleState:
    """The Residual event (after ``updateSpeed``): the handlers of the volatiles with a
    duration (flinch, the trapping ones) are sorted by their holder's cached speed, tied ones
    shuffled; each counts its duration down and ends at 0."""
    sides = jnp.arange(2)
    t = state.party[:, 0]
    n0, n1 = _count(state, 0, sum(_TIMED)), _count(state, 1, sum(_TIMED))
    tied = state.speed[0, t[0]] == state.speed[1, t[1]]
    state = _shuffle_draws(state, jnp.where(tied, n0 + n1, n0), 7)
    state = _shuffle_draws(state, jnp.where(tied, 0, n1), 3)
    for side in range(2):
        state = remove_volatile(state, side, FLINCH, True)
    lock = state.trap_turns[sides, t] - 1
    trapped = state.trapped_turns[sides, t] - 1
    fake = state.fake_trap_turns[sides, t] - 1
    state = state.replace(
        trap_turns=state.trap_turns.at[sides, t].set(jnp.maximum(lock, 0)),
        trapped_turns=state.trapped_turns.at[sides, t].set(jnp.maximum(trapped, 0)),
        fake_trap_turns=state.fake_trap_turns.at[sides, t].set(jnp.maximum(fake, 0)))
    for side in range(2):
        state = end_trap_lock(state, side, lock[side] == 0)
        state = end_trapped(state, side, trapped[side] == 0)
        state = end_fake_trapped(state, side, has(state, side, FAKE_TRAPPED) & (fake[side] == 0))
    return state


def end_turn_traps(state: BattleState) -> BattleState:
    """Gen 1 ``endTurn``, for each active Pokémon in turn: a trapping lock whose target fell or
    is no longer trapped ends, so does a partial trap whose source no longer holds its lock (or
    fell), and a fake trap whose counterpart has none. Without any of the three volatiles on
    the field, nothing ends."""
    trapping = TRAP_LOCK | TRAPPED | FAKE_TRAPPED
    return branches.when(has(state, 0, trapping) | has(state, 1, trapping), _end_traps, state)


def _end_traps(state: BattleState) -> BattleState:
    """``end_turn_traps`` where a trap is on the field."""
    for side in range(2):
        foe = 1 - side
        f = state.party[foe, 0]
        t = state.party[side, 0]
        foe_up = state.hp[foe, f] > 0
        state = end_trap_lock(state, side, ~(foe_up & (state.trap_target[side, t] == f)
                                             & has(state, foe, TRAPPED)))
        state = end_trapped(state, side, ~(foe_up & (state.trapped_by[side, t] == f)
                                           & has(state, foe, TRAP_LOCK)))
        state = end_fake_trapped(state, side, has(state, side, FAKE_TRAPPED)
                                 & ~(foe_up & has(state, foe, FAKE_TRAPPED)))
    return state


def add_flinch(state: BattleState, side: jax.Array, when: jax.Array) -> BattleState:
    """``addVolatile('flinch')``: its ``onStart`` removes a pending recharge."""
    t = state.party[side, 0]
    ok = when & (state.hp[side, t] > 0) & ~has(state, side, FLINCH)
    state = remove_volatile(state, side, MUST_RECHARGE, ok)
    return add_volatile(state, side, FLINCH, ok)


def confusion_damage(level: jax.Array, attack: jax.Array, defense: jax.Array) -> jax.Array:
    """The confusion self-hit: ``floor(floor((floor(2L / 5) + 2) * atk * 40 / def) / 50) + 2``
    with the modified Attack and Defense (no crit, roll, STAB or type)."""
    return ((2 * level // 5 + 2) * attack * 40 // defense) // 50 + 2


def before_move(state: BattleState, side: jax.Array) -> tuple[BattleState, jax.Array, jax.Array]:
    """The ``BeforeMove`` event of ``side``'s active Pokémon. Returns (state, the move is
    cancelled, the Pokémon fainted hitting itself in confusion). Its handlers act only on a
    Pokémon with a status or one of ``BEFORE_MOVE_VOLATILES``; for any other the event draws
    nothing and changes nothing."""
    t = state.party[side, 0]
    acts = (state.status[side, t] != 0) | has(state, side, BEFORE_MOVE_VOLATILES)
    return branches.cond(acts, _before_move_handlers,
                         lambda state, side: (state, jnp.bool_(False), jnp.bool_(False)),
                         state, side, result_shapes=(state, jnp.bool_(False), jnp.bool_(False)))


def _before_move_handlers(state: BattleState, side: jax.Array
                          ) -> tuple[BattleState, jax.Array, jax.Array]:
    """``before_move``'s handlers, in their order: freeze and sleep, the partial trap, flinch,
    recharge, Disable, confusion (its self-hit), full paralysis, the trapping lock's check."""
    t = state.party[side, 0]
    status = state.status[side, t]
    frozen = status == FRZ
    asleep = ~frozen & (status == SLP)
    state = state.replace(status_turns=put(state.status_turns, (side, t),
                                            state.status_turns[side, t] - 1, asleep),
                          last_move=put(state.last_move, (side, t), 0, frozen | asleep))
    cant = frozen | asleep
    # partially trapped (9): the move is lost
    cant = cant | has(state, side, TRAPPED)
    flinched = ~cant & has(state, side, FLINCH)
    cant = cant | flinched
    recharge = ~cant & has(state, side, MUST_RECHARGE)
    state = remove_volatile(state, side, MUST_RECHARGE, recharge)
    cant = cant | recharge

    # Disable (priority 6): its counter runs down, and ends it at 0; otherwise the disabled
    # move is cancelled (with a charged two-turn move)
    disabled = ~cant & has(state, side, DISABLE)
    left = state.disable_turns[side, t] - disabled
    ends = disabled & (left == 0)
    state = state.replace(
        disable_turns=put(state.disable_turns, (side, t), left, disabled),
        disable_move=put(state.disable_move, (side, t), 0, ends),
        disable_slot=put(state.disable_slot, (side, t), 0, ends))
    state = remove_volatile(state, side, DISABLE, ends)
    blocked = disabled & ~ends & (state.last_selected[side] == state.disable_move[side, t])
    state = remove_volatile(state, side, TWO_TURN_MOVE, blocked)
    cant = cant | blocked

    confused = ~cant & has(state, side, CONFUSION)
    turns = state.confusion_turns[side, t] - confused
    ends = confused & (turns == 0)
    state = state.replace(confusion_turns=put(state.confusion_turns, (side, t), turns,
                                               confused))
    state = remove_volatile(state, side, CONFUSION, ends)
    state, keeps_its_head = chance(state, confused & ~ends, 128, 256)
    hurts = confused & ~ends & ~keeps_its_head
    state = self_damage(state, side, confusion_damage(
        state.level[side, t], state.mod_stats[side, t, 0], state.mod_stats[side, t, 1]), hurts)
    cant = cant | hurts

    state, paralyzed = chance(state, ~cant & (status == PAR), FULL_PARALYSIS, 256)
    # a confusion self-hit or full paralysis also ends a charged two-turn move and a Thrash /
    # Petal Dance lock; only the self-hit ends Dig / Fly's invulnerability
    state = remove_volatile(state, side, TWO_TURN_MOVE, hurts | paralyzed)
    state = remove_volatile(state, side, INVULNERABILITY, hurts)
    state = end_lock(state, side, hurts | paralyzed)
    state = end_bide(state, side, hurts | paralyzed)
    state = end_trap_lock(state, side, hurts | paralyzed)
    # partialtrappinglock (0): it ends if the foe is no longer the Pokémon it holds
    state = end_trap_lock(state, side, ~cant & ~paralyzed & has(state, side, TRAP_LOCK)
                          & (state.party[1 - side, 0] != state.trap_target[side, t]))
    return state, cant | paralyzed, hurts & (state.hp[side, t] == 0)


def self_damage(state: BattleState, side: jax.Array, damage: jax.Array, when: jax.Array
                ) -> BattleState:
    """Gen 1's ``directDamage`` for a confusion self-hit or a Jump Kick crash: it sets the
    last damage; behind its own substitute the Pokémon takes nothing, and the foe's substitute
    (if any) takes the damage instead."""
    t = state.party[side, 0]
    foe = 1 - side
    behind_sub = has(state, side, SUBSTITUTE)
    state = hit_substitute(state, foe, damage, when & behind_sub & has(state, foe, SUBSTITUTE))[0]
    hp = state.hp[side, t]
    return state.replace(hp=put(state.hp, (side, t), hp - jnp.minimum(damage, hp),
                                 when & ~behind_sub),
                         last_damage=jnp.where(when, damage, state.last_damage))


def hit_substitute(state: BattleState, side: jax.Array, damage: jax.Array, when: jax.Array
                   ) -> tuple[BattleState, jax.Array]:
    """``side``'s active Pokémon's substitute takes ``damage`` (down to 0, where it breaks).
    Returns (state, it broke)."""
    t = state.party[side, 0]
    left = state.sub_hp[side, t] - jnp.minimum(damage, state.sub_hp[side, t])
    broke = when & (left <= 0)
    state = state.replace(sub_hp=put(state.sub_hp, (side, t), left, when))
    return remove_volatile(state, side, SUBSTITUTE, broke), broke


def after_move_self(state: BattleState, side: jax.Array, when: jax.Array
                    ) -> tuple[BattleState, jax.Array]:
    """``AfterMoveSelf`` of ``side``'s active Pokémon, by handler priority: the Toxic counter
    (``residualdmg``, 100) counts a burn or (bad) poison; a sleeper whose counter ran out wakes
    (3); a burn or poison hurts (2); Leech Seed drains (1). Returns (state, it fainted)."""
    t = state.party[side, 0]
    # each handler needs a status or Leech Seed: for any other Pokémon nothing runs
    acts = when & ((state.status[side, t] != 0) | has(state, side, LEECH_SEED))
    state = branches.when(acts, _after_move_self_handlers, state, side)
    return state, state.hp[side, t] == 0


def _after_move_self_handlers(state: BattleState, side: jax.Array) -> BattleState:
    """``after_move_self``'s handlers, in their order."""
    t = state.party[side, 0]
    status = state.status[side, t]
    counts = has(state, side, RESIDUAL_DMG) & ((status == BRN) | (status == PSN)
                                               | (status == TOX))
    state = state.replace(toxic_counter=add_at(state.toxic_counter, (side, t), counts))
    wakes = (status == SLP) & (state.status_turns[side, t] <= 0)
    state = cure_status(state, side, wakes)
    state, _ = residual_damage(state, side, True)
    return _leech_seed(state, side, True)


def residual_damage(state: BattleState, side: jax.Array, when: jax.Array
                    ) -> tuple[BattleState, jax.Array]:
    """A burn's or (bad) poison's damage to ``side``'s active Pokémon, max(maxhp / 16, 1)
    times the Toxic counter if it has one (Gen 1: after each of its moves, and when it switches
    in). Returns (state, it fainted)."""
    t = state.party[side, 0]
    hp = state.hp[side, t]
    status = state.status[side, t]
    hurt = when & ((status == BRN) | (status == PSN) | (status == TOX)) & (hp > 0)
    damage = jnp.maximum(state.maxhp[side, t] // 16, 1) * _toxic_factor(state, side)
    damage = jnp.where(hurt, jnp.minimum(damage, hp), 0)
    state = state.replace(hp=add_at(state.hp, (side, t), -damage))
    return state, hurt & (damage == hp)


def _toxic_factor(state: BattleState, side: jax.Array) -> jax.Array:
    """The Toxic counter of ``side``'s active Pokémon if it has the volatile, else 1."""
    t = state.party[side, 0]
    return jnp.where(has(state, side, RESIDUAL_DMG), state.toxic_counter[side, t], 1)


def _leech_seed(state: BattleState, side: jax.Array, when: jax.Array) -> BattleState:
    """Leech Seed's ``onAfterMoveSelf`` on a seeded ``side``: unless the foe's active Pokémon
    (the leecher) has fainted, the Toxic counter (if any) counts once more, the seeded Pokémon
    loses max(maxhp / 16, 1) times it (capped at its HP, which may already be 0), and the
    leecher heals the uncapped amount."""
    t = state.party[side, 0]
    foe = 1 - side
    f = state.party[foe, 0]
    seeded = when & has(state, side, LEECH_SEED) & (state.hp[foe, f] > 0)
    state = state.replace(toxic_counter=add_at(state.toxic_counter, (side, t),
        seeded & has(state, side, RESIDUAL_DMG)))
    leech = jnp.maximum(state.maxhp[side, t] // 16, 1) * _toxic_factor(state, side)
    hp = state.hp[side, t]
    healed = jnp.minimum(state.hp[foe, f] + leech, state.maxhp[foe, f])
    drained = put(state.hp, (side, t), hp - jnp.minimum(leech, hp), seeded)
    return state.replace(hp=put(drained, (foe, f), healed, seeded))
