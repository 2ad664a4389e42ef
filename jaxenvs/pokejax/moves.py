"""Using a move: Showdown's Gen 1 ``runMove`` -> ``useMove`` -> ``tryMoveHit`` -> ``moveHit``.

``use_move(state, side, slot)`` runs the active Pokémon of ``side``'s move in ``slot`` against
the foe's active Pokémon (or itself), in Showdown's order: the ``BeforeMove`` checks
(recharging, full paralysis), PP deduction from ``side.lastSelectedMoveSlot``, the immunity
check, the Gen 1 accuracy roll (0-255 scale with the 1/256 miss), the damage (``damage.py``:
crit roll, formula, random factor; or fixed damage), drain and recoil, Self-Destruct's faint,
healing, volatiles, stat stages (``boost``, with Gen 1's stat recomputation, the 999 / 1 limits
and the re-applied status drops), a status as the move's effect (``set_status``), a chance
secondary (stat drop or status), Hyper Beam's recharge, and the burn / poison damage after the
move (``residual_damage``).

Supported so far: ``SUPPORTED`` (their effects are data in the ``MOVE_*`` tables). Not yet:
sleep, freeze, Toxic, confusion, flinch, multi-hit, two-turn, trapping, OHKO and the
special-case moves (Counter, Substitute, Rest, Transform, Metronome, ...);
``check_supported`` names them (the env and tests only build teams of supported moves).
"""

from __future__ import annotations

import math
from typing import Iterable

import jax
import jax.numpy as jnp
import numpy as np

from jaxenvs.pokejax import damage as dmg
from jaxenvs.pokejax.data import gen1
from jaxenvs.pokejax.state import BOOSTS, STATUSES, VOLATILES, BattleState, chance, draw

#: Showdown move ids whose whole behaviour the engine reproduces. Their effects are data
#: (the tables below, read from ``gen1.json``): damage (plain, fixed, level-based, half HP),
#: recoil and drain, stat stages raised or lowered as the move's effect or as a chance
#: secondary.
SUPPORTED: frozenset[str] = frozenset((
    # damage only
    "pound", "karatechop", "megapunch", "scratch", "visegrip", "cut", "gust", "wingattack",
    "slam", "vinewhip", "megakick", "hornattack", "tackle", "watergun", "hydropump", "surf",
    "peck", "drillpeck", "strength", "razorleaf", "rockthrow", "earthquake", "quickattack",
    "eggbomb", "waterfall", "swift", "dizzypunch", "crabhammer", "rockslide", "triattack",
    "slash",
    # fixed damage
    "sonicboom", "dragonrage", "seismictoss", "nightshade", "superfang",
    # recoil, drain
    "struggle", "takedown", "doubleedge", "submission", "absorb", "megadrain", "leechlife",
    # stat stages
    "swordsdance", "agility", "amnesia", "growth", "meditate", "sharpen", "harden", "withdraw",
    "barrier", "acidarmor", "doubleteam", "growl", "leer", "tailwhip", "stringshot", "screech",
    "sandattack", "smokescreen", "kinesis", "flash",
    # damage with a chance to lower a stat
    "acid", "bubblebeam", "aurorabeam", "constrict", "bubble", "psychic",
    # paralysis, as the move's effect or a chance secondary
    "thunderwave", "stunspore", "glare", "bodyslam", "thundershock", "thunderbolt",
    "thunderpunch", "lick",
    # burn and poison (chance secondaries and poison as an effect)
    "ember", "flamethrower", "firepunch", "fireblast", "poisonsting", "sludge", "smog",
    "poisonpowder", "poisongas",
    # the user faints; healing; screens and Focus Energy (volatiles)
    "selfdestruct", "explosion", "recover", "softboiled", "reflect", "lightscreen",
    "focusenergy",
    # a recharge turn after a hit that leaves the target standing
    "hyperbeam"))
#: Struggle's move id: used when the active Pokémon has no move with PP left.
STRUGGLE = gen1().move_index["struggle"]
#: ``MOVE_FIXED`` codes besides a fixed amount.
FIXED_LEVEL, FIXED_HALF_HP = -1, -2
_D = gen1()


def _move_tables() -> dict[str, np.ndarray]:
    """Per-move effect data for the supported moves (zero elsewhere)."""
    n = len(_D.move_names)
    t = {"fixed": np.zeros(n, np.int32), "ignore_immunity": np.zeros(n, bool),
         "self_target": np.zeros(n, bool), "boosts": np.zeros((n, 7), np.int32),
         "secondary_chance": np.zeros(n, np.int32),
         "secondary_boosts": np.zeros((n, 7), np.int32),
         "recoil": np.zeros((n, 2), np.int32), "drain": np.zeros((n, 2), np.int32),
         "status": np.zeros(n, np.int32), "secondary_status": np.zeros(n, np.int32),
         "selfdestruct": np.zeros(n, bool), "heal_half": np.zeros(n, bool),
         "volatile": np.zeros(n, np.uint32)}
    t["recoil"][:, 1] = t["drain"][:, 1] = 1
    for name in SUPPORTED:
        m = _D.move(name)
        k = m["num"]
        damage = m.get("damage")
        t["fixed"][k] = (FIXED_LEVEL if damage == "level" else damage if damage else
                         FIXED_HALF_HP if name == "superfang" else 0)
        # useMoveInner: an unset ignoreImmunity becomes "is a Status move"
        ignore = m.get("ignoreImmunity")
        t["ignore_immunity"][k] = ignore is True or (ignore is None and
                                                     m["category"] == "Status")
        if m.get("status"):
            t["status"][k] = STATUSES.index(m["status"])
        t["selfdestruct"][k] = bool(m.get("selfdestruct"))
        t["heal_half"][k] = name in ("recover", "softboiled")
        if m.get("volatileStatus") in VOLATILES:
            t["volatile"][k] = 1 << VOLATILES.index(m["volatileStatus"])
        t["self_target"][k] = m["target"] == "self"
        for stat, v in (m.get("boosts") or {}).items():
            t["boosts"][k, BOOSTS.index(stat)] = v
        for sec in m.get("secondaries") or []:
            # Showdown's gen1 moveHit: ceil(chance * 256 / 100) out of 256
            t["secondary_chance"][k] = -(-sec["chance"] * 256 // 100)
            for stat, v in (sec.get("boosts") or {}).items():
                t["secondary_boosts"][k, BOOSTS.index(stat)] = v
            if sec.get("status"):
                t["secondary_status"][k] = STATUSES.index(sec["status"])
        for key in ("recoil", "drain"):
            if m.get(key):
                t[key][k] = m[key]
    return t


_T = _move_tables()
MOVE_TYPE = jnp.asarray(_D.move_type)
MOVE_POWER = jnp.asarray(_D.move_base_power)
MOVE_ACCURACY = jnp.asarray(_D.move_accuracy)
"""Percent; 0 = never misses (no roll)."""
MOVE_PRIORITY = jnp.asarray(_D.move_priority)
MOVE_CRIT_RATIO = jnp.asarray(_D.move_crit_ratio)
MOVE_PHYSICAL = jnp.asarray(_D.move_category == 0)
MOVE_FIXED = jnp.asarray(_T["fixed"])
"""Fixed damage: an amount, ``FIXED_LEVEL``, ``FIXED_HALF_HP`` or 0 (the formula)."""
MOVE_IGNORE_IMMUNITY = jnp.asarray(_T["ignore_immunity"])
MOVE_SELF_TARGET = jnp.asarray(_T["self_target"])
MOVE_BOOSTS = jnp.asarray(_T["boosts"])
"""int32[moves, 7]: stages the move itself changes (on itself or its target)."""
MOVE_SECONDARY_CHANCE = jnp.asarray(_T["secondary_chance"])
"""The secondary's ``randomChance(x, 256)`` numerator (0: no secondary)."""
MOVE_SECONDARY_BOOSTS = jnp.asarray(_T["secondary_boosts"])
MOVE_RECOIL = jnp.asarray(_T["recoil"])
"""(numerator, denominator) of the damage dealt taken as recoil ((0, 1): none)."""
MOVE_DRAIN = jnp.asarray(_T["drain"])
MOVE_STATUS = jnp.asarray(_T["status"])
"""Status the move inflicts as its effect (``STATUSES`` index; 0: none)."""
MOVE_SECONDARY_STATUS = jnp.asarray(_T["secondary_status"])
MOVE_SELFDESTRUCT = jnp.asarray(_T["selfdestruct"])
"""The user faints after the move, hit or miss (and the target's Defense counts half)."""
MOVE_HEAL_HALF = jnp.asarray(_T["heal_half"])
"""Recover / Soft-Boiled: half the max HP, with Gen 1's failure when max - hp is 255 or 511."""
MOVE_VOLATILE = jnp.asarray(_T["volatile"])
"""uint32: the ``VOLATILES`` bit the move gives its user."""
_REFLECT, _LIGHT_SCREEN, _FOCUS_ENERGY, MUST_RECHARGE = (1 << VOLATILES.index(v)
                                                        for v in VOLATILES)
MOVE_RECHARGE = jnp.asarray(np.array([name == "hyperbeam" for name in _D.move_names]))
PAR, BRN, PSN, FRZ = (STATUSES.index(s) for s in ("par", "brn", "psn", "frz"))
#: Showdown's gen1 type chart makes Poison types immune to poison (``psn: 3``), no other type
#: to any status.
_POISON = _D.type_index["Poison"]
#: Gen 1's full-paralysis chance, ``randomChance(63, 256)`` before each move.
FULL_PARALYSIS = 63

#: Gen 1's stage table for accuracy and evasion, in percent, index = stage + 6.
_BOOST_TABLE = (25, 28, 33, 40, 50, 66, 100, 150, 200, 250, 300, 350, 400)
#: ``ACCURACY_BOOST[acc, stage + 6]`` = JavaScript's ``Math.floor(acc * (table / 100))`` (the
#: double product, which integer arithmetic would not always reproduce).
ACCURACY_BOOST = jnp.asarray(np.array(
    [[math.floor(a * (t / 100)) for t in _BOOST_TABLE] for a in range(255 * 4 + 1)], np.int32))
#: ``STAT_STAGE[stat, stage + 6]``: Gen 1 ``modifyStat`` of a stored stat at a stage,
#: ``max(floor(stat * multiplier), 1)`` with Showdown's double multipliers.
_STAGE_MULT = [p / 100 for p in (25, 28, 33, 40, 50, 66)] + [1, 1.5, 2, 2.5, 3, 3.5, 4]
STAT_STAGE = jnp.asarray(np.array(
    [[max(math.floor(s * m), 1) for m in _STAGE_MULT] for s in range(1000)], np.int32))
#: Showdown's cap of a raised stat.
MAX_STAT = 999


def check_supported(move_ids: Iterable[str]) -> None:
    """Raises ``ValueError`` naming the moves the engine does not reproduce yet."""
    missing = sorted({m for m in move_ids if m and m not in SUPPORTED})
    if missing:
        raise ValueError(f"moves not supported by the engine yet: {', '.join(missing)}")


def accuracy(move_accuracy: jax.Array, acc_stage: jax.Array, eva_stage: jax.Array
             ) -> jax.Array:
    """The numerator of the hit roll ``randomChance(acc, 256)`` for a move with a numeric
    accuracy (percent): scaled to 255, times the user's accuracy and the target's evasion
    stages, clamped to 1..255."""
    acc = move_accuracy * 255 // 100
    acc = ACCURACY_BOOST[acc, acc_stage + 6]
    acc = ACCURACY_BOOST[acc, -eva_stage + 6]
    return jnp.clip(acc, 1, 255)


def usable_moves(state: BattleState, side: jax.Array) -> jax.Array:
    """bool[..., 4]: the move slots of ``side``'s active Pokémon that can be chosen."""
    user = state.party[side, 0]
    return (state.moves[side, user] > 0) & (state.pp[side, user] > 0)


def recharging(state: BattleState, side: jax.Array) -> jax.Array:
    """``side``'s active Pokémon must recharge (its only choice is ``move 1``, Recharge)."""
    return (state.volatiles[side, state.party[side, 0]] & MUST_RECHARGE) > 0


def boost(state: BattleState, side: jax.Array, stages: jax.Array, when: jax.Array
          ) -> tuple[BattleState, jax.Array]:
    """``battle.boost`` of ``side``'s active Pokémon by ``stages`` int[7] (Gen 1 ``boostBy``):
    a stage already at +-6 does not move; a stat already at 999 (raised) or 1 (lowered) moves
    its stage and moves it back; otherwise the stage moves (clamped to +-6) and the modified
    stat is recomputed from the stored one (capped at 999 when raised). Accuracy and evasion
    only move their stage. Returns (state, some stage changed), both only ``when``."""
    t = state.party[side, 0]
    boosts = state.boosts[side, t]
    mod = state.mod_stats[side, t]
    stored = state.stats[side, t]
    changed = jnp.bool_(False)
    new_boosts, new_mod = [], []
    for i in range(len(BOOSTS)):
        delta, b = stages[i], boosts[i]
        blocked = (delta == 0) | ((delta > 0) & (b >= 6)) | ((delta < 0) & (b <= -6))
        moved = jnp.clip(b + delta, -6, 6)
        if i < 5:
            stuck = jnp.where(delta > 0, mod[i] == MAX_STAT, mod[i] == 1)
            moved = jnp.where(stuck, moved - jnp.sign(delta), moved)
            recomputed = STAT_STAGE[stored[i], moved + 6]
            recomputed = jnp.where(delta > 0, jnp.minimum(recomputed, MAX_STAT), recomputed)
            new_mod.append(jnp.where(blocked | stuck, mod[i], recomputed))
            changed = changed | ~(blocked | stuck)
        else:
            changed = changed | ~blocked
        new_boosts.append(jnp.where(blocked, b, moved))
    when = when & (state.hp[side, t] > 0)
    new = state.replace(
        boosts=state.boosts.at[side, t].set(jnp.where(when, jnp.stack(new_boosts), boosts)),
        mod_stats=state.mod_stats.at[side, t].set(jnp.where(when, jnp.stack(new_mod), mod)))
    return new, when & changed


def set_status(state: BattleState, side: jax.Array, status: jax.Array, when: jax.Array
               ) -> BattleState:
    """``pokemon.setStatus`` on ``side``'s active Pokémon, as a move's effect: only one
    without a status and not immune (Poison types to poison); the ``SetStatus`` event then
    sorts its two equal handlers (the Sleep and Freeze Clause Mods) with one ``random(0, 2)``.
    Then Gen 1's stat drops: paralysis quarters the modified Speed, a burn halves Attack."""
    t = state.party[side, 0]
    immune = (status == PSN) & jnp.any(state.types[side, t] == _POISON)
    ok = when & (status > 0) & (state.hp[side, t] > 0) & (state.status[side, t] == 0) & ~immune
    state, _ = draw(state, ok, 0, 2)
    state = state.replace(
        status=state.status.at[side, t].set(jnp.where(ok, status, state.status[side, t])))
    return reapply_status_drops(state, side, ok)


def reapply_status_drops(state: BattleState, side: jax.Array, when: jax.Array) -> BattleState:
    """``side``'s active Pokémon's status drop on its modified stats: paralysis quarters Speed,
    a burn halves Attack (at least 1). Gen 1 applies it when the status is set, and again (a
    cartridge bug) to the foe's active Pokémon whenever a move changes a stat stage."""
    t = state.party[side, 0]
    return state.replace(mod_stats=state.mod_stats.at[side, t].set(
        status_drops(state.mod_stats[side, t], state.status[side, t], when)))


def status_drops(stats: jax.Array, status: jax.Array, when: jax.Array = True) -> jax.Array:
    """int[5] modified stats after the paralysis (Speed / 4) or burn (Attack / 2) drop."""
    par = when & (status == PAR)
    brn = when & (status == BRN)
    return stats.at[4].set(jnp.where(par, jnp.maximum(stats[4] // 4, 1), stats[4])).at[0].set(
        jnp.where(brn, jnp.maximum(stats[0] // 2, 1), stats[0]))


def residual_damage(state: BattleState, side: jax.Array, when: jax.Array
                    ) -> tuple[BattleState, jax.Array]:
    """A burn's or poison's damage to ``side``'s active Pokémon, max(maxhp / 16, 1) (Gen 1:
    after each of its moves, and when it switches in). Returns (state, it fainted)."""
    t = state.party[side, 0]
    hp = state.hp[side, t]
    hurt = when & ((state.status[side, t] == BRN) | (state.status[side, t] == PSN)) & (hp > 0)
    damage = jnp.where(hurt, jnp.minimum(jnp.maximum(state.maxhp[side, t] // 16, 1), hp), 0)
    state = state.replace(hp=state.hp.at[side, t].add(-damage))
    return state, hurt & (damage == hp)


def use_move(state: BattleState, side: jax.Array, slot: jax.Array
             ) -> tuple[BattleState, jax.Array, jax.Array]:
    """``side``'s active Pokémon uses the move in ``slot`` (Struggle if no move has PP).
    Returns (state, the foe's active fainted, the user fainted)."""
    foe = 1 - side
    user = state.party[side, 0]
    target = state.party[foe, 0]
    struggle = ~jnp.any(usable_moves(state, side))
    move = jnp.where(struggle, STRUGGLE, state.moves[side, user, slot])
    self_target = MOVE_SELF_TARGET[move]

    # BeforeMove: recharging (which stops the event) or full paralysis ends the action
    # before PP is used
    recharge = recharging(state, side)
    state, fully_paralyzed = chance(state, ~recharge & (state.status[side, user] == PAR),
                                    FULL_PARALYSIS, 256)
    cant = recharge | fully_paralyzed
    before = state.replace(volatiles=state.volatiles.at[side, user].set(
        state.volatiles[side, user] & ~jnp.uint32(MUST_RECHARGE)))

    # runMove: PP from the last selected slot (6-bit wrap, as Showdown's trunc(pp, 6));
    # Struggle uses none
    last = state.last_slot[side]
    pp = state.pp[side, user, last]
    state = state.replace(pp=state.pp.at[side, user, last].set(
        jnp.where(struggle, pp, (pp - 1) % 64)))

    # tryMoveHit: immunity (no roll), then accuracy (+1 for moves on the user itself)
    target_types = state.types[foe, target]
    mtype = MOVE_TYPE[move]
    is_immune = ~MOVE_IGNORE_IMMUNITY[move] & dmg.immune(mtype, target_types)
    acc_pct = MOVE_ACCURACY[move]
    acc = accuracy(acc_pct, state.boosts[side, user, 5],
                   jnp.where(self_target, state.boosts[side, user, 6],
                             state.boosts[foe, target, 6]))
    acc = acc + self_target
    state, hit = chance(state, ~is_immune & (acc_pct > 0), acc, 256)
    hit = ~is_immune & (hit | (acc_pct == 0))

    # getDamage: fixed damage, or crit roll, formula and random factor
    fixed = MOVE_FIXED[move]
    damaging = MOVE_POWER[move] > 0
    formula = damaging & (fixed == 0)
    user_volatiles = state.volatiles[side, user]
    rate = dmg.crit_chance(state.base_spe[side, user], (user_volatiles & _FOCUS_ENERGY) > 0,
                           MOVE_CRIT_RATIO[move])
    state, crit = chance(state, hit & formula & (rate > 0), rate, 256)
    physical = MOVE_PHYSICAL[move]
    a_stat, d_stat = jnp.where(physical, 0, 2), jnp.where(physical, 1, 3)
    user_types = state.types[side, user]
    stab = (user_types[0] == mtype) | (user_types[1] == mtype)
    pre = dmg.pre_roll_damage(
        state.level[side, user], MOVE_POWER[move], state.mod_stats[side, user, a_stat],
        state.mod_stats[foe, target, d_stat], state.stats[side, user, a_stat],
        state.stats[foe, target, d_stat], stab, dmg.type_modifiers(mtype, target_types),
        crit, (state.volatiles[foe, target] & jnp.where(physical, _REFLECT, _LIGHT_SCREEN)) > 0,
        MOVE_SELFDESTRUCT[move] & physical)
    state, r = draw(state, hit & formula & (pre > 1), dmg.MIN_ROLL, dmg.MAX_ROLL + 1)
    hp = state.hp[foe, target]
    fixed_damage = jnp.where(fixed == FIXED_LEVEL, state.level[side, user],
                             jnp.where(fixed == FIXED_HALF_HP, jnp.maximum(hp // 2, 1), fixed))
    damage = jnp.where(formula, dmg.apply_roll(pre, r), fixed_damage)
    damage = jnp.where(hit & damaging & ~self_target, jnp.minimum(damage, hp), 0)

    # moveHit -> battle.damage, with drain inside it; then recoil (both: at least 1)
    state = state.replace(hp=state.hp.at[foe, target].add(-damage))
    target_fainted = (damage > 0) & (damage == hp)
    drain_num, drain_den = MOVE_DRAIN[move, 0], MOVE_DRAIN[move, 1]
    recoil_num, recoil_den = MOVE_RECOIL[move, 0], MOVE_RECOIL[move, 1]
    drained = jnp.where((damage > 0) & (drain_num > 0),
                        jnp.maximum(damage * drain_num // drain_den, 1), 0)
    user_hp = state.hp[side, user]
    user_hp = jnp.minimum(user_hp + drained, state.maxhp[side, user])
    recoil = jnp.where((damage > 0) & (recoil_num > 0),
                       jnp.maximum(damage * recoil_num // recoil_den, 1), 0)
    user_fainted = (recoil > 0) & (recoil >= user_hp)
    state = state.replace(hp=state.hp.at[side, user].set(jnp.maximum(user_hp - recoil, 0)))

    # Self-Destruct and Explosion: the user faints whatever happened
    exploded = MOVE_SELFDESTRUCT[move]
    state = state.replace(hp=state.hp.at[side, user].set(
        jnp.where(exploded, 0, state.hp[side, user])))
    user_fainted = user_fainted | exploded

    # Recover / Soft-Boiled (onHit), screens and Focus Energy (addVolatile) on the user
    user_hp, maxhp = state.hp[side, user], state.maxhp[side, user]
    heal_bug = ((user_hp == maxhp - 255) | (user_hp == maxhp - 511)) & (user_hp % 256 != 0)
    heals = hit & MOVE_HEAL_HALF[move] & (user_hp < maxhp) & ~heal_bug
    state = state.replace(
        hp=state.hp.at[side, user].set(jnp.where(heals, jnp.minimum(user_hp + maxhp // 2, maxhp),
                                                 user_hp)),
        volatiles=state.volatiles.at[side, user].set(
            jnp.where(hit, user_volatiles | MOVE_VOLATILE[move], user_volatiles)))

    # the move's own stat stages, on the user or the target
    stages = MOVE_BOOSTS[move]
    has_stages = jnp.any(stages != 0)
    boosted = jnp.where(self_target, side, foe)
    state, boosted = boost(state, boosted, stages, hit & has_stages)
    state = reapply_status_drops(state, foe, boosted)
    state = set_status(state, foe, MOVE_STATUS[move], hit)

    # a secondary: ceil(chance * 256 / 100) out of 256, if the target still stands; a
    # paralysis, burn or freeze secondary is not even rolled against a target of the move's type
    sec = MOVE_SECONDARY_CHANCE[move]
    sec_status = MOVE_SECONDARY_STATUS[move]
    same_type = jnp.any(target_types == mtype)
    typed_status = (sec_status == PAR) | (sec_status == BRN) | (sec_status == FRZ)
    roll = hit & (sec > 0) & (state.hp[foe, target] > 0) & ~(typed_status & same_type)
    state, lucky = chance(state, roll, sec, 256)
    state, boosted = boost(state, foe, MOVE_SECONDARY_BOOSTS[move], lucky)
    state = reapply_status_drops(state, foe, boosted)
    state = set_status(state, foe, sec_status, lucky)
    # Hyper Beam: a recharge turn unless the target fell
    state = state.replace(volatiles=state.volatiles.at[side, user].set(
        jnp.where(hit & MOVE_RECHARGE[move] & (state.hp[foe, target] > 0),
                  state.volatiles[side, user] | MUST_RECHARGE, state.volatiles[side, user])))
    moved = ~cant
    state = jax.tree_util.tree_map(lambda a, b: jnp.where(moved, a, b), state, before)
    target_fainted, user_fainted = moved & target_fainted, moved & user_fainted

    # AfterMoveSelf: after a move if its target still stands, always after a cancelled one
    standing = jnp.where(self_target, state.hp[side, user], state.hp[foe, target]) > 0
    state, burned_out = residual_damage(state, side, standing | cant)
    return state, target_fainted, user_fainted | burned_out
