"""The TCGJax environments: gymnax wiring around the JAX engine (``engine``).

* ``TCGJax`` (id "TCGJax"): the agent plays seat ``params.agent_seat`` against an opponent
  policy (``params.opponent``: 0 random legal, 1 the scripted heuristic; ``observe``), which
  moves inside ``step`` until the agent's next decision. Reward: +1 win, -1 loss, 0 draw, at
  the end only.
* ``TCGJax2P`` (id "TCGJax2P"): self-play; every decision is an env step of
  ``obs["current_player"]``, the observation is that player's view. ``reward`` is the reward of
  the player who just acted, ``info["rewards"]`` both players' (float32[2]).

Decks: ``params.decks`` is a pool of decks, by default the sample decks in sorted id order
(``DECK_NAMES``; 0 darkness-weezing-arbok-koga, 1 fire-charizard-moltres,
2 grass-venusaur-exeggutor, 3 lightning-pikachu-zapdos, 4 psychic-mewtwo-gardevoir,
5 water-blastoise); ``make("TCGJax", decks=...)`` takes any legal decks
(``cards.load_decks``; ``cards.random_decks`` makes random ones). ``params.deck0`` and
``params.deck1`` index the pool; -1 draws that player's deck from the pool at each reset.

The observation is ``observe.observation`` (documented there), with a boolean
``action_mask``. An action the mask forbids, or one outside ``0..NUM_ACTIONS-1``, is
replaced by the first legal action (as in PokeJAX), and ``info["illegal_action"]`` is True for
that step; the engine itself never sees an illegal action.

Randomness: ``reset`` splits its key into the game key (the game's random stream, ``rng.py``:
call k uses ``fold_in(game key, k)``) and the opponent's key (decision j of the random
opponent uses ``fold_in(opponent key, j)``); ``step`` draws nothing from its key.
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
from jaxenvs.tcgjax import actions as A
from jaxenvs.tcgjax._src import engine, observe
from jaxenvs.tcgjax._src.state import OVER, GameState, current_player, rewards
from jaxenvs.tcgjax._src.tables import NUM_CARDS, card_ids
from jaxenvs.tcgjax.cards import (DECK_SIZE, MAX_ENERGY_TYPES, Deck, deck_errors, load_decks,
                                  sample_decks)
from jaxenvs.tcgjax.effects import EType
from jaxenvs.tcgjax.types import TCGJaxParams, TCGJaxState

DECK_NAMES = tuple(sorted(sample_decks()))


def with_game(state: TCGJaxState, game: GameState) -> TCGJaxState:
    """``state`` with ``game`` and its legal actions."""
    return state.replace(game=game, mask=engine.legal_action_mask(game))


#: The shapes of a pool's arrays after its first axis (``TCGJaxParams.decks``).
POOL_SHAPES = {"cards": (DECK_SIZE,), "energy": (MAX_ENERGY_TYPES,), "num_energy": ()}


def deck_pool(decks: list[Deck]) -> dict[str, jax.Array]:
    """``decks`` as ``TCGJaxParams.decks`` holds them (``engine.deck_arrays`` of each)."""
    arrays = [engine.deck_arrays(d) for d in decks]
    return {name: jnp.asarray(np.stack([np.asarray(a[i], np.int32) for a in arrays]))
            for i, name in enumerate(POOL_SHAPES)}


@functools.cache
def default_decks() -> dict[str, jax.Array]:
    """The sample decks' pool (one copy, so that a make with it is not checked again)."""
    return deck_pool([sample_decks()[n] for n in DECK_NAMES])


def pool_problems(pool) -> list[str]:
    """Why ``pool`` is not a pool of legal decks as ``deck_pool`` makes them; [] if it is."""
    if not isinstance(pool, dict) or set(pool) != set(POOL_SHAPES):
        return [f"decks must be a list of decks or a dict of {sorted(POOL_SHAPES)} arrays"]
    arrays = {k: np.asarray(v) for k, v in pool.items()}
    n = len(arrays["num_energy"]) if arrays["num_energy"].ndim == 1 else -1
    bad = [k for k, shape in POOL_SHAPES.items()
           if arrays[k].shape != (n, *shape) or arrays[k].dtype != np.int32]
    if n < 1 or bad:
        return [f"decks arrays must be int32 of shapes [N, 20], [N, 3], [N] with N >= 1, "
                f"got {({k: (v.shape, str(v.dtype)) for k, v in arrays.items()})}"]
    problems = []
    for i in range(n):
        cards, energy, count = arrays["cards"][i], arrays["energy"][i], arrays["num_energy"][i]
        if not (np.all((cards >= 0) & (cards < NUM_CARDS)) and 1 <= count <= MAX_ENERGY_TYPES
                and np.all((energy[:count] >= 0) & (energy[:count] <= EType.METAL))
                and np.all(energy[count:] == -1)):
            problems.append(f"deck {i}: card indices or energy types out of range")
            continue
        errors = deck_errors([card_ids()[c] for c in cards],
                             [EType(t).name.capitalize() for t in energy[:count]])
        problems += [f"deck {i}: {e}" for e in errors]
    return problems


def sample_pair(params: TCGJaxParams) -> tuple[str, str] | None:
    """The two sample decks ``params`` plays (seat 0's, seat 1's), or None where it plays
    another pool or draws its decks at each reset."""
    default = default_decks()
    same = params.decks is default or all(
        np.array_equal(np.asarray(params.decks[k]), np.asarray(default[k])) for k in default)
    ids = int(params.deck0), int(params.deck1)
    return tuple(DECK_NAMES[i] for i in ids) if same and min(ids) >= 0 else None


#: ``fold_in(reset key, DECK_DRAW)`` draws the decks of -1 seats: a key apart from the game's and
#: the opponent's (the reset key's split), so that fixed decks play as they would without it.
DECK_DRAW = 2


def new_episode(key, params: TCGJaxParams) -> TCGJaxState:
    """A game of ``params``' decks at its first decision, with the episode's keys."""
    game_key, opponent_key = jax.random.split(key)
    pool = params.decks
    drawn = jax.random.randint(jax.random.fold_in(key, DECK_DRAW), (2,), 0,
                               pool["num_energy"].shape[0])
    ids = jnp.stack([jnp.asarray(params.deck0), jnp.asarray(params.deck1)]).astype(jnp.int32)
    ids = jnp.where(ids < 0, drawn, ids)
    game = engine.new_game(game_key, pool["cards"][ids], pool["energy"][ids],
                           pool["num_energy"][ids], ids, params.rule_options)
    return TCGJaxState(game=game, game_key=jax.random.key_data(game_key),
                       opponent_key=jax.random.key_data(opponent_key),
                       opponent_decisions=jnp.int32(0), time=jnp.int32(0),
                       mask=engine.legal_action_mask(game))


def legal_or_first(mask: jax.Array, action) -> tuple[jax.Array, jax.Array]:
    """``(action, was_illegal)``: ``action`` if ``mask`` (the legal actions) allows it, else
    the first legal one. That one is looked for only where it is needed (a branch,
    ``branches.when``): env by env, the search over the 68 actions would otherwise run at
    every step, for nothing where the action is legal."""
    action = jnp.asarray(action, jnp.int32)
    legal = (action >= 0) & (action < A.NUM_ACTIONS) & mask[jnp.clip(action, 0, A.NUM_ACTIONS - 1)]
    chosen = branches.when(~legal, lambda action, mask: jnp.argmax(mask).astype(jnp.int32),
                           action, mask)
    return chosen, ~legal


def play(state: TCGJaxState, action) -> TCGJaxState:
    """One decision of the current player (nothing once the game is over). A branch
    (``branches.when``): where envs step one by one (``Environment.loop_on_cpu``), a game that
    goes on runs the step alone, rather than the step and a select of its whole state."""
    def move(state, action):
        return with_game(state, engine.step(state.game, action,
                                            jax.random.wrap_key_data(state.game_key)))

    return branches.when(state.game.phase != OVER, move, state, action)


def opponent_action(state: TCGJaxState, opponent):
    """The opponent's decision (``params.opponent``: 0 random legal, 1 scripted)."""
    def scripted(state):
        return observe.scripted_action(state.game, state.mask)

    def random(state):
        key = jax.random.wrap_key_data(state.opponent_key)
        return observe.random_action(state.mask, key, state.opponent_decisions)

    return branches.switch_on_setting(opponent, (random, scripted), state,
                                      result_shapes=jax.ShapeDtypeStruct((), jnp.int32))


def opponent_places(state: TCGJaxState, seat, opponent) -> TCGJaxState:
    """At reset: the opponent places its Pokémon if it is the first to place (``engine.step``
    of a SETUP action is ``engine.setup_decision``, nothing else happens before the second
    player's placement; using it keeps the compiled reset small)."""
    def waiting(s):
        return current_player(s.game) != seat

    def move(s):
        game = engine.setup_decision(s.game, opponent_action(s, opponent))
        return with_game(s, game).replace(opponent_decisions=s.opponent_decisions + 1)

    return jax.lax.while_loop(waiting, move, state)


def agent_then_opponent(state: TCGJaxState, action, seat, opponent) -> TCGJaxState:
    """The agent's ``action``, then the opponent's decisions until the agent's next decision
    or the end (one loop, so the compiled step holds one copy of ``engine.step``). On a CPU
    each env runs its own loop (``Environment.loop_on_cpu``). Under ``vmap`` a batch runs as
    many iterations as its longest opponent turn, several times the mean, so each iteration
    moves only the envs still waiting for a decision (``branches.rarely``)
    (``docs/tcgjax.md``, "Speed")."""
    def waiting(carry):
        s, first = carry
        return first | ((s.game.phase != OVER) & (current_player(s.game) != seat))

    def chosen(first, s, action, opponent):
        # a branch: the agent's own move draws no opponent decision
        return branches.cond(first, lambda s, action, opponent: action,
                             lambda s, action, opponent: opponent_action(s, opponent),
                             s, action, opponent,
                             result_shapes=jax.ShapeDtypeStruct((), jnp.int32))

    def move(carry, action, opponent):
        s, first = carry
        s = play(s, chosen(first, s, action, opponent))
        return s.replace(opponent_decisions=s.opponent_decisions + ~first), jnp.bool_(False)

    return jax.lax.while_loop(
        waiting, lambda carry: branches.rarely(waiting(carry), move, carry, action, opponent),
        (state, jnp.bool_(True)))[0]


class _Base(Environment):
    #: A game step runs the rules that apply to it (``Environment.loop_on_cpu``).
    loop_on_cpu = True
    #: Its results, small multi-axis arrays, written as rows (``Environment.loop_rows``).
    loop_rows = True
    #: Written for JAX's default 32-bit mode (``Environment.supports_x64``).
    supports_x64 = False

    #: ``decks`` may be a JSON file of decks (``Environment.file_params``).
    file_params = ("decks",)

    @property
    def default_params(self) -> TCGJaxParams:
        return TCGJaxParams(decks=default_decks())

    def make_params(self, **overrides: Any) -> TCGJaxParams:
        """As ``Environment.make_params``; ``decks`` may also be a list of decks or a JSON
        file of them (``cards.load_decks``, each checked for legality)."""
        if "decks" in overrides and not isinstance(overrides["decks"], dict):
            overrides["decks"] = deck_pool(load_decks(overrides["decks"]))
        return super().make_params(**overrides)

    def check_params(self, params: TCGJaxParams) -> None:
        problems = [] if params.decks is default_decks() else pool_problems(params.decks)
        if problems:
            raise ValueError(f"Invalid {self.name} decks: " + "; ".join(problems))
        size = params.decks["num_energy"].shape[0]
        errors = param_checks.errors(
            *(param_checks.integer(params, name, -1, size - 1)
              for name in ("deck0", "deck1")),
            param_checks.integer(params, "agent_seat", 0, 1),
            param_checks.integer(params, "opponent", 0, 1),
            param_checks.integer(params, "max_steps_in_episode", 1),
            param_checks.integer(params, "turn_limit", 1, 1000),
            param_checks.boolean(params, "first_turn_draw"),
            param_checks.boolean(params, "first_turn_supporter"))
        if errors:
            raise ValueError(f"Invalid {self.name} parameters: " + "; ".join(errors)
                             + f" (decks: {self._deck_names(params)}, -1 drawn from them; "
                               f"opponents: 0 random, 1 scripted)")

    @staticmethod
    def _deck_names(params: TCGJaxParams) -> str:
        if params.decks is default_decks():
            return str(dict(enumerate(DECK_NAMES)))
        return f"0..{params.decks['num_energy'].shape[0] - 1} of the given pool"

    def is_terminated(self, state: TCGJaxState, params: TCGJaxParams) -> jax.Array:
        return state.game.phase == OVER

    @property
    def num_actions(self) -> int:
        return A.NUM_ACTIONS

    def action_space(self, params: TCGJaxParams | None = None) -> spaces.Discrete:
        return spaces.Discrete(A.NUM_ACTIONS)

    def observation_space(self, params: TCGJaxParams | None = None) -> spaces.Dict:
        return observe.observation_space()


class TCGJax(_Base):
    """Pokémon TCG Pocket, one seat against a random or scripted opponent (module docstring).
    """

    def reset_env(self, key, params: TCGJaxParams):
        state = opponent_places(new_episode(key, params), params.agent_seat, params.opponent)
        return observe.observation(state.game, params.agent_seat, state.mask), state

    def step_env(self, key, state: TCGJaxState, action, params: TCGJaxParams):
        action, illegal = legal_or_first(state.mask, action)
        state = agent_then_opponent(state.replace(time=state.time + 1), action,
                                    params.agent_seat, params.opponent)
        reward = rewards(state.game)[params.agent_seat]
        obs = observe.observation(state.game, params.agent_seat, state.mask)
        return obs, state, reward, state.game.phase == OVER, {"illegal_action": illegal}


class TCGJax2P(_Base):
    """Pokémon TCG Pocket, self-play: both seats act through ``step`` (module docstring)."""

    num_players = 2

    def reset_env(self, key, params: TCGJaxParams):
        state = new_episode(key, params)
        return observe.observation(state.game, current_player(state.game), state.mask), state

    def observe(self, state: TCGJaxState, player) -> dict:
        """``player``'s (seat 0 or 1) view of the game; its ``action_mask`` allows nothing
        unless it is to choose."""
        player = jnp.asarray(player, jnp.int32)
        return observe.observation(state.game, player,
                                   state.mask & (player == current_player(state.game)))

    def step_env(self, key, state: TCGJaxState, action, params: TCGJaxParams):
        mover = current_player(state.game)
        action, illegal = legal_or_first(state.mask, action)
        state = play(state, action).replace(time=state.time + 1)
        both = rewards(state.game)
        obs = observe.observation(state.game, current_player(state.game), state.mask)
        return obs, state, both[mover], state.game.phase == OVER, {"rewards": both,
                                                                   "illegal_action": illegal}

