"""Using a move: Showdown's Gen 1 ``runMove`` -> ``useMove`` -> ``tryMoveHit`` -> ``moveHit``.

``use_move(state, side)`` runs the move ``side`` selected (``state.last_selected``) for its
active Pokémon against the foe's active Pokémon (or itself), in Showdown's order:

1. ``BeforeMove`` (``conditions.before_move``): freeze, sleep, flinch, recharge, confusion (its
   self-hit), full paralysis; a cancelled move uses no PP, and so does ``cannotmove`` (the
   selection Haze leaves to a side whose Pokémon it thawed or woke), which skips BeforeMove;
2. Mirror Move's own part (it runs the foe's last move, or fails); a two-turn move's charging
   turn (no PP; Dig / Fly put the user out of reach) ends here;
3. PP deduction from ``side.lastSelectedMoveSlot`` (none for a locked move); the side's and
   the Pokémon's last move; most moves zero Gen 1's ``lastDamage``;
4. ``tryMoveHit``: Thrash / Petal Dance's lock (``random(2, 4)`` more uses, then confusion),
   the checks that fail without a roll (a target out of reach, type immunity, a faster
   target of a one-hit KO move), the Gen 1 accuracy roll (0-255 scale with the 1/256 miss;
   none for a sleep move against a Pokémon that must recharge; Rage and Thrash keep theirs),
   then the multi-hit count (``sample([2, 2, 2, 3, 3, 3, 4, 5])`` for 2-5 hits);
5. ``moveHit`` once per hit: the damage (``damage.py``: crit roll, formula, random factor; or
   fixed damage, Counter's twice the last damage, a one-hit KO's 65535; later hits repeat the
   first's), drain and recoil, or a substitute taking it;
6. Self-Destruct's faint, healing, screens and Focus Energy, the special ``onHit`` effects
   (``branches.switch`` over ``MOVE_EFFECT``: Rest, Substitute, Mimic, Transform, Conversion,
   Disable, Haze);
7. a chance secondary (stat drop, status, flinch or confusion), then stat stages (``boost``,
   with Gen 1's stat recomputation, the 999 / 1 limits and the re-applied status drops), a
   status (``conditions.set_status``, with the clauses) or confusion, as the move's effect or
   the secondary's; a frozen target's thaw after a move with a burn secondary, Hyper Beam's
   recharge; a missed (or blocked) Jump Kick / High Jump Kick costs its user 1 HP; a spent
   Thrash lock ends (``AfterMove``);
8. ``AfterMoveSelf`` (``conditions.after_move_self``): the Toxic counter, waking up, burn /
   poison damage, Leech Seed.

Bide stores damage in its own BeforeMove handler (the last one), which cancels the move each
turn and deals twice the stored damage on the last. The trapping moves (Wrap, Bind, Clamp, Fire
Spin) put ``partialtrappinglock`` on the user (2-5 residuals, the first hit's damage repeated
without a roll) and ``partiallytrapped`` on the target (which loses its moves, or selects
``cannotmove``); their residual counts, end-of-turn clean-up, ``maybeLocked`` requests and the
draws of their tied event handlers are in ``conditions`` and ``turn``. Metronome (``sample`` of
163 moves) and Mirror Move run the called move through the same path, chained up to
``MAX_CALLS`` deep.

Supported: ``SUPPORTED``, all 165 Gen 1 moves; ``check_supported`` names any other id.
"""

from __future__ import annotations

import math
from typing import Iterable

import jax
import jax.numpy as jnp
import numpy as np

from jaxenvs._src import branches
from jaxenvs.pokejax._src import conditions as cond
from jaxenvs.pokejax._src import damage as dmg
from jaxenvs.pokejax._src.state import (BOOSTS, CANNOT_MOVE, NO_MOVE, STATUSES, VOLATILES,
                                        BattleState, add_at, chance, draw, max_pp, put, select)
from jaxenvs.pokejax.data import gen1

#: Showdown move ids whose whole behaviour the engine reproduces. Their effects are mostly data
#: (the tables below, read from ``gen1.json``): damage (plain, fixed, level-based, half HP),
#: recoil and drain, stat stages raised or lowered as the move's effect or as a chance
#: secondary.
SUPPORTED: frozenset[str] = frozenset((
    # damage only
    "pound", "karatechop", "megapunch", "scratch", "visegrip", "cut", "gust", "wingattack",
    "slam", "vinewhip", "megakick", "hornattack", "tackle", "watergun", "hydropump", "surf",
    "peck", "drillpeck", "strength", "razorleaf", "rockthrow", "earthquake", "quickattack",
    "eggbomb", "waterfall", "swift", "dizzypunch", "crabhammer", "rockslide", "triattack",
    "slash", "payday",
    # fixed damage
    "sonicboom", "dragonrage", "seismictoss", "nightshade", "superfang",
    # random damage
    "psywave",
    # recoil, drain
    "struggle", "takedown", "doubleedge", "submission", "absorb", "megadrain", "leechlife",
    # drain against a sleeping target only
    "dreameater",
    # stat stages
    "swordsdance", "agility", "amnesia", "growth", "meditate", "sharpen", "harden", "withdraw",
    "barrier", "acidarmor", "doubleteam", "growl", "leer", "tailwhip", "stringshot", "screech",
    "sandattack", "smokescreen", "kinesis", "flash",
    # stat stages and a volatile that does nothing more in Gen 1
    "defensecurl", "minimize",
    # no effect in Gen 1 singles (Teleport fails in its onTry, Roar and Whirlwind roll to hit)
    "splash", "teleport", "roar", "whirlwind",
    # damage with a chance to lower a stat
    "acid", "bubblebeam", "aurorabeam", "constrict", "bubble", "psychic",
    # paralysis, as the move's effect or a chance secondary
    "thunderwave", "stunspore", "glare", "bodyslam", "thundershock", "thunderbolt",
    "thunderpunch", "lick",
    # burn and poison (chance secondaries and poison as an effect)
    "ember", "flamethrower", "firepunch", "fireblast", "poisonsting", "sludge", "smog",
    "poisonpowder", "poisongas",
    # bad poison (Gen 1's Toxic counter) and Leech Seed, which the counter also multiplies
    "toxic", "leechseed",
    # the user faints; healing; screens and Focus Energy (volatiles)
    "selfdestruct", "explosion", "recover", "softboiled", "reflect", "lightscreen",
    "focusenergy", "mist",
    # a recharge turn after a hit that leaves the target standing
    "hyperbeam",
    # freeze (chance secondaries), paralysis at 70% accuracy
    "blizzard", "icebeam", "icepunch", "thunder",
    # sleep, and Rest
    "sleeppowder", "hypnosis", "sing", "spore", "lovelykiss", "rest",
    # confusion, as the move's effect or a chance secondary
    "confuseray", "supersonic", "confusion", "psybeam",
    # flinch (chance secondaries)
    "stomp", "lowkick", "rollingkick", "headbutt", "bite", "hyperfang", "boneclub",
    # several hits
    "doublekick", "twineedle", "bonemerang", "pinmissile", "barrage", "cometpunch",
    "doubleslap", "furyattack", "furyswipes", "spikecannon",
    # 1 HP crash damage on a miss
    "jumpkick", "highjumpkick",
    # twice the last damage
    "counter",
    # a substitute
    "substitute",
    # a charging turn, then locked in
    "skyattack", "skullbash", "razorwind", "solarbeam",
    # the foe's moves, or its types
    "mirrormove", "mimic", "transform", "conversion",
    # disabling one of the foe's moves
    "disable",
    # locked in, building rage
    "rage",
    # stat stages, statuses and most volatiles cleared on both sides
    "haze",
    # one-hit KO (65535 damage), failing against a faster target
    "fissure", "horndrill", "guillotine",
    # locked in for 2-3 more uses, then confused
    "thrash", "petaldance",
    # a charging turn out of reach, then the hit
    "dig", "fly",
    # the last damage stored for 2-3 turns, then dealt back twice
    "bide",
    # partial trapping: the target cannot move while the user repeats the first hit's damage
    "wrap", "bind", "clamp", "firespin",
    # a random move
    "metronome"))
#: The moves Metronome picks from (``sample``): those with the metronome flag, in id order.
METRONOME_MOVES = jax.device_put(np.asarray([m["num"] for m in gen1().raw["moves"]
                                             if m["flags"].get("metronome")
                                             and m.get("isNonstandard") in (None, "Unobtainable")]))
#: The deepest chain of calling moves ``_execute`` follows (each further Mirror Move after a
#: Metronome has a 1 in 163 chance).
MAX_CALLS = 4
#: Struggle's move id: used when the active Pokémon has no move with PP left.
STRUGGLE = gen1().move_index["struggle"]
COUNTER = gen1().move_index["counter"]
MIRROR_MOVE = gen1().move_index["mirrormove"]
FISSURE = gen1().move_index["fissure"]
RAGE = gen1().move_index["rage"]
BIDE = gen1().move_index["bide"]
METRONOME = gen1().move_index["metronome"]
DISABLE = gen1().move_index["disable"]
#: ``getDamage`` of a one-hit KO move (capped at the target's HP, not a substitute's).
OHKO_DAMAGE = 65535
#: ``MOVE_FIXED`` codes besides a fixed amount (Counter: twice ``last_damage``; Psywave:
#: ``random(1, trunc(1.5 * level))``).
FIXED_LEVEL, FIXED_HALF_HP, FIXED_COUNTER, FIXED_PSYWAVE = -1, -2, -3, -4
#: Moves that leave ``battle.lastDamage`` as it was (Showdown's ``SKIP_LASTDAMAGE``); the others
#: zero it before they hit.
KEEP_LAST_DAMAGE = frozenset((
    "confuseray", "conversion", "counter", "focusenergy", "glare", "haze", "leechseed",
    "lightscreen", "mimic", "mist", "poisongas", "poisonpowder", "recover", "reflect", "rest",
    "softboiled", "splash", "stunspore", "substitute", "supersonic", "teleport", "thunderwave",
    "toxic", "transform"))
#: ``MOVE_HITS`` code for 2-5 hits.
HITS_2_TO_5 = 0
#: Special ``onHit`` effects (``MOVE_EFFECT``), the branches of ``branches.switch`` in
#: ``use_move``.
EFFECTS = ("none", "rest", "substitute", "mimic", "transform", "conversion", "disable",
           "haze")
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
         "volatile": np.zeros(n, np.uint32), "confuses": np.zeros(n, bool),
         "secondary_volatile": np.zeros(n, np.uint32), "hits": np.ones(n, np.int32),
         "crash": np.zeros(n, bool), "thaws": np.zeros(n, bool),
         "effect": np.zeros(n, np.int32), "sub_blocked": np.zeros(n, bool),
         "boost_volatile": np.zeros(n, np.uint32)}
    t["recoil"][:, 1] = t["drain"][:, 1] = 1
    for name in SUPPORTED:
        m = _D.move(name)
        k = m["num"]
        damage = m.get("damage")
        t["fixed"][k] = (FIXED_LEVEL if damage == "level" else damage if damage else
                         OHKO_DAMAGE if m.get("ohko") else
                         FIXED_HALF_HP if name == "superfang" else
                         FIXED_COUNTER if name == "counter" else
                         FIXED_PSYWAVE if name == "psywave" else 0)
        # useMoveInner: an unset ignoreImmunity becomes "is a Status move"
        ignore = m.get("ignoreImmunity")
        t["ignore_immunity"][k] = ignore is True or (ignore is None and
                                                     m["category"] == "Status")
        if m.get("status"):
            t["status"][k] = STATUSES.index(m["status"])
        t["selfdestruct"][k] = bool(m.get("selfdestruct"))
        t["heal_half"][k] = name in ("recover", "softboiled")
        if m.get("volatileStatus") == "confusion":
            t["confuses"][k] = True
        elif m.get("volatileStatus") in ("reflect", "lightscreen", "focusenergy", "mist"):
            t["volatile"][k] = 1 << VOLATILES.index(m["volatileStatus"])
        elif m.get("volatileStatus") in ("defensecurl", "minimize"):
            t["boost_volatile"][k] = 1 << VOLATILES.index(m["volatileStatus"])
        # the substitute's onTryHit: status moves it stops
        t["sub_blocked"][k] = m["category"] == "Status" and (
            m.get("status") in ("psn", "tox") or bool(m.get("boosts")) and m["target"] != "self"
            or m.get("volatileStatus") == "confusion"
            or name in ("lockon", "meanlook", "mindreader", "nightmare"))
        hits = m.get("multihit") or 1
        t["hits"][k] = HITS_2_TO_5 if hits == [2, 5] else hits
        t["crash"][k] = bool(m.get("hasCrashDamage"))
        t["effect"][k] = EFFECTS.index(name) if name in EFFECTS else 0
        t["self_target"][k] = m["target"] == "self"
        for stat, v in (m.get("boosts") or {}).items():
            t["boosts"][k, BOOSTS.index(stat)] = v
        for sec in m.get("secondaries") or []:
            # Showdown's gen1 moveHit: ceil(chance * 256 / 100) out of 256
            # (one less for confusion)
            t["secondary_chance"][k] = (-(-sec["chance"] * 256 // 100)
                                        - (sec.get("volatileStatus") == "confusion"))
            if sec.get("volatileStatus"):
                t["secondary_volatile"][k] = 1 << VOLATILES.index(sec["volatileStatus"])
            t["thaws"][k] = sec.get("status") == "brn"
            for stat, v in (sec.get("boosts") or {}).items():
                t["secondary_boosts"][k, BOOSTS.index(stat)] = v
            if sec.get("status"):
                t["secondary_status"][k] = STATUSES.index(sec["status"])
        for key in ("recoil", "drain"):
            if m.get(key):
                t[key][k] = m[key]
    return t


_T = _move_tables()


def _table(values, nomove=0) -> jax.Array:
    """A per-move table with two more rows (``nomove``): ``NO_MOVE``, the typeless 102-power
    special move with accuracy 81/256 (of 100) a thawed Pokémon uses when its side never
    selected a move, and ``CANNOT_MOVE`` (the same values: it never runs, only its priority 0
    is read). Built in NumPy and put on the device as it is: no XLA program runs at import."""
    values = np.asarray(values)
    return jax.device_put(np.concatenate([values, np.full((2,) + values.shape[1:], nomove,
                                                          values.dtype)]))


_MOVE_PP = jax.device_put(_D.move_pp)
_BASE_SPEED = jax.device_put(_D.base_stats[:, 5])
MOVE_TYPE = _table(_D.move_type)
"""Type id (0: typeless)."""
MOVE_POWER = _table(_D.move_base_power, 102)
MOVE_ACCURACY = _table([math.floor(a * 255 / 100) for a in _D.move_accuracy],
                       math.floor(100 * 81 / 256 * 255 / 100))
"""``floor(percent * 255 / 100)``, the 0-255 scale of Gen 1's hit roll; 0 = never misses."""
MOVE_PRIORITY = _table(_D.move_priority)
MOVE_CRIT_RATIO = _table(_D.move_crit_ratio, 1)
MOVE_PHYSICAL = _table(_D.move_category == 0, False)
MOVE_FIXED = _table(_T["fixed"])
"""Fixed damage: an amount, ``FIXED_LEVEL``, ``FIXED_HALF_HP``, ``FIXED_COUNTER``,
``FIXED_PSYWAVE`` or 0 (the formula)."""
MOVE_IGNORE_IMMUNITY = _table(_T["ignore_immunity"])
MOVE_SELF_TARGET = _table(_T["self_target"])
MOVE_BOOSTS = _table(_T["boosts"])
"""int32[moves, 7]: stages the move itself changes (on itself or its target)."""
MOVE_SECONDARY_CHANCE = _table(_T["secondary_chance"])
"""The secondary's ``randomChance(x, 256)`` numerator (0: no secondary)."""
MOVE_SECONDARY_BOOSTS = _table(_T["secondary_boosts"])
MOVE_RECOIL = _table(_T["recoil"], (0, 1))
"""(numerator, denominator) of the damage dealt taken as recoil ((0, 1): none)."""
MOVE_DRAIN = _table(_T["drain"], (0, 1))
MOVE_STATUS = _table(_T["status"])
"""Status the move inflicts as its effect (``STATUSES`` index; 0: none)."""
MOVE_SECONDARY_STATUS = _table(_T["secondary_status"])
MOVE_SELFDESTRUCT = _table(_T["selfdestruct"])
"""The user faints after the move, hit or miss (and the target's Defense counts half)."""
MOVE_HEAL_HALF = _table(_T["heal_half"])
"""Recover / Soft-Boiled: half the max HP, with Gen 1's failure when max - hp is 255 or 511."""
MOVE_VOLATILE = _table(_T["volatile"])
"""uint32: the ``VOLATILES`` bit the move gives its user (screens, Focus Energy, Mist)."""
MOVE_BOOST_VOLATILE = _table(_T["boost_volatile"])
"""uint32: the ``VOLATILES`` bit a stat-stage move gives its user when a stage moved (Defense
Curl, Minimize: ``moveHit`` returns before ``addVolatile`` when the boost fails)."""
MOVE_CONFUSES = _table(_T["confuses"])
"""The move confuses its target (its effect, not a chance)."""
MOVE_SECONDARY_VOLATILE = _table(_T["secondary_volatile"])
"""uint32: the ``VOLATILES`` bit (flinch or confusion) of the chance secondary."""
MOVE_HITS = _table(_T["hits"], 1)
"""Hits per use: 1, 2, or ``HITS_2_TO_5``."""
MOVE_CRASH = _table(_T["crash"])
"""Jump Kick / High Jump Kick: 1 HP to the user when the move fails."""
MOVE_THAWS = _table(_T["thaws"])
"""The move's secondary is a burn: it thaws a frozen target it hits."""
MOVE_EFFECT = _table(_T["effect"])
"""Index into ``EFFECTS``."""
MOVE_NEEDS_SLEEP = _table([name == "dreameater" for name in _D.move_names])
"""Dream Eater's ``onTryImmunity`` (Gen 4's, which Gen 1 inherits): the target must be asleep
and without a substitute (else ``-immune``, no roll)."""
MOVE_SEEDS = _table([name == "leechseed" for name in _D.move_names])
"""Leech Seed: its ``onTryImmunity`` spares Grass types; it seeds the target (through a
substitute)."""
_GRASS = _D.type_index["Grass"]
MOVE_RECHARGE = _table([name == "hyperbeam" for name in _D.move_names])
_OHKO_NAMES = ("fissure", "horndrill", "guillotine")
MOVE_OHKO = _table([name in _OHKO_NAMES for name in _D.move_names])
"""Fissure, Horn Drill, Guillotine: ``tryMoveHit`` fails (no roll) against a target with a
higher modified Speed."""
MOVE_DAMAGING = _table([p > 0 or name in _OHKO_NAMES
                       for p, name in zip(_D.move_base_power, _D.move_names)], True)
"""The move deals damage (base power, or a one-hit KO; the others are status moves)."""
MOVE_LOCKS = _table([name in ("thrash", "petaldance") for name in _D.move_names])
"""Thrash / Petal Dance: the ``lockedmove`` volatile (``self.volatileStatus``)."""
MOVE_TRAPS = _table([name in ("wrap", "bind", "clamp", "firespin") for name in _D.move_names])
"""Partial trapping: ``partiallytrapped`` on the target, ``partialtrappinglock`` on the user."""
_NORMAL, _GHOST = _D.type_index["Normal"], _D.type_index["Ghost"]
MOVE_TWO_TURN = _table([name in ("razorwind", "skullbash", "skyattack", "solarbeam", "dig", "fly")
                        for name in _D.move_names])
"""Charges a turn first (``twoturnmove``), then is locked in and hits."""
MOVE_INVULNERABLE = _table([name in ("dig", "fly") for name in _D.move_names])
"""Dig / Fly: the charging user is out of reach (``invulnerability``) until the move runs."""
MOVE_REACHES_INVULNERABLE = _table([name in ("swift", "transform") for name in _D.move_names])
MOVE_SUB_BLOCKED = _table(_T["sub_blocked"])
"""A status move a substitute stops (poison, stat drops, confusion)."""
MOVE_KEEPS_LAST_DAMAGE = _table([name in KEEP_LAST_DAMAGE for name in _D.move_names])
MOVE_COUNTERABLE = _table([t in (_D.type_index["Normal"], _D.type_index["Fighting"]) and p > 0
                           for t, p in zip(_D.move_type, _D.move_base_power)])
"""Counter answers the move: a Normal or Fighting one with base power."""
MOVE_HAS_EFFECT = jax.device_put(
    (np.asarray(MOVE_SECONDARY_CHANCE) > 0) | np.any(np.asarray(MOVE_BOOSTS) != 0, axis=1)
    | (np.asarray(MOVE_STATUS) > 0) | np.asarray(MOVE_CONFUSES))
"""The move changes stat stages, inflicts a status or confuses, as its effect or a chance
secondary (``_effect``); for the others that part draws nothing and changes nothing."""
MUST_RECHARGE = cond.MUST_RECHARGE
PAR, BRN, FRZ, SLP = cond.PAR, cond.BRN, cond.FRZ, cond.SLP
#: The multi-hit count for 2-5 hits: ``sample`` of this list.
_HITS_SAMPLE = jax.device_put(np.asarray([2, 2, 2, 3, 3, 3, 4, 5], np.int32))

#: Gen 1's stage table for accuracy and evasion, in percent, index = stage + 6.
_BOOST_TABLE = (25, 28, 33, 40, 50, 66, 100, 150, 200, 250, 300, 350, 400)
#: ``ACCURACY_BOOST[acc, stage + 6]`` = JavaScript's ``Math.floor(acc * (table / 100))`` (the
#: double product, which integer arithmetic would not always reproduce).
ACCURACY_BOOST = jax.device_put(np.array(
    [[math.floor(a * (t / 100)) for t in _BOOST_TABLE] for a in range(255 * 4 + 1)], np.int32))
#: ``STAT_STAGE[stat, stage + 6]``: Gen 1 ``modifyStat`` of a stored stat at a stage,
#: ``max(floor(stat * multiplier), 1)`` with Showdown's double multipliers.
_STAGE_MULT = [p / 100 for p in (25, 28, 33, 40, 50, 66)] + [1, 1.5, 2, 2.5, 3, 3.5, 4]
STAT_STAGE = jax.device_put(np.array(
    [[max(math.floor(s * m), 1) for m in _STAGE_MULT] for s in range(1000)], np.int32))
#: Showdown's cap of a raised stat.
MAX_STAT = 999
#: The stages a raging Pokémon gains when it builds rage (+1 Attack).
_RAGE_BOOST = jax.device_put(np.asarray([1, 0, 0, 0, 0, 0, 0], np.int32))


def check_supported(move_ids: Iterable[str]) -> None:
    """Raises ``ValueError`` naming the moves the engine does not reproduce yet."""
    missing = sorted({m for m in move_ids if m and m not in SUPPORTED})
    if missing:
        raise ValueError(f"moves not supported by the engine yet: {', '.join(missing)}")


def accuracy(move_accuracy: jax.Array, acc_stage: jax.Array, eva_stage: jax.Array
             ) -> jax.Array:
    """The numerator of the hit roll ``randomChance(acc, 256)`` for a move with a numeric
    accuracy (``MOVE_ACCURACY``, 0-255): times the user's accuracy and the target's evasion
    stages, clamped to 1..255."""
    acc = ACCURACY_BOOST[move_accuracy, acc_stage + 6]
    acc = ACCURACY_BOOST[acc, -eva_stage + 6]
    return jnp.clip(acc, 1, 255)


def usable_moves(state: BattleState, side: jax.Array) -> jax.Array:
    """bool[..., 4]: the move slots of ``side``'s active Pokémon that can be chosen (with PP,
    and not the slot a Disable holds: ``onDisableMove``)."""
    user = state.party[side, 0]
    disabled = (((state.volatiles[side, user] & jnp.uint32(cond.DISABLE)) > 0)[..., None]
                & (jnp.arange(4) == state.disable_slot[side, user][..., None]))
    return (state.moves[side, user] > 0) & (state.pp[side, user] > 0) & ~disabled


def recharging(state: BattleState, side: jax.Array) -> jax.Array:
    """``side``'s active Pokémon must recharge (its only choice is ``move 1``, Recharge)."""
    return (cond.active_volatiles(state, side) & MUST_RECHARGE) > 0


def locked(state: BattleState, side: jax.Array) -> jax.Array:
    """``side``'s active Pokémon is locked into its selected move (recharge, a charged
    two-turn move, Rage, Thrash / Petal Dance): its only choice is ``move 1`` and it cannot
    switch."""
    v = cond.active_volatiles(state, side)
    return (v & jnp.uint32(MUST_RECHARGE | cond.TWO_TURN_MOVE | cond.RAGE
                           | cond.LOCKED_MOVE)) > 0


def boost(state: BattleState, side: jax.Array, stages: jax.Array, when: jax.Array
          ) -> tuple[BattleState, jax.Array]:
    """``battle.boost`` of ``side``'s active Pokémon by ``stages`` int[7] (Gen 1 ``boostBy``):
    a stage already at +-6 does not move; a stat already at 999 (raised) or 1 (lowered) moves
    its stage and moves it back; otherwise the stage moves (clamped to +-6) and the modified
    stat is recomputed from the stored one (capped at 999 when raised). Accuracy and evasion
    only move their stage. Returns (state, some stage changed), both only ``when``."""
    t = state.party[side, 0]
    return branches.cond(when & (state.hp[side, t] > 0), _boosted,
                         lambda state, side, stages: (state, jnp.bool_(False)),
                         state, side, stages, result_shapes=(state, jnp.bool_(False)))


def _boosted(state: BattleState, side: jax.Array, stages: jax.Array
             ) -> tuple[BattleState, jax.Array]:
    """``boost`` where it applies (``side``'s active Pokémon stands)."""
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
    new = state.replace(boosts=put(state.boosts, (side, t), jnp.stack(new_boosts)),
                        mod_stats=put(state.mod_stats, (side, t), jnp.stack(new_mod)))
    return new, changed


def _deduct_pp(state: BattleState, side: jax.Array, skip: jax.Array) -> BattleState:
    """``deductPP`` from the last selected slot (6-bit wrap, as Showdown's ``trunc(pp, 6)``),
    unless ``skip``; the set's PP follow (``baseMoveSlots``), except while transformed."""
    user = state.party[side, 0]
    last = state.last_slot[side]
    pp = state.pp[side, user, last]
    pp = jnp.where(skip, pp, (pp - 1) % 64)
    base = jnp.where(state.transformed[side, user], state.base_pp[side, user, last], pp)
    return state.replace(pp=put(state.pp, (side, user, last), pp),
                         base_pp=put(state.base_pp, (side, user, last), base))


def _accuracy_check(state: BattleState, side: jax.Array, move: jax.Array
                    ) -> tuple[BattleState, jax.Array]:
    """``tryMoveHit``'s immunity check (no roll), then the accuracy roll (+1 for moves on the
    user itself; none for a sleep move against a Pokémon that must recharge). Returns (state,
    the move hits)."""
    foe = 1 - side
    user, target = state.party[side, 0], state.party[foe, 0]
    self_target = MOVE_SELF_TARGET[move]
    # the Invulnerability event (Dig / Fly), then the type immunity, Dream Eater's and Leech
    # Seed's onTryImmunity, the one-hit KO Speed check: all fail without a roll
    out_of_reach = (cond.has(state, foe, cond.INVULNERABILITY) & ~self_target
                    & ~MOVE_REACHES_INVULNERABLE[move])
    is_immune = (out_of_reach
                 | (~MOVE_IGNORE_IMMUNITY[move]
                    & dmg.immune(MOVE_TYPE[move], state.types[foe, target]))
                 | (MOVE_NEEDS_SLEEP[move] & ((state.status[foe, target] != SLP)
                                             | cond.has(state, foe, cond.SUBSTITUTE)))
                 | (MOVE_SEEDS[move] & jnp.any(state.types[foe, target] == _GRASS))
                 | (MOVE_OHKO[move] & (state.mod_stats[foe, target, 4]
                                       > state.mod_stats[side, user, 4])))
    acc255 = MOVE_ACCURACY[move]
    sure = (acc255 == 0) | ((MOVE_STATUS[move] == SLP) & recharging(state, foe))
    # a raging or thrashing Pokémon starts from its volatile's accuracy (Rage's first) and
    # keeps the result in both
    raging = cond.has(state, side, cond.RAGE) & (acc255 > 0)
    thrashing = cond.has(state, side, cond.LOCKED_MOVE) & (acc255 > 0)
    acc = accuracy(jnp.where(raging, state.rage_accuracy[side, user],
                             jnp.where(thrashing, state.lock_accuracy[side, user], acc255)),
                   state.boosts[side, user, 5],
                   jnp.where(self_target, state.boosts[side, user, 6],
                             state.boosts[foe, target, 6]))
    state = state.replace(
        rage_accuracy=put(state.rage_accuracy, (side, user), acc, raging & ~is_immune),
        lock_accuracy=put(state.lock_accuracy, (side, user), acc, thrashing & ~is_immune))
    # partiallytrapped's onAccuracy: the trapper's moves never miss it
    sure = sure | (~self_target & cond.has(state, foe, cond.TRAPPED)
                   & (state.trapped_by[foe, target] == user))
    rolled = ~is_immune & ~sure
    state, hit = chance(state, rolled, acc + self_target, 256)
    state = state.replace(last_damage=jnp.where(rolled & ~hit, 0, state.last_damage))
    # a miss deletes a trapping lock
    state = cond.end_trap_lock(state, side, rolled & ~hit)
    return state, ~is_immune & (hit | sure)


def _damage_hit(state: BattleState, side: jax.Array, move: jax.Array, when: jax.Array,
                repeat: jax.Array) -> tuple[BattleState, jax.Array, jax.Array]:
    """One ``moveHit``'s damage: ``getDamage`` (fixed damage, or crit roll, formula and random
    factor; ``repeat`` instead when >= 0: the first hit's damage, which a multi-hit move's
    later hits deal without rolling, or against a substitute the last damage). A substitute
    takes it uncapped (its ``onTryHit``), with recoil and drain only if it holds; otherwise
    ``battle.damage`` (capped at the HP, with drain inside), then recoil (both at least 1).
    Each sets the last damage. Returns (state, the damage, the substitute broke)."""
    foe = 1 - side
    user, target = state.party[side, 0], state.party[foe, 0]
    mtype = MOVE_TYPE[move]
    target_types = state.types[foe, target]
    fixed = MOVE_FIXED[move]
    damaging = MOVE_DAMAGING[move]
    # getDamage: a Normal trapping move does nothing to a Ghost; a trapping lock repeats its
    # first hit's damage on the Pokémon it holds
    ghost_wrap = MOVE_TRAPS[move] & (mtype == _NORMAL) & jnp.any(target_types == _GHOST)
    repeating = (cond.has(state, side, cond.TRAP_LOCK)
                 & (state.trap_target[side, user] == target))
    formula = damaging & (fixed == 0) & (repeat < 0) & ~ghost_wrap & ~repeating
    rate = dmg.crit_chance(state.base_spe[side, user], cond.has(state, side, cond.FOCUS_ENERGY),
                           MOVE_CRIT_RATIO[move])
    state, crit = chance(state, when & formula & (rate > 0), rate, 256)
    physical = MOVE_PHYSICAL[move]
    a_stat, d_stat = jnp.where(physical, 0, 2), jnp.where(physical, 1, 3)
    user_types = state.types[side, user]
    stab = (mtype > 0) & ((user_types[0] == mtype) | (user_types[1] == mtype))
    screen = cond.has(state, foe, jnp.where(physical, cond.REFLECT, cond.LIGHT_SCREEN))
    pre = dmg.pre_roll_damage(
        state.level[side, user], MOVE_POWER[move], state.mod_stats[side, user, a_stat],
        state.mod_stats[foe, target, d_stat], state.base_stats[side, user, a_stat],
        state.base_stats[foe, target, d_stat], stab, dmg.type_modifiers(mtype, target_types),
        crit, screen, MOVE_SELFDESTRUCT[move] & physical)
    state, r = draw(state, when & formula & (pre > 1), dmg.MIN_ROLL, dmg.MAX_ROLL + 1)
    # Psywave's damageCallback fails (Gen 1's softlock) when (level + level / 2) & 255 < 2
    level = state.level[side, user]
    psywave = (fixed == FIXED_PSYWAVE) & (repeat < 0)
    wave_fails = psywave & (((level + (level >> 1)) & 255) < 2)
    state, wave = draw(state, when & psywave & ~wave_fails, 1, 3 * level // 2)
    hp = state.hp[foe, target]
    fixed_damage = jnp.select(
        [fixed == FIXED_LEVEL, fixed == FIXED_HALF_HP, fixed == FIXED_COUNTER,
         fixed == FIXED_PSYWAVE],
        [level, jnp.maximum(hp // 2, 1), 2 * state.last_damage, wave], fixed)
    sub = cond.has(state, foe, cond.SUBSTITUTE)
    raw = jnp.where(repeat >= 0, jnp.where(sub, state.last_damage, repeat),
                    jnp.where(formula, dmg.apply_roll(pre, r), fixed_damage))
    raw = jnp.where(ghost_wrap, 0, jnp.where(repeating, state.trap_damage[side, user], raw))
    dealt = when & damaging & ~MOVE_SELF_TARGET[move] & ~wave_fails
    state, broke = cond.hit_substitute(state, foe, raw, dealt & sub)
    damage = jnp.where(dealt & ~sub, jnp.minimum(raw, hp), 0)
    state = state.replace(hp=add_at(state.hp, (foe, target), -damage),
                          last_damage=jnp.where(dealt, jnp.where(sub, raw, damage),
                                                state.last_damage))

    held = dealt & sub & ~broke
    drain_num, drain_den = MOVE_DRAIN[move, 0], MOVE_DRAIN[move, 1]
    recoil_num, recoil_den = MOVE_RECOIL[move, 0], MOVE_RECOIL[move, 1]
    basis = jnp.where(held, raw, damage)
    drained = jnp.where(((basis > 0) | held) & (drain_num > 0),
                        jnp.maximum(basis * drain_num // drain_den, 1), 0)
    state = state.replace(last_damage=jnp.where(drained > 0, drained, state.last_damage))
    user_hp = jnp.minimum(state.hp[side, user] + drained, state.maxhp[side, user])
    recoil = jnp.where((basis > 0) & (recoil_num > 0),
                       jnp.maximum(basis * recoil_num // recoil_den, 1), 0)
    state = state.replace(hp=put(state.hp, (side, user), jnp.maximum(user_hp - recoil, 0)))
    # the rage volatile's onHit: a raging target hit (not its substitute) by a damaging move
    # other than Self-Destruct / Explosion gains +1 Attack
    state, _ = boost(state, foe, _RAGE_BOOST, dealt & ~sub & cond.has(state, foe, cond.RAGE)
                     & ~MOVE_SELFDESTRUCT[move])
    return state, damage, broke


def _hits(state: BattleState, side: jax.Array, move: jax.Array, hit: jax.Array
          ) -> tuple[BattleState, jax.Array]:
    """The hit count (``sample([2, 2, 2, 3, 3, 3, 4, 5])`` for 2-5 hits), then one
    ``_damage_hit`` per hit while both Pokémon stand and no substitute broke, the later ones
    repeating the first's damage (Showdown keeps it in ``move.damage``). Returns (state, a
    substitute broke)."""
    foe = 1 - side
    user, target = state.party[side, 0], state.party[foe, 0]
    hits = MOVE_HITS[move]
    state, k = draw(state, hit & (hits == HITS_2_TO_5), len(_HITS_SAMPLE))
    hits = jnp.where(hits == HITS_2_TO_5, _HITS_SAMPLE[k], hits)

    def one(i, carry):
        state, first, broke = carry
        go = (hit & MOVE_DAMAGING[move] & (i < hits) & (state.hp[foe, target] > 0)
              & (state.hp[side, user] > 0) & ~broke)
        # a hit that does not happen changes nothing (``_damage_hit`` with ``when`` False),
        # nor does a status move's (it deals no damage, draws nothing)
        state, damage, broke_now = branches.cond(
            go, _damage_hit, lambda state, *_: (state, jnp.int32(0), jnp.bool_(False)),
            state, side, move, go, jnp.where(i == 0, -1, first),
            result_shapes=(state, jnp.int32(0), jnp.bool_(False)))
        return state, jnp.where(i == 0, damage, first), broke | broke_now

    state, _, broke = jax.lax.fori_loop(0, 5, one, (state, jnp.int32(0), jnp.bool_(False)))
    return state, broke


def _no_effect(state: BattleState, side: jax.Array, when: jax.Array) -> BattleState:
    return state


def _rest(state: BattleState, side: jax.Array, when: jax.Array) -> BattleState:
    """Rest's ``onHit``: fails at full HP and in Gen 1's 255 / 511 case; otherwise the user
    sleeps (replacing its status; the Sleep Clause ignores it) for exactly 2 moves (after
    sleep's own ``random(1, 8)``) and heals to full."""
    t = state.party[side, 0]
    hp, maxhp = state.hp[side, t], state.maxhp[side, t]
    fails = (hp == maxhp) | (((hp == maxhp - 255) | (hp == maxhp - 511)) & (hp % 256 != 0))
    state, slept = cond.set_status(state, side, SLP, when & ~fails, by_self=True, override=True)
    return state.replace(
        status_turns=put(state.status_turns, (side, t), 2, slept),
        hp=put(state.hp, (side, t), jnp.where(slept, maxhp, hp)))


def _substitute(state: BattleState, side: jax.Array, when: jax.Array) -> BattleState:
    """Substitute: fails with one already up or under a quarter of the max HP; the substitute
    gets ``floor(maxhp / 4) + 1`` HP and costs ``floor(maxhp / 4)`` (when maxhp > 3), which can
    make the user faint."""
    t = state.party[side, 0]
    hp, maxhp = state.hp[side, t], state.maxhp[side, t]
    ok = when & ~cond.has(state, side, cond.SUBSTITUTE) & (4 * hp >= maxhp)
    state = cond.add_volatile(state, side, cond.SUBSTITUTE, ok)
    # its onStart frees the user from a partial trap
    state = cond.end_trapped(state, side, ok)
    cost = jnp.where(ok & (maxhp > 3), jnp.minimum(maxhp // 4, hp), 0)
    return state.replace(sub_hp=put(state.sub_hp, (side, t), maxhp // 4 + 1, ok),
        hp=add_at(state.hp, (side, t), -cost))


def _mimic(state: BattleState, side: jax.Array, when: jax.Array) -> BattleState:
    """Mimic's ``onHit``: one of the foe's moves (``sample``) replaces Mimic in the selected
    slot, keeping its PP, until the user leaves the field."""
    foe = 1 - side
    user, target = state.party[side, 0], state.party[foe, 0]
    state, k = draw(state, when, jnp.sum(state.moves[foe, target] > 0))
    copied = state.moves[foe, target, k]
    slot = state.last_slot[side]
    return state.replace(
        moves=put(state.moves, (side, user, slot), copied, when),
        maxpp=put(state.maxpp, (side, user, slot), max_pp(_MOVE_PP[copied]), when))


def _transform(state: BattleState, side: jax.Array, when: jax.Array) -> BattleState:
    """Transform (``transformInto``): the user takes the target's stored and modified stats,
    types, stat stages and moves (5 PP each, or the move's PP if less); ``setSpecies`` leaves
    the cached speed at the target species' Speed computed from the user's own set."""
    foe = 1 - side
    user, target = state.party[side, 0], state.party[foe, 0]
    moves = state.moves[foe, target]
    base_pp = _MOVE_PP[moves]
    form = state.form[foe, target]
    speed = ((2 * _BASE_SPEED[form] + state.spe_core[side, user])
             * state.level[side, user] // 100 + 5)

    def copy(array, value):
        return put(array, (side, user), value, when)

    return state.replace(
        stats=copy(state.stats, state.stats[foe, target]),
        mod_stats=copy(state.mod_stats, state.mod_stats[foe, target]),
        types=copy(state.types, state.types[foe, target]),
        boosts=copy(state.boosts, state.boosts[foe, target]),
        moves=copy(state.moves, moves),
        pp=copy(state.pp, jnp.where(moves > 0, jnp.minimum(5, base_pp), 0)),
        maxpp=copy(state.maxpp, jnp.where(moves > 0, max_pp(base_pp), 0)),
        transformed=copy(state.transformed, True),
        form=copy(state.form, form),
        speed=copy(state.speed, speed))


def _conversion(state: BattleState, side: jax.Array, when: jax.Array) -> BattleState:
    """Gen 1 Conversion's ``onHit``: the user takes the target's types (until it leaves the
    field)."""
    foe = 1 - side
    user, target = state.party[side, 0], state.party[foe, 0]
    return state.replace(types=put(state.types, (side, user), state.types[foe, target], when))


def _disable(state: BattleState, side: jax.Array, when: jax.Array) -> BattleState:
    """Gen 1 Disable: fails (``onTryHit``) unless the target has a move with PP, and when it
    is already disabled; its ``onStart`` picks one of the moves with PP (``sample``) and a
    duration ``random(1, 9)``."""
    foe = 1 - side
    target = state.party[foe, 0]
    with_pp = (state.moves[foe, target] > 0) & (state.pp[foe, target] > 0)
    ok = when & jnp.any(with_pp) & ~cond.has(state, foe, cond.DISABLE)
    state, k = draw(state, ok, jnp.sum(with_pp))
    slot = jnp.argmax(jnp.cumsum(with_pp) == k + 1)
    state, turns = draw(state, ok, 1, 9)
    state = cond.add_volatile(state, foe, cond.DISABLE, ok)

    def disabled(array, value):
        return put(array, (foe, target), value, ok)

    return state.replace(
        disable_move=disabled(state.disable_move, state.moves[foe, target, slot]),
        disable_slot=disabled(state.disable_slot, slot),
        disable_turns=disabled(state.disable_turns, turns))


#: The volatiles Gen 1 Haze ends on both active Pokémon.
_HAZED = (cond.DISABLE | cond.CONFUSION | cond.MIST | cond.FOCUS_ENERGY | cond.LEECH_SEED
          | cond.LIGHT_SCREEN | cond.REFLECT | cond.RESIDUAL_DMG)


def _haze(state: BattleState, side: jax.Array, when: jax.Array) -> BattleState:
    """Gen 1 Haze's ``onHit`` on both active Pokémon: the stat stages go (``clearBoosts``: the
    modified stats become the stored ones, losing the paralysis / burn drops); the foe's status
    is cured, and a frozen or sleeping foe's side selects ``cannotmove`` (its queued move this
    turn and a later Fight button do nothing); the user's bad poison becomes poison
    (``setStatus``, with its tie-break draw); the cached speeds are refreshed; Disable,
    confusion, Mist, Focus Energy, Leech Seed, the screens and the Toxic counter end."""
    foe = 1 - side
    sides, active = jnp.arange(2), state.party[:, 0]
    mod = jnp.where(when, state.stats[sides, active], state.mod_stats[sides, active])
    stopped = when & ((state.status[foe, active[foe]] == FRZ)
                      | (state.status[foe, active[foe]] == SLP))
    state = state.replace(
        boosts=state.boosts.at[sides, active].set(
            jnp.where(when, 0, state.boosts[sides, active])),
        mod_stats=state.mod_stats.at[sides, active].set(mod),
        last_selected=put(state.last_selected, foe, CANNOT_MOVE, stopped),
        last_enemy_selected=put(state.last_enemy_selected, foe, CANNOT_MOVE, stopped))
    state = cond.cure_status(state, foe, when)
    state, _ = cond.set_status(state, side, cond.PSN,
                               when & (state.status[side, active[side]] == cond.TOX),
                               by_self=True, override=True)
    hazed = when & (state.hp[sides, active] > 0)
    keep = jnp.where(hazed, ~jnp.uint32(_HAZED), ~jnp.uint32(0))

    def clear(array):
        return array.at[sides, active].set(jnp.where(hazed, 0, array[sides, active]))

    return state.replace(
        speed=state.speed.at[sides, active].set(
            jnp.where(hazed, state.mod_stats[sides, active, 4], state.speed[sides, active])),
        volatiles=state.volatiles.at[sides, active].set(state.volatiles[sides, active] & keep),
        confusion_turns=clear(state.confusion_turns), toxic_counter=clear(state.toxic_counter),
        disable_move=clear(state.disable_move), disable_slot=clear(state.disable_slot),
        disable_turns=clear(state.disable_turns))


#: The ``branches.switch`` branches for ``EFFECTS``: (state, user's side, the move hit) ->
#: state.
_EFFECT_BRANCHES = (_no_effect, _rest, _substitute, _mimic, _transform, _conversion,
                    _disable, _haze)


def _use_caller(state: BattleState, side: jax.Array, caller: int, deduct: jax.Array
                ) -> BattleState:
    """``runMove`` / ``useMove``'s bookkeeping for Metronome or Mirror Move: PP (``deduct``),
    the side's and the Pokémon's last move; ``useMoveInner`` zeroes the last damage."""
    user = state.party[side, 0]
    state = _deduct_pp(state, side, ~jnp.asarray(deduct))
    return state.replace(last_used=put(state.last_used, side, caller),
                         last_move=put(state.last_move, (side, user), caller),
                         last_damage=jnp.int32(0))


def _call(state: BattleState, side: jax.Array, called: jax.Array, when: jax.Array
          ) -> BattleState:
    """Metronome's or Mirror Move's ``onHit`` (``when``): the side selects ``called`` (as
    shown too), then ``useMove`` of it gives a transformed user a PP back in its own move
    slot."""
    user, last = state.party[side, 0], state.last_slot[side]
    base = state.base_pp[side, user, last]
    return state.replace(
        last_selected=put(state.last_selected, side, called, when),
        last_enemy_selected=put(state.last_enemy_selected, side, called, when),
        base_pp=put(state.base_pp, (side, user, last),
            jnp.where(when & state.transformed[side, user], (base + 1) % 64, base)))


def _calls(state: BattleState, side: jax.Array, move: jax.Array
           ) -> tuple[BattleState, jax.Array, jax.Array]:
    """The calling moves' own parts, up to ``MAX_CALLS`` deep (``_execute``). Returns (state,
    the move that runs, Mirror Move failed)."""
    foe = 1 - side

    def call(k, carry):  # one calling move (a loop: Metronome may call Mirror Move, ...)
        state, move, failed = carry
        metronome = ~failed & (move == METRONOME)
        mirror = ~failed & (move == MIRROR_MOVE)
        called, pick = draw(_use_caller(state, side, METRONOME, k == 0), metronome,
                            len(METRONOME_MOVES))
        picked = METRONOME_MOVES[pick]
        copied = state.last_move[foe, state.party[foe, 0]]
        copies = mirror & (copied != 0) & (copied != MIRROR_MOVE)
        mirrored = _call(_use_caller(state, side, MIRROR_MOVE, k == 0), side, copied, copies)
        state = select(metronome, _call(called, side, picked, True),
                       select(mirror, mirrored, state))
        move = jnp.where(metronome, picked, jnp.where(copies, copied, move))
        return state, move, failed | (mirror & ~copies)

    return jax.lax.fori_loop(0, MAX_CALLS, call, (state, move, jnp.bool_(False)))


def _execute(state: BattleState, side: jax.Array, move: jax.Array
             ) -> tuple[BattleState, jax.Array]:
    """Everything after ``BeforeMove`` up to ``AfterMoveSelf``: the calling moves' own parts
    (PP for the selected one, bookkeeping; Metronome's ``sample`` of every move with the
    metronome flag in id order, Mirror Move's copy of the foe's last move, which fails unless
    there is one to copy), up to ``MAX_CALLS`` deep (Metronome -> Mirror Move -> Metronome
    ...), then a two-turn move's charging turn or the move (``_run``). Returns (state, the move
    that ran)."""
    caller = (move == METRONOME) | (move == MIRROR_MOVE)
    # for any other move the calls change nothing
    state, ran, failed = branches.cond(
        caller, _calls, lambda state, side, move: (state, move, jnp.bool_(False)), state, side,
        move, result_shapes=(state, move, jnp.bool_(False)))

    # a two-turn move's first turn: it charges (no PP: a calling move's is given back)
    charging = MOVE_TWO_TURN[ran] & ~cond.has(state, side, cond.TWO_TURN_MOVE)
    # a called move and a locked one (Rage, Thrash / Petal Dance after the first use, a
    # trapping move held) use no PP
    deduct = (~caller & (ran != STRUGGLE) & ~cond.has(state, side, cond.RAGE)
              & ~cond.has(state, side, cond.LOCKED_MOVE)
              & ~cond.has(state, side, cond.TRAP_LOCK))
    which = jnp.where(failed, 0, jnp.where(charging, 1, 2))
    new = branches.switch(which, (lambda state, side, ran, caller, deduct: state, _charge,
                                  lambda state, side, ran, caller, deduct:
                                  _run(state, side, ran, deduct)),
                          state, side, ran, caller, deduct, result_shapes=state)
    return new, ran


def _charge(state: BattleState, side: jax.Array, move: jax.Array, caller: jax.Array,
            deduct: jax.Array) -> BattleState:
    """A two-turn move's first turn: it charges (no PP: a calling move's is given back)."""
    user, last = state.party[side, 0], state.last_slot[side]
    charged = cond.add_volatile(state, side, cond.TWO_TURN_MOVE, True)
    charged = cond.add_volatile(charged, side, cond.INVULNERABILITY, MOVE_INVULNERABLE[move])
    pp = charged.pp[side, user, last]
    given = jnp.where(caller, (pp + 1) % 64, pp)
    return charged.replace(
        last_used=put(charged.last_used, side, move),
        pp=put(charged.pp, (side, user, last), given),
        base_pp=put(charged.base_pp, (side, user, last),
            jnp.where(charged.transformed[side, user], charged.base_pp[side, user, last],
                      given)))


def _run(state: BattleState, side: jax.Array, move: jax.Array, deduct: jax.Array
         ) -> BattleState:
    """The move itself (after a two-turn move's charging turn, which it ends): PP (``deduct``),
    ``useMove`` and ``moveUsed``'s bookkeeping, then ``useMoveInner``."""
    foe = 1 - side
    user, target = state.party[side, 0], state.party[foe, 0]
    self_target = MOVE_SELF_TARGET[move]
    # a two-turn move's onTryMove: the charged move runs, out of reach no more
    state = cond.remove_volatile(state, side, cond.INVULNERABILITY, MOVE_TWO_TURN[move]
                                 & cond.has(state, side, cond.TWO_TURN_MOVE))
    state = cond.remove_volatile(state, side, cond.TWO_TURN_MOVE, True)
    state = _deduct_pp(state, side, ~deduct)
    # useMove: the side's and the Pokémon's last move (the typeless move stands for Fissure);
    # useMoveInner: most moves zero the last damage
    state = state.replace(
        last_used=put(state.last_used, side, move),
        last_move=put(state.last_move, (side, user), jnp.where(move == NO_MOVE, FISSURE, move)),
        last_damage=jnp.where(MOVE_KEEPS_LAST_DAMAGE[move], state.last_damage, 0))
    # a trapping move's onTryMove: the target's recharge is cancelled, hit or miss
    state = cond.remove_volatile(state, foe, MUST_RECHARGE, MOVE_TRAPS[move])
    state = branches.when(MOVE_LOCKS[move], _thrash, state, side, move)
    state, hit = _accuracy_check(state, side, move)
    # Counter's damageCallback fails unless the foe's last move (as used, and as shown) was a
    # Normal or Fighting damaging move other than Counter and the last damage is positive
    countered = ((state.last_enemy_selected[foe] != COUNTER) & (state.last_damage > 0)
                 & MOVE_COUNTERABLE[state.last_used[foe]])
    # a substitute takes a damaging move's hits and stops some status moves: the move then
    # does nothing more to the target
    behind_sub = cond.has(state, foe, cond.SUBSTITUTE) & ~self_target
    reaches = hit & ~(behind_sub & (MOVE_DAMAGING[move] | MOVE_SUB_BLOCKED[move]))
    state, broke = _hits(state, side, move,
                         hit & ((MOVE_FIXED[move] != FIXED_COUNTER) | countered))
    state = branches.when(hit & MOVE_TRAPS[move], _trap, state, side, move, hit, reaches)

    # Rage's self volatile (not when the hit broke a substitute): locked in, accuracy 255
    rages = hit & (move == RAGE) & ~broke & ~cond.has(state, side, cond.RAGE)
    state = cond.add_volatile(state, side, cond.RAGE, rages)
    state = state.replace(rage_accuracy=put(state.rage_accuracy, (side, user), 255, rages))

    # Bide's volatile (its onStart: random(2, 4) turns, nothing stored)
    bides = hit & (move == BIDE) & ~cond.has(state, side, cond.BIDE)
    state, turns = draw(state, bides, 2, 4)
    state = cond.add_volatile(state, side, cond.BIDE, bides)
    state = state.replace(bide_turns=put(state.bide_turns, (side, user), turns, bides))

    # Self-Destruct and Explosion: the user faints whatever happened, unless it broke a
    # substitute
    exploded = MOVE_SELFDESTRUCT[move] & ~broke
    state = state.replace(hp=put(state.hp, (side, user), 0, exploded))

    # Recover / Soft-Boiled (onHit), screens and Focus Energy (addVolatile) on the user
    user_hp, maxhp = state.hp[side, user], state.maxhp[side, user]
    heal_bug = ((user_hp == maxhp - 255) | (user_hp == maxhp - 511)) & (user_hp % 256 != 0)
    heals = hit & MOVE_HEAL_HALF[move] & (user_hp < maxhp) & ~heal_bug
    state = state.replace(hp=put(state.hp, (side, user),
        jnp.where(heals, jnp.minimum(user_hp + maxhp // 2, maxhp), user_hp)))
    state = cond.add_volatile(state, side, MOVE_VOLATILE[move], hit)
    state = cond.add_volatile(state, foe, cond.LEECH_SEED, reaches & MOVE_SEEDS[move])

    # the special onHit effects
    state = branches.switch(MOVE_EFFECT[move], _EFFECT_BRANCHES, state, side, hit,
                            result_shapes=state)

    # the move's own stat stages, status or confusion, or its chance secondary: only for the
    # moves that have one (for the others it draws nothing and changes nothing)
    state = branches.when(MOVE_HAS_EFFECT[move], _effect, state, side, move, hit, reaches,
                          behind_sub, broke)
    # AfterMoveSecondary: a move with a burn secondary thaws a frozen target
    state = cond.cure_status(state, foe, hit & MOVE_THAWS[move]
                             & (state.status[foe, target] == FRZ))
    # Hyper Beam: a recharge turn unless the target fell or its substitute broke
    state = cond.add_volatile(state, side, MUST_RECHARGE, hit & MOVE_RECHARGE[move] & ~broke
                              & (state.hp[foe, target] > 0))
    # useMoveInner: Self-Destruct, Explosion and Disable build a raging target's rage, hit or
    # miss
    state, _ = boost(state, foe, _RAGE_BOOST, (MOVE_SELFDESTRUCT[move] | (move == DISABLE))
                     & cond.has(state, foe, cond.RAGE))
    # MoveFail: Jump Kick / High Jump Kick crash for 1 HP
    crash = ~hit & MOVE_CRASH[move] & (state.hp[side, user] > 0)
    state = cond.self_damage(state, side, 1, crash)
    # AfterMove: a Thrash / Petal Dance lock whose uses ran out ends; a trapping lock's
    state = cond.end_lock(state, side, cond.has(state, side, cond.LOCKED_MOVE)
                          & (state.lock_turns[side, user] <= 0))
    return branches.when(cond.has(state, side, cond.TRAP_LOCK), _trap_after_move, state, side)


def _effect(state: BattleState, side: jax.Array, move: jax.Array, hit: jax.Array,
            reaches: jax.Array, behind_sub: jax.Array, broke: jax.Array) -> BattleState:
    """A move's own effect on stat stages, status or confusion, or its chance secondary, after
    its hits (``hit``: it hit; ``reaches``: it got past the target's substitute;
    ``behind_sub``: the target had one, ``broke``: a hit broke it)."""
    foe = 1 - side
    target = state.party[foe, 0]
    self_target = MOVE_SELF_TARGET[move]
    # a secondary: ceil(chance * 256 / 100) out of 256, if the target still stands; a
    # paralysis, burn or freeze secondary is not even rolled against a target of the move's type;
    # behind a substitute that holds, only a confusion secondary (the substitute's onTryHit)
    sec = MOVE_SECONDARY_CHANCE[move]
    sec_status = MOVE_SECONDARY_STATUS[move]
    sec_volatile = MOVE_SECONDARY_VOLATILE[move]
    same_type = jnp.any(state.types[foe, target] == MOVE_TYPE[move])
    typed_status = (sec_status == PAR) | (sec_status == BRN) | (sec_status == FRZ)
    past_sub = reaches | (hit & behind_sub & ~broke & (sec_volatile == cond.CONFUSION))
    roll = past_sub & (sec > 0) & (state.hp[foe, target] > 0) & ~(typed_status & same_type)
    state, lucky = chance(state, roll, sec, 256)

    # stat stages, a status, flinch or confusion: the move's own effect (stages on the user or
    # the target) or the secondary's (no move has both, nor both and a special effect, so one
    # call each serves both, in Showdown's order)
    primary = sec == 0
    stages = jnp.where(primary, MOVE_BOOSTS[move], MOVE_SECONDARY_BOOSTS[move])
    # Mist's onTryBoost: a status move of the foe lowers no stage
    misted = primary & ~self_target & ~MOVE_DAMAGING[move] & cond.has(state, foe, cond.MIST)
    stages = jnp.where(misted, jnp.maximum(stages, 0), stages)
    state, boosted = boost(state, jnp.where(primary & self_target, side, foe), stages,
                           jnp.where(primary, reaches, lucky) & jnp.any(stages != 0))
    state = cond.reapply_status_drops(state, foe, boosted)
    state = cond.add_volatile(state, side, MOVE_BOOST_VOLATILE[move], primary & boosted)
    status = jnp.where(primary, MOVE_STATUS[move], sec_status)
    sleep_move = primary & (status == SLP)
    state, put_to_sleep = cond.set_status(state, foe, status, jnp.where(primary, reaches, lucky),
                                          override=sleep_move & recharging(state, foe))
    state = cond.remove_volatile(state, foe, MUST_RECHARGE, put_to_sleep & sleep_move)
    state = cond.add_flinch(state, foe, lucky & (sec_volatile == cond.FLINCH))
    state = cond.add_confusion(state, foe, (reaches & MOVE_CONFUSES[move])
                               | (lucky & (sec_volatile == cond.CONFUSION)))
    return state


def _trap(state: BattleState, side: jax.Array, move: jax.Array, hit: jax.Array,
          reaches: jax.Array) -> BattleState:
    """A trapping move's ``moveHit`` after its damage: the target (not behind a substitute) is
    partially trapped; then the user's ``partialtrappinglock`` (``self``) if it has none: its
    ``sample([2, 2, 2, 3, 3, 3, 4, 5])`` duration, and unless the foe fell its onStart (the last
    damage kept to repeat, the foe held and partially trapped)."""
    foe = 1 - side
    user, target = state.party[side, 0], state.party[foe, 0]
    traps = hit & MOVE_TRAPS[move]
    state = cond.add_trapped(state, foe, traps & reaches)
    new = traps & ~cond.has(state, side, cond.TRAP_LOCK)
    state, k = draw(state, new, len(_HITS_SAMPLE))
    starts = new & (state.hp[foe, target] > 0)
    state = cond.add_volatile(state, side, cond.TRAP_LOCK, starts)

    def started(array, value):
        return put(array, (side, user), value, starts)

    state = state.replace(trap_turns=started(state.trap_turns, _HITS_SAMPLE[k]),
                          trap_total=started(state.trap_total, _HITS_SAMPLE[k]),
                          trap_damage=started(state.trap_damage, state.last_damage),
                          trap_target=started(state.trap_target, target))
    return cond.add_trapped(state, foe, starts)


def _trap_after_move(state: BattleState, side: jax.Array) -> BattleState:
    """``partialtrappinglock``'s ``onAfterMove``: it is deleted if the foe fell; on its last
    turn both Pokémon are fake-trapped (unless it lasts 5); otherwise the foe is partially
    trapped again, ``maybeLocked`` from the second turn on."""
    foe = 1 - side
    user, target = state.party[side, 0], state.party[foe, 0]
    holds = cond.has(state, side, cond.TRAP_LOCK)
    fell = state.hp[foe, target] <= 0
    state = cond.end_trap_lock(state, side, holds & fell)
    turns, total = state.trap_turns[side, user], state.trap_total[side, user]
    last = holds & ~fell & (turns == 1)
    state = cond.add_fake_trapped(state, side, last & (total != 5))
    state = cond.add_fake_trapped(state, foe, last & (total != 5))
    again = holds & ~fell & (turns != 1)
    state = cond.add_trapped(state, foe, again)
    return state.replace(trapped_maybe_locked=put(state.trapped_maybe_locked, (foe, target),
        state.trapped_maybe_locked[foe, target] | (again & (total - turns > 0))))


def _thrash(state: BattleState, side: jax.Array, move: jax.Array) -> BattleState:
    """Thrash / Petal Dance at the start of ``tryMoveHit`` (before anything can fail): the
    first use adds ``lockedmove`` (``random(2, 4)`` more uses, accuracy 255); a locked use
    counts one down, and the last one confuses the user anew (any confusion is replaced)."""
    user = state.party[side, 0]
    locks = MOVE_LOCKS[move]
    locked_in = locks & cond.has(state, side, cond.LOCKED_MOVE)
    left = state.lock_turns[side, user] - 1
    calms = locked_in & (left == 0)
    state = cond.remove_volatile(state, side, cond.CONFUSION, calms)
    state = cond.add_confusion(state, side, calms)
    starts = locks & ~locked_in
    state, turns = draw(state, starts, 2, 4)
    state = cond.add_volatile(state, side, cond.LOCKED_MOVE, starts)
    return state.replace(
        lock_turns=put(state.lock_turns, (side, user),
            jnp.where(starts, turns, jnp.where(locked_in, left, state.lock_turns[side, user]))),
        lock_accuracy=put(state.lock_accuracy, (side, user), 255, starts))


def _bide(state: BattleState, side: jax.Array) -> BattleState:
    """Bide's ``onBeforeMove`` (the last BeforeMove handler, priority 0) of a biding Pokémon,
    which always cancels the move: the last damage is added to the stored damage and a turn
    counted down; on the last turn Bide ends and, unless nothing was stored (``-fail``),
    ``moveHit`` deals twice the stored damage to the foe (no roll, no immunity, out of reach
    or not; a substitute takes it uncapped; a raging foe builds rage)."""
    foe = 1 - side
    user, target = state.party[side, 0], state.party[foe, 0]
    stored = state.bide_damage[side, user] + state.last_damage
    left = state.bide_turns[side, user] - 1
    state = state.replace(bide_damage=put(state.bide_damage, (side, user), stored),
                          bide_turns=put(state.bide_turns, (side, user), left))
    unleash = left == 0
    hits = unleash & (stored > 0)
    damage = 2 * stored
    sub = cond.has(state, foe, cond.SUBSTITUTE)
    state, _ = cond.hit_substitute(state, foe, damage, hits & sub)
    hp = state.hp[foe, target]
    dealt = jnp.where(hits & ~sub, jnp.minimum(damage, hp), 0)
    state = state.replace(hp=add_at(state.hp, (foe, target), -dealt),
                          last_damage=jnp.where(hits, jnp.where(sub, damage, dealt),
                                                state.last_damage))
    state, _ = boost(state, foe, _RAGE_BOOST, hits & ~sub & cond.has(state, foe, cond.RAGE))
    return cond.end_bide(state, side, unleash)


def use_move(state: BattleState, side: jax.Array) -> tuple[BattleState, jax.Array, jax.Array]:
    """``side``'s active Pokémon uses the move its side selected (``last_selected``: the chosen
    move, Struggle, or for the Fight button and a recharge turn the side's previous selection).
    Returns (state, the foe's active fainted, the user fainted)."""
    foe = 1 - side
    user, target = state.party[side, 0], state.party[foe, 0]
    move = state.last_selected[side]
    # ``cannotmove`` (after Haze) skips BeforeMove and the move: only AfterMoveSelf runs
    cannot = move == CANNOT_MOVE

    def before_move(state, side):
        state, cant, _ = cond.before_move(state, side)
        biding = ~cant & cond.has(state, side, cond.BIDE)
        return branches.when(biding, _bide, state, side), cant | biding

    state, cant = branches.cond(cannot, lambda state, side: (state, jnp.bool_(True)),
                                before_move, state, side, result_shapes=(state, cannot))
    state, ran = branches.cond(cant, lambda state, side, move: (state, move), _execute,
                               state, side, move, result_shapes=(state, move))
    # AfterMoveSelf: after a move if its target still stands, always after a cancelled one
    standing = jnp.where(MOVE_SELF_TARGET[ran], state.hp[side, user], state.hp[foe, target]) > 0
    state, _ = cond.after_move_self(state, side, standing | cant)
    return state, state.hp[foe, target] == 0, state.hp[side, user] == 0
