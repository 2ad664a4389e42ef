"""Gen 1 damage as Showdown's gen1 mod computes it (``BattleActions.getDamage``).

The order of PRNG calls is Showdown's: first the critical-hit roll ``randomChance(rate, 256)``
(only when the rate is positive), then, only when the damage before the roll exceeds 1, the
random factor ``random(217, 256)``; ``moves.use_move`` draws them and calls the pure functions
here (int32 arithmetic on scalars or arrays that broadcast).

Gen 1 specifics reproduced here:

* the crit rate comes from the attacker's *base* Speed: floor(base / 2), then doubled (capped
  at 255) or, under Focus Energy, halved (the cartridge bug); then halved for normal moves or
  multiplied by 4 (capped at 255) for high-crit moves;
* a critical hit doubles the level and uses the unmodified stats (no boosts, no screens);
* when attack or defense reach 256 both are divided by 4 and taken mod 256 (attack at least
  1; Showdown also keeps defense at least 1);
* STAB adds half; effectiveness is applied once per defending type, in the target's type
  order, each time as *20/10 or *5/10 with flooring;
* a damage of 0 after effectiveness is returned without the random roll.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxenvs.pokejax.data import gen1

#: The random factor's range: ``random(217, 256)`` gives 217..255.
MIN_ROLL, MAX_ROLL = 217, 255


def _chart(chart) -> jax.Array:
    return jnp.asarray(gen1().type_chart if chart is None else chart)


def immune(move_type: jax.Array, target_types: jax.Array, chart=None) -> jax.Array:
    """Showdown's ``runImmunity`` for a move's type against ``int[..., 2]`` target types
    (type 0 = none): some type takes no damage from it."""
    c = _chart(chart)
    target_types = jnp.asarray(target_types)
    return (c[move_type, target_types[..., 0]] == 0) | (c[move_type, target_types[..., 1]] == 0)


def type_modifiers(move_type: jax.Array, target_types: jax.Array, chart=None) -> jax.Array:
    """int32[..., 2]: Showdown's ``getEffectiveness`` (+1, 0, -1) against each target type."""
    mult = _chart(chart)[move_type, jnp.asarray(target_types)]
    return jnp.where(mult > 1, 1, jnp.where(mult < 1, -1, 0)).astype(jnp.int32)


def crit_chance(base_spe: jax.Array, focus_energy: jax.Array, crit_ratio: jax.Array
                ) -> jax.Array:
    """The numerator of the crit roll ``randomChance(rate, 256)`` (no roll when 0)."""
    rate = jnp.asarray(base_spe) // 2
    rate = jnp.where(focus_energy, rate // 2, jnp.clip(rate * 2, 1, 255))
    return jnp.where(crit_ratio == 1, rate // 2,
                     jnp.where(crit_ratio == 2, jnp.clip(rate * 4, 1, 255), rate))


def base_damage(level: jax.Array, base_power: jax.Array, attack: jax.Array,
                defense: jax.Array, crit: jax.Array, halve_defense: jax.Array = False
                ) -> jax.Array:
    """Damage before STAB, effectiveness and the random factor, from the stats already chosen
    for ``crit``; ``halve_defense`` is Self-Destruct and Explosion against Defense."""
    level = jnp.where(crit, level * 2, level) % 256
    big = (attack >= 256) | (defense >= 256)
    attack = jnp.where(big, jnp.maximum((attack // 4) % 256, 1), attack)
    defense = jnp.where(big, (defense // 4) % 256, defense)
    defense = jnp.where(defense == 0, 1, defense)
    defense = jnp.where(halve_defense, jnp.maximum(defense // 2, 1), defense)
    d = level * 2 // 5 + 2
    d = d * base_power * attack // defense
    return jnp.clip(d // 50, 0, 997) + 2


def modify_damage(damage: jax.Array, stab: jax.Array, modifiers: jax.Array) -> jax.Array:
    """STAB, then each type's effectiveness (``type_modifiers``) in the target's type order."""
    damage = jnp.where(stab, damage + damage // 2, damage)
    for k in range(2):
        mod = modifiers[..., k]
        damage = jnp.where(mod > 0, damage * 20 // 10,
                           jnp.where(mod < 0, damage * 5 // 10, damage))
    return damage


def pre_roll_damage(level, base_power, attack, defense, base_attack, base_defense, stab,
                    modifiers, crit, screen=False, halve_defense=False) -> jax.Array:
    """Everything before the random factor. ``attack``/``defense`` are the modified stats,
    ``base_*`` the unmodified ones (a crit uses those, and ignores the ``screen``, which
    doubles defense)."""
    attack = jnp.where(crit, base_attack, attack)
    defense = jnp.where(crit, base_defense, jnp.where(screen, defense * 2, defense))
    d = base_damage(level, base_power, attack, defense, crit, halve_defense)
    return modify_damage(d, stab, modifiers)


def apply_roll(damage: jax.Array, r: jax.Array) -> jax.Array:
    """The random factor ``r`` in 217..255 (used only when damage > 1)."""
    return jnp.where(damage > 1, damage * r // 255, damage)


def damage(level, base_power, attack, defense, base_attack, base_defense, stab, modifiers,
           crit, roll, screen=False, halve_defense=False) -> jax.Array:
    """Showdown's final damage for random factor ``roll`` (broadcasts over rolls)."""
    d = pre_roll_damage(level, base_power, attack, defense, base_attack, base_defense, stab,
                        modifiers, crit, screen, halve_defense)
    return apply_roll(d, jnp.asarray(roll))

