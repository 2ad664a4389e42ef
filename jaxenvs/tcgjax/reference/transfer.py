"""L4: one trained ``TCGJax`` policy, its win rate in the JAX env and in the reference engine,
and the TOST that the two are equivalent (margin 3 percentage points).

``python -m jaxenvs.tcgjax.reference.transfer --checkpoint jaxenvs/tcgjax/data/policy --games 2000``

Both sides play the checkpoint's matchup (its env parameters: decks, agent seat) with the
policy against the uniformly random legal opponent, over independent games:

* **JAX**: the ``TCGJax`` env itself, ``games`` parallel envs from ``jax.random.key(seed)``
  (``jaxenvs.ppo.evaluate.episode_returns``).
* **Reference**: game ``g`` is ``reference.new_game`` drawing its shuffles, coins and Energy
  Zone from ``PythonRandomSource(reference_seed(seed, g, 0))`` and the opponent is the
  reference's ``RandomPolicy`` on ``PythonRandomSource(reference_seed(seed, g, 1))``. At each of
  the agent's decisions the reference state is converted (``convert.from_game``) and the agent's
  action comes from the same network applied to the same observation function the env uses
  (``observe.observation``). Games run in lock-step, so that one compiled call answers every
  game that waits for the agent.

The policy samples its action from the network's masked softmax (``greedy``: the most likely
action); in the reference the sample is drawn with NumPy (``verify.transfer.sample_actions``,
Gumbel-max on ``np.random.default_rng(seed)``), so no random stream is shared with the JAX side.

A game's sample is 1 if the agent won, else 0 (loss or draw, e.g. at the turn limit); the
win rates are compared by ``jaxenvs.verify.tost`` (Welch, alpha 0.05).
"""

from __future__ import annotations

import argparse
import json
import time
from functools import partial
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from jaxenvs.ppo.policy import TrainedPolicy
from jaxenvs.tcgjax._src import observe
from jaxenvs.tcgjax._src.state import OVER, current_player
from jaxenvs.tcgjax.cards import sample_decks
from jaxenvs.tcgjax.env import opponent_action, play, sample_pair
from jaxenvs.tcgjax.reference import RandomPolicy, convert, new_game, step
from jaxenvs.tcgjax.rng import PythonRandomSource
from jaxenvs.verify import tost
from jaxenvs.verify.transfer import TransferResult, sample_actions

ENV_ID = "TCGJax"
#: Equivalence margin of the win rates (a fraction: 3 percentage points).
MARGIN = 0.03
#: Agent decisions after which the JAX side counts a game as unfinished (an error): about three
#: times the longest game seen (a random agent against the random opponent: at most ~105).
MAX_AGENT_STEPS = 300
#: The same bound in decisions of both players (``jax_decision_wins``).
MAX_DECISIONS = 2 * MAX_AGENT_STEPS


def reference_seed(seed: int, game: int, role: int) -> int:
    """The ``PythonRandomSource`` seed of reference game ``game``: role 0 the game, 1 the
    opponent."""
    return 10**7 * (seed + 1) + 2 * game + role


def load(checkpoint: str | Path) -> TrainedPolicy:
    """The policy of a ``jaxenvs train TCGJax`` checkpoint trained against the random
    opponent."""
    policy = TrainedPolicy.load(checkpoint, ENV_ID)
    if int(policy.env_params.opponent) != 0:
        raise ValueError(f"{checkpoint}: trained against opponent "
                         f"{int(policy.env_params.opponent)}, not the random one (0)")
    return policy


def seat(policy: TrainedPolicy) -> int:
    """The agent's seat in the checkpoint's matchup."""
    return int(policy.env_params.agent_seat)


def decks(policy: TrainedPolicy) -> tuple[str, str]:
    """The names of the checkpoint's two decks (seat 0's, seat 1's): a fixed pair of sample
    decks, the matchups the transfer test plays."""
    pair = sample_pair(policy.env_params)
    if pair is None:
        raise ValueError("the transfer test plays a fixed pair of sample decks; this checkpoint "
                         "was trained on another pool or on decks drawn at each reset")
    return pair


def jax_wins(policy: TrainedPolicy, games: int, seed: int, greedy: bool = False
             ) -> np.ndarray:
    """float[games]: 1 where the agent won, from ``games`` parallel ``TCGJax`` episodes."""
    wins, unfinished = policy.env_wins(games, seed, MAX_AGENT_STEPS, greedy)
    if unfinished:
        raise RuntimeError(f"{unfinished} JAX games did not end within {MAX_AGENT_STEPS} "
                           f"agent decisions")
    return wins


@partial(jax.jit, static_argnums=(0, 1, 2))
def _decide(network, seat: int, greedy: bool, params, states, keys):
    """One decision in every episode: the agent's (the network on its observation) where it
    is the agent's turn, else the env's random opponent's (``TCGJax.step``'s loop body)."""
    def one(state, key):
        (logits, _), _ = network.apply(params, observe.observation(state.game, seat, state.mask))
        agent = jnp.argmax(logits) if greedy else jax.random.categorical(key, logits)
        agents_turn = current_player(state.game) == seat
        state = play(state, jnp.where(agents_turn, agent, opponent_action(state, 0)))
        return state.replace(opponent_decisions=state.opponent_decisions + ~agents_turn)

    return jax.vmap(one)(states, keys)


def jax_decision_wins(policy: TrainedPolicy, games: int, seed: int, greedy: bool = False
                      ) -> np.ndarray:
    """float[games]: as ``jax_wins``, but the episodes (``TCGJax.reset``, then the env's own
    ``play`` and ``opponent_action``) advance one decision per compiled call, driven from the
    host. The game, opponent and policy are those of ``TCGJax.step``, which holds a whole
    opponent turn in one loop and takes minutes to compile on 2 CPU cores; this compiles in
    well under a minute, for the fast tests."""
    reset_key, play_key = jax.random.split(jax.random.key(seed))
    _, state = jax.jit(jax.vmap(policy.env.reset, in_axes=(0, None)))(
        jax.random.split(reset_key, games), policy.env_params)
    for t in range(MAX_DECISIONS):
        if np.all(np.asarray(state.game.phase) == OVER):
            return (np.asarray(state.game.winner) == seat(policy)).astype(np.float64)
        state = _decide(policy.network, seat(policy), greedy, policy.params, state,
                        jax.random.split(jax.random.fold_in(play_key, t), games))
    raise RuntimeError(f"JAX games did not end within {MAX_DECISIONS} decisions")


@partial(jax.jit, static_argnums=(0, 1))
def _logits(network, seat: int, params, states):
    """The network's masked logits on the agent's observation of each of a batch of
    (converted reference) states."""
    def one(state):
        (logits, _), _ = network.apply(params, observe.observation(state, seat))
        return logits

    return jax.vmap(one)(states)


def reference_wins(policy: TrainedPolicy, games: int, seed: int, greedy: bool = False,
                   batch: int = 256) -> np.ndarray:
    """float[games]: 1 where the agent won, from ``games`` reference-engine games (module
    docstring). The network runs on batches of ``min(batch, games)`` states (padded: one
    compiled shape)."""
    batch = min(batch, games)
    chosen = [sample_decks()[name] for name in decks(policy)]
    deck_ids = (int(policy.env_params.deck0), int(policy.env_params.deck1))
    agent = seat(policy)
    sampler = np.random.default_rng(seed)
    boards = [new_game(*chosen, PythonRandomSource(reference_seed(seed, g, 0)))
              for g in range(games)]
    opponents = [RandomPolicy(PythonRandomSource(reference_seed(seed, g, 1)))
                 for g in range(games)]

    def until_agent(g):
        game = boards[g]
        while not game.over and game.current_player != agent:
            step(game, opponents[g](game))
        return not game.over

    waiting = [g for g in range(games) if until_agent(g)]
    while waiting:
        for start in range(0, len(waiting), batch):
            chunk = waiting[start:start + batch]
            states = [convert.from_game(boards[g], deck_ids) for g in chunk]
            states += states[:1] * (batch - len(chunk))
            stacked = jax.tree.map(lambda *xs: np.stack(xs), *states)
            logits = np.asarray(_logits(policy.network, agent, policy.params, stacked)
                                )[:len(chunk)]
            for g, action in zip(chunk, sample_actions(logits, sampler, greedy)):
                step(boards[g], int(action))
        waiting = [g for g in waiting if until_agent(g)]
    return np.array([game.winner == agent for game in boards], np.float64)


def compare(policy: TrainedPolicy, games: int, seed: int = 0, greedy: bool = False,
            margin: float = MARGIN) -> TransferResult:
    """Play ``games`` games in each engine (seeds ``seed`` and ``seed + 1``; independent) and
    TOST their win rates with ``margin``."""
    start = time.perf_counter()
    ours = jax_wins(policy, games, seed, greedy)
    mid = time.perf_counter()
    theirs = reference_wins(policy, games, seed + 1, greedy)
    end = time.perf_counter()
    setting = {"env": ENV_ID, "opponent": "random legal", "decks": decks(policy),
               "seat": seat(policy), "max_agent_steps": MAX_AGENT_STEPS}
    return TransferResult(setting, "win rate", greedy, games, float(ours.mean()),
                          float(theirs.mean()), tost(ours, theirs, margin),
                          mid - start, end - mid,
                          {"jax_wins": int(ours.sum()), "reference_wins": int(theirs.sum())})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", type=Path, required=True)
    parser.add_argument("--games", type=int, default=2000, help="games per engine")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--greedy", action="store_true", help="most likely action")
    parser.add_argument("--json", type=Path, default=None, help="write the result here")
    args = parser.parse_args()
    result = compare(load(args.checkpoint), args.games, args.seed, args.greedy)
    first, second = result.setting["decks"]
    print(f"{first} (seat {result.setting['seat']}) vs {second}, random opponent")
    print(result.summary("reference"))
    if args.json is not None:
        args.json.write_text(json.dumps(result.to_json(), indent=2) + "\n")


if __name__ == "__main__":
    main()
