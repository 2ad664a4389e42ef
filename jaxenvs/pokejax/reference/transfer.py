"""L4: one trained ``PokeJAX`` policy, its win rate in PokeJAX and in Pokémon Showdown, and the
TOST that the two are equivalent (margin 3 percentage points).

``python -m jaxenvs.pokejax.reference.transfer --checkpoint jaxenvs/pokejax/data/policy --battles 2000``

Both engines play the checkpoint's env (its team pool; the agent is p1) with the policy
against the uniformly random legal opponent, over independent battles:

* **PokeJAX**: the ``PokeJAX`` env itself, ``battles`` parallel envs from
  ``jax.random.key(seed)`` (``TrainedPolicy.env_wins``): teams, battle seed and opponent as
  the env draws them.
* **Showdown**: battle ``g`` pits two pool teams drawn uniformly (with replacement, as the env
  draws them) under a Gen 5 LCG seed of four uniform 16-bit words, all from
  ``np.random.default_rng(seed)``; the opponent (p2) picks uniformly among Showdown's legal
  choices (the report's ``legal``) with its own ``np.random.default_rng((seed, g))``. After
  every decision step the report becomes a ``BattleState`` (``state.from_report``, state
  injection), ``observe.reveal`` updates what each side has shown, and at each of the agent's
  decisions the same network is applied to ``observe.observe`` of that state, as in the env.
  As in the env's ``step``, an opponent-alone decision (p2 replaces a fainted Pokémon while
  p1 waits) belongs to the agent's step before it. Up to ``batch`` battles run in lock-step:
  one compiled call gives the logits of every battle waiting for the agent; a finished
  battle's place goes to the next one.

The policy samples its action from the network's masked softmax (``greedy``: the most likely
action); on the Showdown side with NumPy (``verify.transfer.sample_actions`` on
``np.random.default_rng((seed, battles))``, a stream apart from every opponent's), so no random
stream is shared with the JAX side.

A battle's sample is 1 if the agent won, else 0 (loss, tie, or not over within
``MAX_AGENT_STEPS`` agent decisions, in either engine alike); the win rates are compared by
``jaxenvs.verify.tost`` (Welch, alpha 0.05).
"""

from __future__ import annotations

import argparse
import json
import time
from collections import deque
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import jax
import numpy as np

from jaxenvs.pokejax._src import observe, opponents
from jaxenvs.pokejax._src.state import BattleState, from_report, init_state
from jaxenvs.pokejax.reference import ShowdownProcess
from jaxenvs.pokejax.reference.driver import SHOWDOWN_VERSION
from jaxenvs.pokejax.reference.replay import action_to_choice
from jaxenvs.pokejax.teams import from_arrays, pack
from jaxenvs.ppo.policy import TrainedPolicy
from jaxenvs.verify import tost
from jaxenvs.verify.transfer import TransferResult, sample_actions

ENV_ID = "PokeJAX"
#: Equivalence margin of the win rates (a fraction: 3 percentage points).
MARGIN = 0.03
#: Agent decisions after which a battle counts as not won, in both engines: six times the
#: trained policy's mean battle (~40 decisions against the random opponent).
MAX_AGENT_STEPS = 250
_TEAM_FIELDS = ("species", "moves", "level", "evs", "ivs")
#: The LCG state given to ``from_report``: the observation does not read the PRNG.
_NO_RNG = np.zeros(2, np.uint32)


def load(checkpoint: str | Path) -> TrainedPolicy:
    """The policy of a ``jaxenvs train PokeJAX`` checkpoint trained against the random
    opponent."""
    policy = TrainedPolicy.load(checkpoint, ENV_ID)
    if int(policy.env_params.opponent) != opponents.RANDOM:
        raise ValueError(f"{checkpoint}: trained against opponent "
                         f"{int(policy.env_params.opponent)}, not the random one "
                         f"({opponents.RANDOM})")
    return policy


def jax_wins(policy: TrainedPolicy, battles: int, seed: int, greedy: bool = False
             ) -> tuple[np.ndarray, int]:
    """``(wins, unfinished)`` of ``battles`` parallel ``PokeJAX`` episodes."""
    return policy.env_wins(battles, seed, MAX_AGENT_STEPS, greedy)


@partial(jax.jit, static_argnums=0)
def _logits(network, params, states: BattleState, revealed: observe.Revealed):
    """The network's masked logits on p1's observation of each of a batch of states."""
    def one(state, shown):
        (logits, _), _ = network.apply(params, observe.observe(state, shown, 0))
        return logits

    return jax.vmap(one)(states, revealed)


_first_reveal = jax.jit(lambda state: observe.reveal(observe.nothing_revealed(), None, state))
_reveal = jax.jit(observe.reveal)


@dataclass
class _Battle:
    """A Showdown battle in progress and the agent's view of it."""

    index: int
    battle: int
    """The harness's battle id."""
    teams: list[dict[str, np.ndarray]]
    initial: BattleState
    """``init_state`` of the teams: the base of every ``from_report`` of this battle."""
    opponent: np.random.Generator
    report: dict[str, Any]
    state: BattleState
    revealed: observe.Revealed
    agent_steps: int = 0

    def advance(self, process: ShowdownProcess, p1: str | None) -> None:
        """One decision step (p1's choice, or None while it waits) with the opponent's random
        legal choice, and the new state and what it revealed."""
        legal = self.report["sides"][1]["legal"]
        p2 = legal[self.opponent.integers(len(legal))] if legal else None
        self.report = process.choose(self.battle, p1, p2)
        state = from_report(self.report, self.teams, _NO_RNG, base=self.initial)
        self.revealed = _reveal(self.revealed, self.state, state)
        self.state = state

    def step(self, process: ShowdownProcess, action: int) -> None:
        """The agent's decision ``action``, then the opponent's alone while p1 waits (as in
        ``PokeJAX.step``)."""
        choice = action_to_choice(action)
        if choice not in self.report["sides"][0]["legal"]:
            raise RuntimeError(f"battle {self.index}: the observation's mask allows {choice}, "
                               f"Showdown only {self.report['sides'][0]['legal']}")
        self.advance(process, choice)
        self.agent_steps += 1
        while not self.report["ended"] and not self.report["sides"][0]["legal"]:
            self.advance(process, None)

    @property
    def over(self) -> bool:
        return self.report["ended"] or self.agent_steps >= MAX_AGENT_STEPS


def showdown_battles(battles: int, seed: int, pool_size: int
                     ) -> tuple[np.ndarray, np.ndarray]:
    """(team indices int[battles, 2], battle seeds int[battles, 4]) of the Showdown side."""
    rng = np.random.default_rng(seed)
    return (rng.integers(0, pool_size, (battles, 2)),
            rng.integers(0, 1 << 16, (battles, 4)))


def showdown_wins(policy: TrainedPolicy, battles: int, seed: int, greedy: bool = False,
                  batch: int = 256, process: ShowdownProcess | None = None
                  ) -> tuple[np.ndarray, int]:
    """``(wins, unfinished)`` of ``battles`` Showdown battles (module docstring), in a new
    Node process unless ``process`` is given. The network runs on batches of
    ``min(batch, battles)`` states (padded: one compiled shape)."""
    if process is None:
        with ShowdownProcess() as process:
            return showdown_wins(policy, battles, seed, greedy, batch, process)
    batch = min(batch, battles)
    pool = {k: np.asarray(policy.env_params.teams[k]) for k in _TEAM_FIELDS}
    picks, seeds = showdown_battles(battles, seed, len(pool["species"]))
    sampler = np.random.default_rng((seed, battles))
    queue = deque(range(battles))
    wins, unfinished = np.zeros(battles), 0

    def start(g: int) -> _Battle:
        teams = [{k: pool[k][t] for k in _TEAM_FIELDS} for t in picks[g]]
        packed = [pack(from_arrays(SimpleNamespace(**pool), t)) for t in picks[g]]
        battle, report = process.new_battle(*packed, seeds[g])
        initial = init_state(teams, _NO_RNG)
        state = from_report(report, teams, _NO_RNG, base=initial)
        return _Battle(g, battle, teams, initial, np.random.default_rng((seed, g)), report,
                       state, _first_reveal(state))

    running = [start(queue.popleft()) for _ in range(batch)]
    while running:
        states = [b.state for b in running] + [running[0].state] * (batch - len(running))
        shown = [b.revealed for b in running] + [running[0].revealed] * (batch - len(running))
        logits = np.asarray(_logits(policy.network, policy.params,
                                    *(jax.tree.map(lambda *xs: np.stack(xs), *group)
                                      for group in (states, shown))))[:len(running)]
        for b, action in zip(running, sample_actions(logits, sampler, greedy)):
            b.step(process, int(action))
        for b in [b for b in running if b.over]:
            wins[b.index] = b.report["winner"] == "p1"
            unfinished += not b.report["ended"]
            process.close_battle(b.battle)
            running.remove(b)
            if queue:
                running.append(start(queue.popleft()))
    return wins, unfinished


def compare(policy: TrainedPolicy, battles: int, seed: int = 0, greedy: bool = False,
            margin: float = MARGIN) -> TransferResult:
    """Play ``battles`` battles in each engine (seeds ``seed`` and ``seed + 1``; independent)
    and TOST their win rates with ``margin``."""
    start = time.perf_counter()
    ours, ours_cut = jax_wins(policy, battles, seed, greedy)
    mid = time.perf_counter()
    theirs, theirs_cut = showdown_wins(policy, battles, seed + 1, greedy)
    end = time.perf_counter()
    setting = {"env": ENV_ID, "opponent": "random legal", "agent": "p1",
               "teams": f"pool of {len(np.asarray(policy.env_params.teams['species']))}",
               "showdown": SHOWDOWN_VERSION, "max_agent_steps": MAX_AGENT_STEPS}
    return TransferResult(setting, "win rate", greedy, battles, float(ours.mean()),
                          float(theirs.mean()), tost(ours, theirs, margin),
                          mid - start, end - mid,
                          {"jax_unfinished": ours_cut, "showdown_unfinished": theirs_cut,
                           "jax_wins": int(ours.sum()), "showdown_wins": int(theirs.sum())})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", type=Path, required=True)
    parser.add_argument("--battles", type=int, default=2000, help="battles per engine")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--greedy", action="store_true", help="most likely action")
    parser.add_argument("--json", type=Path, default=None, help="write the result here")
    args = parser.parse_args()
    result = compare(load(args.checkpoint), args.battles, args.seed, args.greedy)
    print(f"{ENV_ID} (p1) against the random legal opponent, {result.setting['teams']} teams")
    print(result.summary(f"Showdown {SHOWDOWN_VERSION}"))
    print("battles cut at the decision limit: JAX {jax_unfinished}, Showdown "
          "{showdown_unfinished}".format(**result.extra))
    if args.json is not None:
        args.json.write_text(json.dumps(result.to_json(), indent=2) + "\n")


if __name__ == "__main__":
    main()
