"""What a side observes of the battle: an observation pytree with its legal-action mask.

``observe(state, side)`` returns a dict, the observing side first (row 0) and its foe second
(row 1), each side's six Pokémon in Showdown's party order (position 0 is the active one):

* ``action_mask`` bool[9]: the actions Showdown accepts from ``side`` now (``turn``'s action
  numbering: moves 1-4, then switches to party positions 2-6);
* ``species`` int32[2, 6] (0 = empty), ``types`` int32[2, 6, 2], ``moves`` int32[2, 6, 4]
  (Showdown ids, see ``data``);
* ``features`` float32[2, 6, 27] in [-1, 1]: present, active, fainted, HP / max HP,
  level / 100, status one-hot (brn, frz, par, psn, slp, tox), boosts / 6 (atk, def, spa, spd,
  spe, accuracy, evasion), modified stats / 999 (atk, def, spa, spd, spe), PP / max PP per
  move slot.

The foe is fully visible (a simplification: Showdown shows a player only what has been
revealed).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from gymnax.environments import spaces

from jaxenvs.pokejax.data import gen1
from jaxenvs.pokejax.state import STATUSES, BattleState
from jaxenvs.pokejax.turn import NUM_ACTIONS, legal_actions

NUM_FEATURES = 27


def observe(state: BattleState, side: int = 0) -> dict[str, jax.Array]:
    """The observation of ``side`` (0 = p1, 1 = p2)."""
    order = jnp.array([side, 1 - side])
    party = state.party[order]
    s = order[:, None]

    def take(x):
        return x[s, party]

    present = take(state.present)
    fainted = take(state.fainted)
    active = (jnp.arange(6) == 0)[None, :] & ~fainted & present
    status = take(state.status)
    maxhp = jnp.maximum(take(state.maxhp), 1)
    maxpp = jnp.maximum(take(state.maxpp), 1)
    features = jnp.concatenate([
        jnp.stack([present, active, fainted], -1).astype(jnp.float32),
        (take(state.hp) / maxhp)[..., None],
        (take(state.level) / 100)[..., None],
        (status[..., None] == jnp.arange(1, len(STATUSES))).astype(jnp.float32),
        take(state.boosts) / 6,
        take(state.mod_stats) / 999,
        take(state.pp) / maxpp,
    ], axis=-1).astype(jnp.float32)
    return {
        "action_mask": legal_actions(state)[side],
        "species": take(state.species),
        "types": take(state.types),
        "moves": take(state.moves),
        "features": features,
    }


def observation_space() -> spaces.Dict:
    data = gen1()
    return spaces.Dict({
        "action_mask": spaces.Box(False, True, (NUM_ACTIONS,), jnp.bool_),
        "species": spaces.Box(0, len(data.species_names) - 1, (2, 6), jnp.int32),
        "types": spaces.Box(0, len(data.type_names) - 1, (2, 6, 2), jnp.int32),
        "moves": spaces.Box(0, len(data.move_names) - 1, (2, 6, 4), jnp.int32),
        "features": spaces.Box(-1.0, 1.0, (2, 6, NUM_FEATURES), jnp.float32),
    })
