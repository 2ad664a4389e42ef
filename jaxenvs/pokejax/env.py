"""The PokeJAX environment: a Gen 1 singles battle against a random-legal opponent.

The agent plays p1. Each ``step`` is one decision of the agent (``turn``'s nine actions: moves
1-4, switches to party positions 2-6); the opponent (p2) picks uniformly among its legal
actions from the step key, and when only the opponent has to choose (it replaces a fainted
Pokémon while the agent waits) that decision is made in the same step. An action the mask
forbids is replaced by the first legal one. Reward: +1 for a win, -1 for a loss, 0 otherwise
(a tie included); the episode terminates when the battle ends and is truncated after
``max_steps_in_episode`` decisions. ``info`` names the decisions made: ``agent_action`` (after
the replacement of a forbidden one) and ``opponent_actions`` int32[2] (the opponent's action
with the agent's decision and in the opponent-alone decision after it; -1 where it made none).

At reset two teams are drawn from ``params`` (a pool of teams in ``teams.to_arrays`` form,
stacked) and the battle PRNG (Showdown's Gen 5 LCG) is seeded from the reset key, so an
episode is the Showdown battle with that seed and those teams. The default pool holds random
legal teams of the moves the engine supports so far (``moves.SUPPORTED``); the
``gen1randombattle`` pool (``data.team_pool``) needs moves it does not support yet.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct
from gymnax.environments import spaces

from jaxenvs.environment import Environment
from jaxenvs.pokejax import engine, moves, observe, turn
from jaxenvs.pokejax import teams as tm
from jaxenvs.pokejax.data import gen1
from jaxenvs.pokejax.state import P1, P2, REQ_NONE, BattleState, init_state

_TEAM_FIELDS = ("species", "moves", "level", "evs", "ivs")


@struct.dataclass
class PokeJAXParams:
    """Team pool and episode limit."""

    teams: dict[str, jax.Array]
    """The pool: ``species`` uint8[N, 6], ``moves`` uint8[N, 6, 4], ``level`` uint8[N, 6],
    ``evs``/``ivs`` uint8[N, 6, 6] (``teams.to_arrays`` rows, stacked)."""
    max_steps_in_episode: int = 1000
    """Agent decisions before truncation."""


@struct.dataclass
class PokeJAXState:
    battle: BattleState
    time: jax.Array
    """int32: agent decisions so far."""


def supported_pool(size: int = 256, seed: int = 0) -> dict[str, np.ndarray]:
    """A pool of ``size`` random legal six-Pokémon teams of supported moves."""
    rng = np.random.default_rng(seed)
    rows = [tm.to_arrays(engine.supported_team(rng)) for _ in range(size)]
    return {k: np.stack([r[k] for r in rows]) for k in _TEAM_FIELDS}


def _random_legal(key: jax.Array, legal: jax.Array) -> jax.Array:
    return jax.random.categorical(key, jnp.where(legal, 0.0, -jnp.inf)).astype(jnp.int32)


class PokeJAX(Environment):
    """Pokémon Showdown Gen 1 singles (``gen1randombattle`` rules), exact to Showdown 0.11.11
    for the supported moves; p1 is the agent, p2 a uniformly random legal opponent."""

    @property
    def name(self) -> str:
        return "PokeJAX"

    @property
    def default_params(self) -> PokeJAXParams:
        return PokeJAXParams(teams={k: jnp.asarray(v) for k, v in supported_pool().items()})

    def check_params(self, params: PokeJAXParams) -> None:
        errors = []
        missing = [k for k in _TEAM_FIELDS if k not in params.teams]
        if missing:
            errors.append(f"teams lacks {', '.join(missing)}")
        else:
            species = np.asarray(params.teams["species"])
            if species.ndim != 2 or species.shape[1] != 6 or len(species) < 1:
                errors.append(f"teams['species'] must be [N >= 1, 6], got {species.shape}")
            elif not (species[:, 0] > 0).all():
                errors.append("every team needs a Pokémon in its first slot")
            names = gen1().move_names
            try:
                moves.check_supported(names[m] for m in np.unique(params.teams["moves"]))
            except ValueError as e:
                errors.append(str(e))
        if not 1 <= int(params.max_steps_in_episode) < 2**31:
            errors.append(f"max_steps_in_episode must be >= 1, got "
                          f"{params.max_steps_in_episode!r}")
        if errors:
            raise ValueError("Invalid PokeJAX parameters: " + "; ".join(errors))

    def reset_env(self, key: jax.Array, params: PokeJAXParams):
        k_teams, k_seed = jax.random.split(key)
        n = params.teams["species"].shape[0]
        pick = jax.random.randint(k_teams, (2,), 0, n)
        teams = {k: params.teams[k][pick] for k in _TEAM_FIELDS}
        words = jax.random.randint(k_seed, (4,), 0, 1 << 16)
        battle = turn.start(init_state(teams, words))
        state = PokeJAXState(battle=battle, time=jnp.int32(0))
        return observe.observe(battle, 0), state

    def step_env(self, key: jax.Array, state: PokeJAXState, action: Any,
                 params: PokeJAXParams):
        battle = state.battle
        legal = turn.legal_actions(battle)
        action = jnp.asarray(action, jnp.int32)
        mine = jnp.where(legal[0, jnp.clip(action, 0, turn.NUM_ACTIONS - 1)]
                         & (action >= 0) & (action < turn.NUM_ACTIONS),
                         action, jnp.argmax(legal[0]).astype(jnp.int32))

        def decide(k, carry):  # the agent's decision, then the opponent's alone if any
            battle, used = carry
            legal = turn.legal_actions(battle)
            opponent = _random_legal(jax.random.fold_in(key, k), legal[1])
            run = (k == 0) | ((battle.request[0] == REQ_NONE) & ~battle.ended)
            after = turn.step(battle, jnp.stack([jnp.where(k == 0, mine, 0), opponent]))
            battle = jax.tree_util.tree_map(lambda a, b: jnp.where(run, a, b), after, battle)
            return battle, used.at[k].set(jnp.where(run & jnp.any(legal[1]), opponent, -1))

        battle, opponent = jax.lax.fori_loop(0, 2, decide,
                                             (battle, jnp.full(2, -1, jnp.int32)))
        reward = jnp.where(battle.winner == P1, 1.0, jnp.where(battle.winner == P2, -1.0, 0.0))
        state = PokeJAXState(battle=battle, time=state.time + 1)
        info = {"agent_action": mine, "opponent_actions": opponent}
        return observe.observe(battle, 0), state, reward.astype(jnp.float32), battle.ended, info

    def is_terminated(self, state: PokeJAXState, params: PokeJAXParams) -> jax.Array:
        return state.battle.ended

    @property
    def num_actions(self) -> int:
        return turn.NUM_ACTIONS

    def action_space(self, params: PokeJAXParams | None = None) -> spaces.Discrete:
        return spaces.Discrete(turn.NUM_ACTIONS)

    def observation_space(self, params: PokeJAXParams | None = None) -> spaces.Dict:
        return observe.observation_space()
