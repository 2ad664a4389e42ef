"""Measure the reference engine: random-vs-random decisions per second and game statistics.

``python -m jaxenvs.tcgjax.reference.speed --games 720`` plays the games round-robin over
the 36 ordered pairings of the sample decks, one process, seeded ``PythonRandomSource``s
(game seed ``g``, policies ``10**6 + 2 g`` and ``10**6 + 2 g + 1``), and prints decisions per
second (every ``step``, setup and choices included, policy time included), game lengths, and
outcomes. ``--policy scripted`` makes player 0 the scripted heuristic.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import time

from jaxenvs.tcgjax.cards import sample_decks
from jaxenvs.tcgjax.reference.policies import RandomPolicy, ScriptedPolicy, play_game
from jaxenvs.tcgjax.constants import TURN_LIMIT
from jaxenvs.tcgjax.rng import PythonRandomSource


def measure(games: int, scripted: bool = False,
            pairs: list[tuple[str, str]] | None = None) -> dict:
    """Play ``games`` games (over ``pairs`` of deck names, default all 36 ordered pairings)
    and time them. ``agent_decisions_per_s`` counts player 0's decisions only: the steps of a
    ``TCGJax`` env whose agent holds seat 0."""
    decks = sample_decks()
    pairs = pairs or list(itertools.product(sorted(decks), repeat=2))
    decisions, turns, outcomes = [], [], {"p0": 0, "p1": 0, "first": 0, "draw": 0, "limit": 0}
    agent_decisions = 0

    def count_agent(game, _action):
        nonlocal agent_decisions
        agent_decisions += game.current_player == 0

    start = time.perf_counter()
    for g in range(games):
        d0, d1 = pairs[g % len(pairs)]
        p0 = ScriptedPolicy() if scripted else RandomPolicy(PythonRandomSource(10**6 + 2 * g))
        p1 = RandomPolicy(PythonRandomSource(10**6 + 2 * g + 1))
        game = play_game(decks[d0], decks[d1], PythonRandomSource(g), (p0, p1), count_agent)
        decisions.append(game.decisions)
        turns.append(game.turn)
        if game.winner is None:
            outcomes["draw"] += 1
            outcomes["limit"] += game.turn == TURN_LIMIT
        else:
            outcomes[f"p{game.winner}"] += 1
            outcomes["first"] += game.winner == game.first_player
    seconds = time.perf_counter() - start
    return {"games": games, "seconds": seconds, "decisions_per_s": sum(decisions) / seconds,
            "agent_decisions_per_s": agent_decisions / seconds,
            "games_per_s": games / seconds,
            "decisions": {"mean": statistics.mean(decisions),
                          "median": statistics.median(decisions),
                          "min": min(decisions), "max": max(decisions)},
            "turns": {"mean": statistics.mean(turns), "median": statistics.median(turns),
                      "min": min(turns), "max": max(turns)},
            "outcomes": outcomes}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=720)
    parser.add_argument("--policy", choices=("random", "scripted"), default="random",
                        help="player 0's policy (player 1 is random)")
    args = parser.parse_args()
    r = measure(args.games, args.policy == "scripted")
    print(f"{r['games']} games in {r['seconds']:.2f} s: {r['decisions_per_s']:,.0f} decisions/s, "
          f"{r['games_per_s']:.1f} games/s")
    for key in ("decisions", "turns"):
        s = r[key]
        print(f"{key} per game: mean {s['mean']:.1f}, median {s['median']}, "
              f"min {s['min']}, max {s['max']}")
    o = r["outcomes"]
    print(f"outcomes: P0 {o['p0']}, P1 {o['p1']}, draws {o['draw']} ({o['limit']} at the turn "
          f"limit); the first player won {o['first']}")


if __name__ == "__main__":
    main()
