"""What a player knows of the battle: the hidden-information observation and its action mask.

In Showdown a player sees its own team fully and of the foe only what the battle has shown:
the Pokémon that have been sent out (species, level, as ``|switch|`` shows them), the moves
they have used (``|move|``), their HP as the HP Percentage Mod reports it to the opponent,
their status, the active one's boosts and announced volatiles. What has been shown so far is
``Revealed``, public information kept beside the battle state (the env carries it) and
updated after every decision step by ``reveal(revealed, before, after)``: a Pokémon is revealed
when it is active after a step (every switch-in is still active at the end of its decision
step, fainted or not), a move slot when its PP went down (Showdown deducts PP exactly when it
prints the ``|move|`` line of a chosen move; a full paralysis or a recharge turn uses none and
shows no move).

``observe(state, revealed, side)`` returns a dict; row 0 is the observing side, row 1 its foe:

* ``action_mask`` bool[9]: the actions Showdown accepts from ``side`` now (``turn``'s action
  numbering: moves 1-4, then switches to party positions 2-6);
* ``species`` int32[2, 6] (0 = empty or unknown), ``types`` int32[2, 6, 2], ``moves``
  int32[2, 6, 4] (Showdown ids, see ``data``; a foe's move slot not yet used reads 0);
* ``features`` float32[2, 6, NUM_FEATURES] in [-1, 1], in this order: known (own: the slot
  holds a Pokémon; foe: revealed), active, fainted, HP fraction, level / 100, status one-hot
  (``STATUSES[1:]``: brn, frz, par, psn, slp, tox), boosts / 6 (``BOOSTS``: atk, def, spa,
  spd, spe, accuracy, evasion), ``VISIBLE_VOLATILES`` flags, modified stats / 999 (atk, def,
  spa, spd, spe), PP / max PP per move slot.

Rows: the observing side's Pokémon in Showdown's party order (row 0 is the active one); the
foe's active Pokémon in row 0, then its other revealed Pokémon in the order they first
appeared, then empty rows (all zero). For the foe, the HP fraction is Showdown's shared
percentage / 100 (``ceil(100 * hp / maxhp)``, 99 for a Pokémon not at full HP), PP is shown
for used slots only, and the modified stats (which depend on its hidden DVs and stat
experience) read 0. Nothing else about the foe enters the observation, so two battles that
differ only in what the foe has not shown give the same observation.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct
from gymnax.environments import spaces

from jaxenvs.pokejax._src.state import BOOSTS, STATUSES, VOLATILES, BattleState
from jaxenvs.pokejax._src.turn import NUM_ACTIONS, legal_actions
from jaxenvs.pokejax.data import gen1

#: Volatiles the protocol announces to both players (``|-start|``, ``|-mustrecharge|``) and
#: that last beyond the turn, in feature order (all of them ``state.VOLATILES``). Not here:
#: Flinch (shown only as ``|cant|``, gone at the end of the turn), Rage (Gen 1's rage lock
#: starts silently: only the ``|move|`` line shows Rage) and the Toxic counter
#: (``residualdmg``, never printed), nor the internal ones (``twoturnmove``, ``defensecurl``,
#: ``minimize``).
VISIBLE_VOLATILES = ("reflect", "lightscreen", "focusenergy", "mustrecharge", "confusion",
                     "substitute", "leechseed", "disable", "mist")
NUM_FEATURES = 5 + len(STATUSES) - 1 + len(BOOSTS) + len(VISIBLE_VOLATILES) + 5 + 4


@struct.dataclass
class Revealed:
    """What each side has shown its foe so far, indexed ``[side, team_index]`` (the knowledge
    of player ``1 - side`` about ``side``)."""

    order: jax.Array
    """int32[2, 6]: the rank of the Pokémon's first appearance (0 = the lead), -1 if not yet
    sent out."""
    moves: jax.Array
    """bool[2, 6, 4]: the move slot has been used."""


def nothing_revealed() -> Revealed:
    return Revealed(order=jnp.full((2, 6), -1, jnp.int32), moves=jnp.zeros((2, 6, 4), bool))


def reveal(revealed: Revealed, before: BattleState | None, after: BattleState) -> Revealed:
    """``revealed`` updated by a decision step from ``before`` to ``after`` (``before`` None:
    ``after`` is the start of the battle, leads out)."""
    sides = jnp.arange(2)
    active = after.party[:, 0]
    new = revealed.order[sides, active] < 0
    rank = jnp.sum(revealed.order >= 0, axis=1)
    order = revealed.order.at[sides, active].set(
        jnp.where(new, rank, revealed.order[sides, active]))
    used = revealed.moves if before is None else revealed.moves | (after.pp != before.pp)
    return Revealed(order=order, moves=used)


def shown_hp_percent(hp: jax.Array, maxhp: jax.Array) -> jax.Array:
    """The HP percentage Showdown's HP Percentage Mod shows the opponent (``getHealth``):
    ceil(100 * hp / maxhp), but 99 when not at full HP; 0 once fainted."""
    maxhp = jnp.maximum(maxhp, 1)
    percent = (100 * hp + maxhp - 1) // maxhp
    return jnp.where((percent == 100) & (hp < maxhp), 99, percent)


def _rows(state: BattleState, revealed: Revealed, side: int) -> jax.Array:
    """(int32[2, 6], bool[2, 6]): the team index shown in each row (own party order; the foe's
    active, then its revealed Pokémon by first appearance) and whether the row is known."""
    foe = 1 - side
    order = revealed.order[foe]
    active = state.party[foe, 0]
    key = jnp.where(jnp.arange(6) == active, -1, jnp.where(order >= 0, order, 6))
    foe_rows = jnp.argsort(key, stable=True).astype(jnp.int32)
    foe_known = jnp.sort(key) < 6
    own_known = state.present[side, state.party[side]]
    return (jnp.stack([state.party[side], foe_rows]),
            jnp.stack([own_known, foe_known]))


def observe(state: BattleState, revealed: Revealed, side: int = 0) -> dict[str, jax.Array]:
    """The observation of ``side`` (0 = p1, 1 = p2), given what each side has revealed."""
    rows, known = _rows(state, revealed, side)
    s = jnp.array([side, 1 - side])[:, None]
    is_foe = jnp.array([False, True])[:, None]

    def take(x):
        # the rows are in range: no clamping, which a CPU would pay at every gathered row
        shown = x.at[s, rows].get(mode="promise_in_bounds")
        return jnp.where(known.reshape(known.shape + (1,) * (shown.ndim - 2)), shown, 0)

    fainted = take(state.fainted)
    active = (jnp.arange(6) == 0)[None, :] & ~fainted & known
    status = take(state.status)
    hp, maxhp = take(state.hp), jnp.maximum(take(state.maxhp), 1)
    hp_fraction = jnp.where(is_foe, shown_hp_percent(hp, maxhp) / 100, hp / maxhp)
    used = jnp.where(is_foe[..., None], take(revealed.moves), True)
    volatiles = take(state.volatiles)
    visible = jnp.stack([(volatiles >> VOLATILES.index(v)) & 1 for v in VISIBLE_VOLATILES],
                        -1)
    pp = jnp.where(used, take(state.pp) / jnp.maximum(take(state.maxpp), 1), 0)
    features = jnp.concatenate([
        jnp.stack([known, active, fainted], -1).astype(jnp.float32),
        hp_fraction[..., None],
        (take(state.level) / 100)[..., None],
        (status[..., None] == jnp.arange(1, len(STATUSES))).astype(jnp.float32),
        take(state.boosts) / 6,
        visible.astype(jnp.float32),
        jnp.where(is_foe[..., None], 0, take(state.mod_stats) / 999),
        pp,
    ], axis=-1).astype(jnp.float32)
    return {
        "action_mask": legal_actions(state)[side],
        "species": take(state.species),
        "types": take(state.types),
        "moves": jnp.where(used, take(state.moves), 0),
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
