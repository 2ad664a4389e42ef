"""The PokeJAX environments: Gen 1 singles battles against an opponent policy, or self-play.

* ``PokeJAX`` (id "PokeJAX"): the agent plays p1 against the opponent policy
  ``params.opponent`` (``opponents``: 0 random legal, the default; 1 greedy max-damage;
  poke-env's 2 simple heuristics and 3 max base power players). Each ``step`` is one
  decision of the agent (``turn``'s nine actions: moves 1-4, switches to party positions
  2-6); the opponent (p2) decides with it from the step key, and when only the opponent has
  to choose (it replaces a fainted Pokémon while the agent waits) that decision is made in
  the same step. Reward: +1 for a win, -1 for a loss, 0 otherwise (a tie included).
  ``info`` names the decisions made: ``agent_action`` (after the replacement of a forbidden
  one; ``illegal_action`` says there was one) and ``opponent_actions`` int32[2] (the
  opponent's action with the agent's decision and in the opponent-alone decision after it;
  -1 where it made none).
* ``PokeJAX2P`` (id "PokeJAX2P"): self-play, in the convention of ``TCGJax2P``
  (``docs/self-play.md``): every ``step`` is one choice of the player ``obs["current_player"]``
  and the observation is that player's view. Where both players choose at once (Showdown takes
  the two choices before the turn runs), p1 chooses first and its choice is held, unseen by
  p2, until p2's step plays the turn; a player with nothing to choose (it waits while the foe
  replaces a fainted Pokémon) is not asked. ``reward`` is the reward of the player who just
  chose and ``info["rewards"]`` both players' (float32[2], zero-sum).

In both, an action the mask forbids (or outside 0..8) is replaced by the first legal one; the
episode terminates when the battle ends and is truncated after ``max_steps_in_episode``
steps. The observation is ``observe.observe``: what that player would know in Showdown, from
the ``observe.Revealed`` record the state carries.

At reset two teams are drawn from ``params`` (a pool of teams in ``teams.to_arrays`` form,
stacked) and the battle PRNG (Showdown's Gen 5 LCG) is seeded from the reset key, so an
episode is the Showdown battle with that seed and those teams. The default pool is the
10,000 ``gen1randombattle`` teams made by Showdown's own generator (``data.team_pool``);
``supported_pool`` makes random legal teams of every move the engine supports
(``moves.SUPPORTED``), a wider spread of moves than random battles use. User teams are given
with their format: ``make("PokeJAX", format="gen1ou", teams="my_teams.txt")`` (Showdown export
or packed text, or a file of it, checked by the format's validator rules; ``PokeJAXParams``).
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from gymnax.environments import spaces

from jaxenvs._src import branches, param_checks
from jaxenvs.environment import Environment
from jaxenvs.pokejax import teams as tm
from jaxenvs.pokejax._src import moves, observe, opponents, turn
from jaxenvs.pokejax._src.state import P1, P2, REQ_NONE, BattleState, init_state
from jaxenvs.pokejax.data import gen1, team_pool
from jaxenvs.pokejax.types import PokeJAXParams, PokeJAXState

@functools.cache
def default_teams() -> dict[str, jax.Array]:
    """The pool's teams as ``PokeJAXParams.teams`` holds them (one copy, so that a make with
    the default teams is recognised and not checked again)."""
    pool = team_pool()
    return {k: jnp.asarray(getattr(pool, k)) for k in tm.ARRAY_SHAPES}


def supported_pool(size: int = 256, seed: int = 0) -> dict[str, np.ndarray]:
    """A pool of ``size`` random legal six-Pokémon teams of supported moves."""
    rng = np.random.default_rng(seed)
    return tm.stack([tm.supported_team(rng) for _ in range(size)])


def new_episode(key: jax.Array, params: PokeJAXParams) -> PokeJAXState:
    """Two pool teams and a battle seed drawn from ``key``, leads out (turn 1)."""
    k_teams, k_seed = jax.random.split(key)
    n = params.teams["species"].shape[0]
    pick = jax.random.randint(k_teams, (2,), 0, n)
    teams = {k: params.teams[k][pick] for k in tm.ARRAY_SHAPES}
    words = jax.random.randint(k_seed, (4,), 0, 1 << 16)
    battle = turn.start(init_state(teams, words))
    return PokeJAXState(battle=battle,
                        revealed=observe.reveal(observe.nothing_revealed(), None, battle),
                        held=jnp.int32(-1), time=jnp.int32(0))


def decide(state: PokeJAXState, actions: jax.Array, battle_step=turn.step) -> PokeJAXState:
    """One decision step of the battle (``battle_step``: ``turn.step``, or
    ``turn.replace_fainted`` where only replacements are requested) and what it revealed."""
    battle = battle_step(state.battle, actions)
    return state.replace(battle=battle,
                         revealed=observe.reveal(state.revealed, state.battle, battle))


def legal_or_first(legal: jax.Array, action: jax.Array) -> tuple[jax.Array, jax.Array]:
    """``(action, was_illegal)``: ``action`` if ``legal`` (bool[9]) allows it, else the first
    legal one; ``was_illegal`` where it was forbidden while some action was legal (a player
    with nothing to choose, or a battle already over, forbids nothing)."""
    action = jnp.asarray(action, jnp.int32)
    ok = (action >= 0) & (action < turn.NUM_ACTIONS) & \
        legal[jnp.clip(action, 0, turn.NUM_ACTIONS - 1)]
    return jnp.where(ok, action, jnp.argmax(legal).astype(jnp.int32)), ~ok & jnp.any(legal)


def rewards(battle: BattleState) -> jax.Array:
    """float32[2]: +1 to the winner, -1 to the loser, 0 to both otherwise."""
    r = jnp.where(battle.winner == P1, 1.0, jnp.where(battle.winner == P2, -1.0, 0.0))
    return jnp.stack([r, -r]).astype(jnp.float32)


class _Base(Environment):
    #: A battle step runs the rules that apply to it (``Environment.loop_on_cpu``).
    loop_on_cpu = True
    #: Written for JAX's default 32-bit mode (``Environment.supports_x64``).
    supports_x64 = False
    #: ``teams`` may be a file of Showdown teams (``Environment.file_params``).
    file_params = ("teams",)

    @property
    def default_params(self) -> PokeJAXParams:
        return PokeJAXParams(teams=default_teams())

    def make_params(self, **overrides: Any) -> PokeJAXParams:
        """As ``Environment.make_params``; ``teams`` may also be user teams as text, a file or
        a list of them (``teams.load_teams``, read and checked for ``format``)."""
        if "teams" in overrides and not isinstance(overrides["teams"], dict):
            teams = tm.load_teams(overrides["teams"],
                                  overrides.get("format", self.default_params.format))
            overrides["teams"] = {k: jnp.asarray(v) for k, v in tm.stack(teams).items()}
        return super().make_params(**overrides)

    def check_params(self, params: PokeJAXParams) -> None:
        errors = []
        if params.format not in tm.FORMATS:
            errors.append(f"format {params.format!r} is none of {', '.join(tm.FORMATS)}")
        elif params.teams is default_teams():  # the pool, checked against Showdown
            if params.format != tm.FORMATS[0]:
                errors.append(f"format {params.format!r} plays the user's teams: give teams "
                              "(Showdown export or packed text, a file of it, or a list)")
        else:
            errors += tm.array_problems(params.teams, format=params.format)
            if not errors:
                names = gen1().move_names
                try:
                    moves.check_supported(names[m] for m in np.unique(params.teams["moves"]))
                except ValueError as e:
                    errors.append(str(e))
        errors += param_checks.errors(
            param_checks.integer(params, "opponent", 0, len(opponents.POLICIES) - 1),
            param_checks.integer(params, "max_steps_in_episode", 1))
        if errors:
            raise ValueError(f"Invalid {self.name} parameters: " + "; ".join(errors)
                             + f" (opponents: {dict(enumerate(opponents.POLICIES))})")

    def is_terminated(self, state: PokeJAXState, params: PokeJAXParams) -> jax.Array:
        return state.battle.ended

    @property
    def num_actions(self) -> int:
        return turn.NUM_ACTIONS


class PokeJAX(_Base):
    """Pokémon Showdown Gen 1 singles (``gen1randombattle`` rules), exact to Showdown 0.11.11
    for the supported moves; p1 is the agent, p2 an opponent policy (module docstring)."""

    @property
    def name(self) -> str:
        return "PokeJAX"

    def reset_env(self, key: jax.Array, params: PokeJAXParams):
        state = new_episode(key, params)
        return observe.observe(state.battle, state.revealed, 0), state

    def step_env(self, key: jax.Array, state: PokeJAXState, action: Any,
                 params: PokeJAXParams):
        mine, illegal = legal_or_first(turn.legal_actions(state.battle)[0], action)

        def opponent_action(k, battle):
            """The opponent's decision ``k`` of this step (from the step key), or -1 where it
            has nothing to choose."""
            legal = turn.legal_actions(battle)[1]
            action = opponents.act(params.opponent, jax.random.fold_in(key, k), battle, 1,
                                   legal)
            return jnp.where(jnp.any(legal), action, -1)

        # The agent's decision, with the opponent's.
        first = opponent_action(0, state.battle)
        state = decide(state, jnp.stack([mine, jnp.maximum(first, 0)]))
        # Then the opponent's alone, if it must replace a fainted Pokémon while the agent
        # waits: a switch turn only (the move turn's code would run too, masked, under vmap).
        alone = (state.battle.request[0] == REQ_NONE) & ~state.battle.ended
        second = jax.lax.cond(alone, lambda: opponent_action(1, state.battle),
                              lambda: jnp.int32(-1))
        state = branches.when(
            alone, lambda state, second: decide(state, jnp.stack([0, jnp.maximum(second, 0)]),
                                                turn.replace_fainted), state, second)
        opponent = jnp.stack([first, second])
        state = state.replace(time=state.time + 1)
        battle = state.battle
        info = {"agent_action": mine, "illegal_action": illegal, "opponent_actions": opponent}
        return (observe.observe(battle, state.revealed, 0), state, rewards(battle)[0],
                battle.ended, info)

    def action_space(self, params: PokeJAXParams | None = None) -> spaces.Discrete:
        return spaces.Discrete(turn.NUM_ACTIONS)

    def observation_space(self, params: PokeJAXParams | None = None) -> spaces.Dict:
        return observe.observation_space()


def current_player(state: PokeJAXState) -> jax.Array:
    """int32: the player to choose in ``PokeJAX2P``: p1 (0) while it has a choice to make and
    none held, else p2 (1). After a battle's end, 1 (it has nothing to choose)."""
    return jnp.where(jnp.any(turn.legal_actions(state.battle)[0]) & (state.held < 0), 0,
                     1).astype(jnp.int32)


class PokeJAX2P(_Base):
    """Pokémon Showdown Gen 1 singles, self-play: one player's choice per step (module
    docstring)."""

    num_players = 2

    @property
    def name(self) -> str:
        return "PokeJAX2P"

    def reset_env(self, key: jax.Array, params: PokeJAXParams):
        state = new_episode(key, params)
        return self.observe(state, current_player(state)), state

    def observe(self, state: PokeJAXState, player) -> dict[str, jax.Array]:
        """``player``'s (0: p1, 1: p2) view of the battle, with ``current_player``. Its
        ``action_mask`` allows nothing unless it is to choose; then its legal actions (action
        0 alone once the battle is over, so that a mask always allows one)."""
        player, current = jnp.asarray(player, jnp.int32), current_player(state)
        obs = observe.observe(state.battle, state.revealed, player)
        mask = obs["action_mask"] & (player == current)
        mask = mask | ((player == current) & ~jnp.any(mask)
                       & (jnp.arange(turn.NUM_ACTIONS) == 0))
        return {**obs, "action_mask": mask, "current_player": current}

    def step_env(self, key: jax.Array, state: PokeJAXState, action: Any,
                 params: PokeJAXParams):
        player = current_player(state)
        legal = turn.legal_actions(state.battle)
        chosen, illegal = legal_or_first(legal[player], action)
        # p1's choice is held until p2's, where p2 has one to make; then the battle steps.
        hold = (player == 0) & jnp.any(legal[1])
        actions = jnp.where(player == 0, jnp.stack([chosen, 0]),
                            jnp.stack([jnp.maximum(state.held, 0), chosen]))
        state = branches.when(~hold, decide, state, actions)
        state = state.replace(held=jnp.where(hold, chosen, -1).astype(jnp.int32),
                              time=state.time + 1)
        both = rewards(state.battle)
        info = {"rewards": both, "illegal_action": illegal}
        obs = self.observe(state, current_player(state))
        return obs, state, both[player], state.battle.ended, info

    def action_space(self, params: PokeJAXParams | None = None) -> spaces.Discrete:
        return spaces.Discrete(turn.NUM_ACTIONS)

    def observation_space(self, params: PokeJAXParams | None = None) -> spaces.Dict:
        return spaces.Dict({**observe.observation_space().spaces,
                            "current_player": spaces.Discrete(2)})
