"""Opponent policies for ``PokeJAX`` (``PokeJAXParams.opponent``): random legal, greedy,
heuristic and max base power.

* ``random_legal``: uniform over the legal actions.
* ``greedy``: the usable move with the highest expected damage to the foe's active Pokémon
  (``expected_damage``); a forced switch (the only legal actions are switches) is random
  legal. Ties, all-zero damage included, go to the first such move slot. The policy reads
  the full battle state (the foe's stats and types), as a scripted Showdown bot reads its
  own damage calculator.
* ``heuristic``: poke-env's ``SimpleHeuristicsPlayer``, the baseline its users compare with,
  written from its description (``heuristic``).
* ``max_base_power``: poke-env's ``MaxBasePowerPlayer``: the legal move of highest base power
  (ties to the first slot), random legal when no move is legal.

``expected_damage`` evaluates the engine's damage formula (``damage.pre_roll_damage`` with
the move tables of ``moves``) at the average random factor, ``AVERAGE_ROLL``, as
P(hit) * ((1 - P(crit)) * min(no-crit damage, HP) + P(crit) * min(crit damage, HP)), with
Gen 1's 0-255 accuracy and crit chances; fixed-damage moves deal their amount, immune
targets and status moves 0.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxenvs._src import branches
from jaxenvs.pokejax._src import damage as dmg
from jaxenvs.pokejax._src import moves as mv
from jaxenvs.pokejax._src.state import VOLATILES, BattleState
from jaxenvs.pokejax._src.turn import FIRST_SWITCH
from jaxenvs.pokejax.data import gen1

#: The middle of the random factor's range 217..255.
AVERAGE_ROLL = (dmg.MIN_ROLL + dmg.MAX_ROLL) // 2
_REFLECT, _LIGHT_SCREEN, _FOCUS_ENERGY = (1 << VOLATILES.index(v)
                                          for v in ("reflect", "lightscreen", "focusenergy"))
RANDOM, GREEDY, HEURISTIC, MAX_BASE_POWER = 0, 1, 2, 3
#: ``PokeJAXParams.opponent`` values by name.
POLICIES = ("random", "greedy", "heuristic", "max_base_power")


def random_legal(key: jax.Array, legal: jax.Array) -> jax.Array:
    """A uniformly random legal action (int32)."""
    return jax.random.categorical(key, jnp.where(legal, 0.0, -jnp.inf)).astype(jnp.int32)


def expected_damage(state: BattleState, side: jax.Array) -> jax.Array:
    """float32[4]: the expected damage of each move slot of ``side``'s active Pokémon to the
    foe's active one (module docstring)."""
    foe = 1 - side
    user, target = state.party[side, 0], state.party[foe, 0]
    target_types = state.types[foe, target]
    hp = state.hp[foe, target]
    focus = (state.volatiles[side, user] & _FOCUS_ENERGY) > 0

    def one(move):
        mtype = mv.MOVE_TYPE[move]
        physical = mv.MOVE_PHYSICAL[move]
        a_stat, d_stat = jnp.where(physical, 0, 2), jnp.where(physical, 1, 3)
        stab = jnp.any(state.types[side, user] == mtype)
        screen = (state.volatiles[foe, target]
                  & jnp.where(physical, _REFLECT, _LIGHT_SCREEN)) > 0

        def dealt(crit):
            pre = dmg.pre_roll_damage(
                state.level[side, user], mv.MOVE_POWER[move],
                state.mod_stats[side, user, a_stat], state.mod_stats[foe, target, d_stat],
                state.base_stats[side, user, a_stat], state.base_stats[foe, target, d_stat], stab,
                dmg.type_modifiers(mtype, target_types), crit, screen,
                mv.MOVE_SELFDESTRUCT[move] & physical)
            return jnp.minimum(dmg.apply_roll(pre, AVERAGE_ROLL), hp)

        p_crit = dmg.crit_chance(state.base_spe[side, user], focus,
                                 mv.MOVE_CRIT_RATIO[move]) / 256
        fixed = mv.MOVE_FIXED[move]
        fixed_damage = jnp.where(fixed == mv.FIXED_LEVEL, state.level[side, user],
                                 jnp.where(fixed == mv.FIXED_HALF_HP, jnp.maximum(hp // 2, 1),
                                           fixed))
        amount = jnp.where(fixed == 0, (1 - p_crit) * dealt(False) + p_crit * dealt(True),
                           jnp.minimum(fixed_damage, hp))
        immune = ~mv.MOVE_IGNORE_IMMUNITY[move] & dmg.immune(mtype, target_types)
        damaging = (move > 0) & (mv.MOVE_POWER[move] > 0) & ~mv.MOVE_SELF_TARGET[move] & ~immune
        acc_pct = mv.MOVE_ACCURACY[move]
        p_hit = jnp.where(acc_pct > 0, mv.accuracy(acc_pct, state.boosts[side, user, 5],
                                                   state.boosts[foe, target, 6]) / 256, 1.0)
        return jnp.where(damaging, p_hit * amount, 0.0)

    return jax.vmap(one)(state.moves[side, user]).astype(jnp.float32)


def _best_move_or_random(key: jax.Array, legal: jax.Array, score: jax.Array) -> jax.Array:
    """The legal move slot of highest ``score`` (ties to the first), or a random legal action
    when no move is legal (int32)."""
    best = jnp.argmax(jnp.where(legal[:4], score, -jnp.inf)).astype(jnp.int32)
    return jnp.where(jnp.any(legal[:4]), best, random_legal(key, legal))


def greedy(key: jax.Array, state: BattleState, side: jax.Array, legal: jax.Array) -> jax.Array:
    """The legal move slot of highest expected damage, or a random legal switch when no move
    is legal (int32)."""
    return _best_move_or_random(key, legal, expected_damage(state, side))


#: The heuristic's weights, poke-env's: the speed tier and HP fraction terms of a matchup,
#: and the matchup under which the active Pokémon is switched out.
SPEED_TIER_WEIGHT, HP_FRACTION_WEIGHT, SWITCH_OUT_MATCHUP = 0.1, 0.4, -2.0
_ATK, _DEF, _SPA, _SPD = range(4)  # ``BOOSTS`` and ``stats`` order
_CHART = jax.device_put(gen1().type_chart)
_SPECIES_BASE = jax.device_put(gen1().base_stats[:, 1:])  # atk, def, spa, spd, spe
_ACCURACY = jax.device_put(np.where(gen1().move_accuracy > 0, gen1().move_accuracy / 100,
                                    1.0).astype(np.float32))
#: Gen 1's 2-5 hits (2, 3: 3/8 each; 4, 5: 1/8 each) hit 3 times on average.
_EXPECTED_2_TO_5_HITS = 3.0


def _multiplier(attack_type: jax.Array, defender_types: jax.Array) -> jax.Array:
    """The type effectiveness of ``attack_type`` against ``defender_types`` (0 if immune)."""
    return _CHART[attack_type, defender_types[0]] * _CHART[attack_type, defender_types[1]]


def _best_multiplier(attacker_types: jax.Array, defender_types: jax.Array) -> jax.Array:
    """The highest effectiveness of the attacker's own types (type 0, none, left out)."""
    return jnp.max(jnp.where(attacker_types > 0,
                             jax.vmap(_multiplier, (0, None))(attacker_types, defender_types),
                             -jnp.inf))


def matchup(state: BattleState, side: jax.Array, mon: jax.Array, foe_mon: jax.Array
            ) -> jax.Array:
    """poke-env's matchup estimate of ``side``'s team slot ``mon`` against the foe's ``foe_mon``:
    its types' best effectiveness on the foe minus the foe's on it, +-``SPEED_TIER_WEIGHT`` for
    the faster species (base Speed), plus ``HP_FRACTION_WEIGHT`` times its HP fraction minus
    the foe's."""
    foe = 1 - side
    types, foe_types = state.types[side, mon], state.types[foe, foe_mon]
    spe = _SPECIES_BASE[state.form[side, mon], 4]
    foe_spe = _SPECIES_BASE[state.form[foe, foe_mon], 4]
    hp = state.hp[side, mon] / state.maxhp[side, mon]
    foe_hp = state.hp[foe, foe_mon] / state.maxhp[foe, foe_mon]
    return (_best_multiplier(types, foe_types) - _best_multiplier(foe_types, types)
            + SPEED_TIER_WEIGHT * jnp.sign(spe - foe_spe) + HP_FRACTION_WEIGHT * (hp - foe_hp))


def _stat_estimate(state: BattleState, side: jax.Array, mon: jax.Array, stat: int
                   ) -> jax.Array:
    """poke-env's estimate of a stat from the species' base stat (IV 31, EV 5 points) and the
    stat stage's multiplier."""
    stage = state.boosts[side, mon, stat]
    multiplier = jnp.where(stage >= 0, (2 + stage) / 2, 2 / (2 - stage))
    return (2 * _SPECIES_BASE[state.form[side, mon], stat] + 36) * multiplier


def heuristic(key: jax.Array, state: BattleState, side: jax.Array, legal: jax.Array
              ) -> jax.Array:
    """poke-env's ``SimpleHeuristicsPlayer`` in Gen 1 (int32 action).

    * Switch out when a legal switch has a positive ``matchup`` and there is a reason: the
      active Pokémon's Defense or Special Defense stage is -3 or lower, or its Attack (or
      Special Attack) stage is when that is its higher stat, or its matchup is under
      ``SWITCH_OUT_MATCHUP``. Otherwise use a move if one is legal:
    * at full HP with a positive matchup, the first setup move (a self-targeting move whose
      stages add up to 2 or more, one of them still under +6);
    * else the move of highest base power x STAB 1.5 x (estimated attack / defence, physical
      or special) x accuracy x expected hits x type effectiveness (fixed-damage moves, whose
      base power is 0, score 0; ties go to the first slot).
    * With no legal move, the switch of best matchup; with neither, random legal.

    poke-env's entry-hazard rules have nothing to act on in Gen 1 (no Spikes, no Rapid Spin).
    It reads what Showdown shows p2 (the foe's species, types, HP and stat stages), with the
    foe's HP exact rather than in percent."""
    foe = 1 - side
    user, target = state.party[side, 0], state.party[foe, 0]
    moves = state.moves[side, user]
    move_legal, switch_legal = legal[:4], legal[4:]
    stages = state.boosts[side, user]
    stats = state.stats[side, user]
    active = matchup(state, side, user, target)
    switch_scores = jax.vmap(matchup, (None, None, 0, None))(state, side, state.party[side, 1:],
                                                             target)
    reason = ((stages[_DEF] <= -3) | (stages[_SPD] <= -3)
              | ((stages[_ATK] <= -3) & (stats[_ATK] >= stats[_SPA]))
              | ((stages[_SPA] <= -3) & (stats[_ATK] <= stats[_SPA]))
              | (active < SWITCH_OUT_MATCHUP))
    switch_out = reason & jnp.any(switch_legal & (switch_scores > 0))
    best_switch = FIRST_SWITCH + jnp.argmax(jnp.where(switch_legal, switch_scores, -jnp.inf))

    boosts = mv.MOVE_BOOSTS[moves]
    setup = (move_legal & mv.MOVE_SELF_TARGET[moves] & (jnp.sum(boosts, axis=1) >= 2)
             & (jnp.min(jnp.where(boosts > 0, stages, 6), axis=1) < 6))
    set_up = jnp.any(setup) & (state.hp[side, user] == state.maxhp[side, user]) & (active > 0)

    physical = (_stat_estimate(state, side, user, _ATK)
                / _stat_estimate(state, foe, target, _DEF))
    special = (_stat_estimate(state, side, user, _SPA)
               / _stat_estimate(state, foe, target, _SPD))
    move_types = mv.MOVE_TYPE[moves]
    hits = mv.MOVE_HITS[moves]
    score = (mv.MOVE_POWER[moves]
             * jnp.where(jnp.any(move_types[:, None] == state.types[side, user], axis=1),
                         1.5, 1.0)
             * jnp.where(mv.MOVE_PHYSICAL[moves], physical, special) * _ACCURACY[moves]
             * jnp.where(hits == mv.HITS_2_TO_5, _EXPECTED_2_TO_5_HITS, hits)
             * jax.vmap(_multiplier, (0, None))(move_types, state.types[foe, target]))
    best_move = jnp.where(set_up, jnp.argmax(setup),
                          jnp.argmax(jnp.where(move_legal, score, -jnp.inf)))
    use_move = jnp.any(move_legal) & ~(switch_out & jnp.any(switch_legal))
    return jnp.where(use_move, best_move,
                     jnp.where(jnp.any(switch_legal), best_switch,
                               random_legal(key, legal))).astype(jnp.int32)


def max_base_power(key: jax.Array, state: BattleState, side: jax.Array, legal: jax.Array
                   ) -> jax.Array:
    """poke-env's ``MaxBasePowerPlayer`` (int32 action; module docstring)."""
    return _best_move_or_random(key, legal, mv.MOVE_POWER[state.moves[side, state.party[side, 0]]])


def act(policy: jax.Array, key: jax.Array, state: BattleState, side: jax.Array,
        legal: jax.Array) -> jax.Array:
    """The action of policy ``policy`` (an index into ``POLICIES``) for ``side``.

    A ``branches.switch_on_setting``: where the policy is shared by a batch (params not
    vmapped over), only that policy's computation runs."""
    return branches.switch_on_setting(
        jnp.asarray(policy), (lambda key, state, side, legal: random_legal(key, legal), greedy,
                              heuristic, max_base_power),
        key, state, side, legal, result_shapes=jax.ShapeDtypeStruct((), jnp.int32))
