"""Standard random-vs-random battles over the team pool: what the L3 comparison replays.

Battle ``i`` pits pool teams ``2i`` and ``2i + 1`` (mod the pool size) against each other, with
a battle seed and a policy seed derived from ``i`` by SHA-256, and both sides choosing
uniformly among their legal choices (Showdown's legal list, drawn in Node from the policy's own
Gen 5 LCG). ``random_battles`` plays them in the reference and yields the ``Trajectory`` of
each: choices, the report after every decision (state, log, every PRNG call).
``random_team_battles`` plays battles between random legal teams instead (and mirror matches),
``team_battles`` between given teams.
``save_trajectories``/``load_trajectories`` keep them as gzipped JSON lines.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path
from typing import Iterable, Iterator, Sequence

import numpy as np

from jaxenvs.pokejax import teams as tm
from jaxenvs.pokejax.data import team_pool
from jaxenvs.pokejax.reference.driver import ShowdownProcess, Trajectory


def _words(label: str) -> list[int]:
    digest = hashlib.sha256(label.encode()).digest()
    return [int.from_bytes(digest[k:k + 2], "big") for k in range(0, 8, 2)]


def battle_inputs(index: int) -> tuple[list[int], tuple[str, str], list[int]]:
    """(battle seed, (p1 packed team, p2 packed team), policy seed) of standard battle ``index``."""
    pool = team_pool()
    teams = (tm.packed(pool, 2 * index % len(pool)), tm.packed(pool, (2 * index + 1) % len(pool)))
    return _words(f"pokejax-battle-{index}"), teams, _words(f"pokejax-policy-{index}")


def random_battles(process: ShowdownProcess, indices: Iterable[int], record: bool = True,
                   callers: bool = False) -> Iterator[Trajectory]:
    """Plays the standard battles ``indices`` in the reference."""
    for i in indices:
        seed, teams, policy = battle_inputs(i)
        yield process.random_battle(seed, teams, policy_seed=policy, record=record,
                                    callers=callers)


def team_battles(process: ShowdownProcess, teams: Sequence[str], indices: Iterable[int],
                 format: str, record: bool = True) -> Iterator[Trajectory]:
    """The standard battles ``indices`` (their seeds and policy seeds) between packed
    ``teams`` instead of the pool's: battle ``i`` pits teams ``2i`` and ``2i + 1`` (mod their
    number), played in ``format``."""
    for i in indices:
        pair = (teams[2 * i % len(teams)], teams[(2 * i + 1) % len(teams)])
        yield process.random_battle(_words(f"pokejax-battle-{i}"), pair,
                                    policy_seed=_words(f"pokejax-policy-{i}"), format=format,
                                    record=record)


def random_team_battles(process: ShowdownProcess, n: int, seed: int, mirror: bool = False,
                        format: str = tm.FORMATS[0]) -> Iterator[Trajectory]:
    """Plays ``n`` battles between random legal teams of supported moves
    (``teams.supported_team``, for ``format``; Showdown plays the battle in that format), with
    battle, policy and team seeds drawn from ``numpy.random.default_rng(seed)``; with
    ``mirror``, both sides play the same team (speed ties, and so the event system's
    tie-break draws, are frequent)."""
    rng = np.random.default_rng(seed)
    for _ in range(n):
        packed = [tm.pack(tm.supported_team(rng, format=format)) for _ in range(2)]
        if mirror:
            packed[1] = packed[0]
        words = [int(w) for w in rng.integers(0, 1 << 16, 4)]
        policy = [int(w) for w in rng.integers(0, 1 << 16, 4)]
        yield process.random_battle(words, (packed[0], packed[1]), policy_seed=policy,
                                    format=format)


def save_trajectories(path: str | Path, trajectories: Iterable[Trajectory]) -> int:
    """Writes one JSON line per trajectory (gzipped); returns how many."""
    n = 0
    with gzip.open(path, "wt", encoding="utf-8") as f:
        for t in trajectories:
            f.write(json.dumps(t.__dict__, separators=(",", ":")) + "\n")
            n += 1
    return n


def load_trajectories(path: str | Path) -> list[Trajectory]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        out = []
        for line in f:
            fields = json.loads(line)
            fields["teams"] = tuple(fields["teams"])
            out.append(Trajectory(**fields))
        return out
