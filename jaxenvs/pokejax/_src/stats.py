"""Gen 1 stats as Showdown computes them (``Battle.statModify`` with the Gen 1-2 IV rule).

Showdown stores Gen 1 DVs as IVs = 2 * DV (it keeps ``IV & 30``) and stat experience as EVs
0-255 (it uses ``floor(EV / 4)``), then applies the modern formula, which for these inputs is
the Gen 1 one:

    HP    = floor((2 * base + IV + floor(EV / 4) + 100) * level / 100) + 10
    other = floor((2 * base + IV + floor(EV / 4)) * level / 100) + 5

Natures do not exist in Gen 1. Inputs are int arrays in ``STATS`` order (hp, atk, def, spa,
spd, spe), any leading shape; everything stays in int32 (the largest intermediate is < 2**17).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp


def calc_stats(base: jax.Array, ivs: jax.Array, evs: jax.Array, level: jax.Array) -> jax.Array:
    """int32[..., 6]: HP and the five other stats of Pokémon with these base stats, IVs
    (Showdown's 0-31 scale), EVs (0-255) and levels (``level`` has the leading shape)."""
    base = jnp.asarray(base, jnp.int32)
    ivs = jnp.asarray(ivs, jnp.int32) & 30
    evs = jnp.asarray(evs, jnp.int32)
    level = jnp.asarray(level, jnp.int32)[..., None]
    core = 2 * base + ivs + evs // 4
    is_hp = jnp.arange(6) == 0
    return jnp.where(is_hp, (core + 100) * level // 100 + 10, core * level // 100 + 5)


def dvs(ivs: jax.Array) -> jax.Array:
    """The Gen 1 DVs (0-15) that Showdown's IVs stand for."""
    return (jnp.asarray(ivs, jnp.int32) & 30) // 2
