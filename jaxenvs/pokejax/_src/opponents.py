"""Opponent policies for ``PokeJAX`` (``PokeJAXParams.opponent``): random legal and greedy.

* ``random_legal``: uniform over the legal actions.
* ``greedy``: the usable move with the highest expected damage to the foe's active Pokémon
  (``expected_damage``); a forced switch (the only legal actions are switches) is random
  legal. Ties, all-zero damage included, go to the first such move slot. The policy reads
  the full battle state (the foe's stats and types), as a scripted Showdown bot reads its
  own damage calculator.

``expected_damage`` evaluates the engine's damage formula (``damage.pre_roll_damage`` with
the move tables of ``moves``) at the average random factor, ``AVERAGE_ROLL``, as
P(hit) * ((1 - P(crit)) * min(no-crit damage, HP) + P(crit) * min(crit damage, HP)), with
Gen 1's 0-255 accuracy and crit chances; fixed-damage moves deal their amount, immune
targets and status moves 0.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxenvs._src import branches
from jaxenvs.pokejax._src import damage as dmg
from jaxenvs.pokejax._src import moves as mv
from jaxenvs.pokejax._src.state import VOLATILES, BattleState

#: The middle of the random factor's range 217..255.
AVERAGE_ROLL = (dmg.MIN_ROLL + dmg.MAX_ROLL) // 2
_REFLECT, _LIGHT_SCREEN, _FOCUS_ENERGY = (1 << VOLATILES.index(v)
                                          for v in ("reflect", "lightscreen", "focusenergy"))
RANDOM, GREEDY = 0, 1
#: ``PokeJAXParams.opponent`` values by name.
POLICIES = ("random", "greedy")


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


def greedy(key: jax.Array, state: BattleState, side: jax.Array, legal: jax.Array) -> jax.Array:
    """The legal move slot of highest expected damage, or a random legal switch when no move
    is legal (int32)."""
    score = jnp.where(legal[:4], expected_damage(state, side), -1.0)
    return jnp.where(jnp.any(legal[:4]), jnp.argmax(score).astype(jnp.int32),
                     random_legal(key, legal))


def act(policy: jax.Array, key: jax.Array, state: BattleState, side: jax.Array,
        legal: jax.Array) -> jax.Array:
    """The action of policy ``policy`` (``RANDOM`` or ``GREEDY``) for ``side``.

    A ``branches.cond_on_setting``: where the policy is shared by a batch (params not vmapped
    over), only that policy's computation runs."""
    return branches.cond_on_setting(jnp.asarray(policy) == GREEDY, greedy,
                         lambda key, state, side, legal: random_legal(key, legal),
                         key, state, side, legal, result_shapes=jnp.int32(0))
