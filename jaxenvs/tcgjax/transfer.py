"""L4: one trained ``TCGJax`` policy, its win rate in the JAX env and in the reference engine,
and the TOST that the two are equivalent (margin 3 percentage points).

``python -m jaxenvs.tcgjax.transfer --checkpoint jaxenvs/tcgjax/data/policy --games 2000``

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
action); in the reference the sample is drawn with NumPy (Gumbel-max,
``np.random.default_rng(seed)``), so no random stream is shared with the JAX side.

A game's sample is 1 if the agent won, else 0 (loss or draw, e.g. at the turn limit); the
win rates are compared by ``jaxenvs.verify.tost`` (Welch, alpha 0.05).
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from jaxenvs.ppo.checkpoint import config_from_description, load_checkpoint
from jaxenvs.ppo.defaults import make_env
from jaxenvs.ppo.evaluate import episode_returns
from jaxenvs.ppo.train import make_network
from jaxenvs.tcgjax import convert, observe
from jaxenvs.tcgjax.cards import sample_decks
from jaxenvs.tcgjax.env import DECK_NAMES, opponent_action, play
from jaxenvs.tcgjax.reference import RandomPolicy, new_game, step
from jaxenvs.tcgjax.rng import PythonRandomSource
from jaxenvs.tcgjax.state import OVER, current_player
from jaxenvs.verify import TostResult, tost

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


@dataclass
class Policy:
    """A loaded checkpoint: the env it was trained on and its network."""

    env: object
    env_params: object
    network: object
    params: object

    @classmethod
    def load(cls, checkpoint: str | Path) -> "Policy":
        """The policy of a ``jaxenvs train TCGJax`` checkpoint (its parameters as nested
        dicts, which ``network.apply`` takes as they are: no template, so nothing to
        compile)."""
        params, description = load_checkpoint(checkpoint)
        if description["env_id"] != ENV_ID:
            raise ValueError(f"{checkpoint} was trained on {description['env_id']}, not "
                             f"{ENV_ID}")
        config = config_from_description(description)
        if config.normalize_observations:  # TCGJax observations have no floats to normalize
            raise ValueError(f"{checkpoint}: normalize_observations is not supported here")
        env, env_params = make_env(ENV_ID, **description["env_overrides"])
        if int(env_params.opponent) != 0:
            raise ValueError(f"{checkpoint}: trained against opponent "
                             f"{int(env_params.opponent)}, not the random one (0)")
        return cls(env, env_params, make_network(config, env, env_params), params)

    @property
    def seat(self) -> int:
        return int(self.env_params.agent_seat)

    @property
    def decks(self) -> tuple[str, str]:
        return DECK_NAMES[int(self.env_params.deck0)], DECK_NAMES[int(self.env_params.deck1)]


def jax_wins(policy: Policy, games: int, seed: int, greedy: bool = False) -> np.ndarray:
    """float[games]: 1 where the agent won, from ``games`` parallel ``TCGJax`` episodes."""
    returns = episode_returns(policy.network, policy.params, policy.env, policy.env_params,
                              jax.random.key(seed), games, MAX_AGENT_STEPS, greedy)
    if not np.all(np.isfinite(returns)):
        raise RuntimeError(f"{int(np.sum(~np.isfinite(returns)))} JAX games did not end within "
                           f"{MAX_AGENT_STEPS} agent decisions")
    return (returns > 0).astype(np.float64)


@partial(jax.jit, static_argnums=(0, 1, 2))
def _decide(network, seat: int, greedy: bool, params, states, keys):
    """One decision in every episode: the agent's (the network on its observation) where it
    is the agent's turn, else the env's random opponent's (``TCGJax.step``'s loop body)."""
    def one(state, key):
        (logits, _), _ = network.apply(params, observe.observation(state.game, seat))
        agent = jnp.argmax(logits) if greedy else jax.random.categorical(key, logits)
        agents_turn = current_player(state.game) == seat
        state = play(state, jnp.where(agents_turn, agent, opponent_action(state, 0)))
        return state.replace(opponent_decisions=state.opponent_decisions + ~agents_turn)

    return jax.vmap(one)(states, keys)


def jax_decision_wins(policy: Policy, games: int, seed: int, greedy: bool = False
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
            return (np.asarray(state.game.winner) == policy.seat).astype(np.float64)
        state = _decide(policy.network, policy.seat, greedy, policy.params, state,
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


def reference_wins(policy: Policy, games: int, seed: int, greedy: bool = False,
                   batch: int = 256) -> np.ndarray:
    """float[games]: 1 where the agent won, from ``games`` reference-engine games (module
    docstring). The network runs on batches of ``min(batch, games)`` states (padded: one
    compiled shape)."""
    batch = min(batch, games)
    decks = [sample_decks()[name] for name in policy.decks]
    deck_ids = (int(policy.env_params.deck0), int(policy.env_params.deck1))
    seat = policy.seat
    sampler = np.random.default_rng(seed)
    boards = [new_game(*decks, PythonRandomSource(reference_seed(seed, g, 0)))
              for g in range(games)]
    opponents = [RandomPolicy(PythonRandomSource(reference_seed(seed, g, 1)))
                 for g in range(games)]

    def until_agent(g):
        game = boards[g]
        while not game.over and game.current_player != seat:
            step(game, opponents[g](game))
        return not game.over

    waiting = [g for g in range(games) if until_agent(g)]
    while waiting:
        for start in range(0, len(waiting), batch):
            chunk = waiting[start:start + batch]
            states = [convert.from_game(boards[g], deck_ids) for g in chunk]
            states += states[:1] * (batch - len(chunk))
            stacked = jax.tree.map(lambda *xs: np.stack(xs), *states)
            logits = np.asarray(_logits(policy.network, seat, policy.params, stacked)
                                )[:len(chunk)]
            if not greedy:
                logits = logits + sampler.gumbel(size=logits.shape)
            for g, action in zip(chunk, np.argmax(logits, axis=1)):
                step(boards[g], int(action))
        waiting = [g for g in waiting if until_agent(g)]
    return np.array([game.winner == seat for game in boards], np.float64)


@dataclass
class TransferResult:
    """Both engines' win rates and their TOST."""

    decks: tuple[str, str]
    seat: int
    greedy: bool
    games: int
    jax_win_rate: float
    reference_win_rate: float
    tost: TostResult
    jax_seconds: float
    reference_seconds: float

    def to_json(self) -> dict:
        out = asdict(self)
        out["tost"] = asdict(self.tost)
        return out


def compare(policy: Policy, games: int, seed: int = 0, greedy: bool = False,
            margin: float = MARGIN) -> TransferResult:
    """Play ``games`` games in each engine (seeds ``seed`` and ``seed + 1``; independent) and
    TOST their win rates with ``margin``."""
    start = time.perf_counter()
    ours = jax_wins(policy, games, seed, greedy)
    mid = time.perf_counter()
    theirs = reference_wins(policy, games, seed + 1, greedy)
    end = time.perf_counter()
    return TransferResult(policy.decks, policy.seat, greedy, games, float(ours.mean()),
                          float(theirs.mean()), tost(ours, theirs, margin), mid - start,
                          end - mid)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", type=Path, required=True)
    parser.add_argument("--games", type=int, default=2000, help="games per engine")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--greedy", action="store_true", help="most likely action")
    parser.add_argument("--json", type=Path, default=None, help="write the result here")
    args = parser.parse_args()
    result = compare(Policy.load(args.checkpoint), args.games, args.seed, args.greedy)
    print(f"{result.decks[0]} (seat {result.seat}) vs {result.decks[1]}, random opponent, "
          f"{'greedy' if result.greedy else 'sampled'} policy, {result.games} games per engine")
    print(f"win rate: JAX {result.jax_win_rate:.4f} ({result.jax_seconds:.1f} s, compile "
          f"included), reference {result.reference_win_rate:.4f} "
          f"({result.reference_seconds:.1f} s)")
    print(result.tost)
    if args.json is not None:
        args.json.write_text(json.dumps(result.to_json(), indent=2) + "\n")


if __name__ == "__main__":
    main()
