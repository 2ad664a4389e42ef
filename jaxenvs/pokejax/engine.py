"""Replaying Showdown trajectories in the JAX engine and finding the first divergence.

``replay(trajectory)`` starts the engine from the trajectory's teams and seed, feeds it the
choices Showdown's run made, and compares the engine's state with Showdown's report at every
decision (``compare``): turn, winner, requests and legal choices, party order, per Pokémon HP,
fainted and active flags, status, boosts, modified stats, volatiles and PP, and the PRNG:
the number of LCG outputs drawn so far and the last one. It returns a ``Divergence`` (the
step, the differences, Showdown's log of that step and its PRNG calls) or None.

Choices map to engine actions as ``move i`` -> i - 1 and ``switch j`` -> j + 2
(``turn.FIRST_SWITCH`` + j - 2).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Sequence

import jax
import numpy as np

from jaxenvs.pokejax import teams as tm
from jaxenvs.pokejax import turn
from jaxenvs.pokejax.state import (BOOSTS, NO_WINNER, P1, P2, REQ_MOVE, REQ_NONE, REQ_SWITCH,
                                   STATUSES, TIE, VOLATILES, BattleState, init_state)

_STAT_KEYS = ("atk", "def", "spa", "spd", "spe")
_REQUESTS = {REQ_NONE: None, REQ_MOVE: "move", REQ_SWITCH: "switch"}


def choice_to_action(choice: str) -> int:
    """Showdown's ``move i`` / ``switch j`` as an engine action."""
    kind, _, number = choice.partition(" ")
    n = int(number)
    return n - 1 if kind == "move" else turn.FIRST_SWITCH + n - 2


def action_to_choice(action: int) -> str:
    return f"move {action + 1}" if action < turn.FIRST_SWITCH else \
        f"switch {action - turn.FIRST_SWITCH + 2}"


@functools.cache
def jitted():
    """(start, step, legal_actions), compiled once per process."""
    return jax.jit(turn.start), jax.jit(turn.step), jax.jit(turn.legal_actions)


def initial_state(seed: Sequence[int], packed: Sequence[str]) -> BattleState:
    """The engine's battle for Showdown's seed and packed teams, leads out (turn 1)."""
    arrays = [tm.to_arrays(tm.parse(t)) for t in packed]
    return jitted()[0](init_state(arrays, seed))


def compare(state: BattleState, report: dict[str, Any], rng_calls: int,
            last_raw: int | None) -> list[str]:
    """Differences between the engine's state and a harness report (empty: equal).

    ``rng_calls`` is the number of LCG outputs Showdown drew up to this report and
    ``last_raw`` the last of them (None if none yet).
    """
    s = jax.tree_util.tree_map(np.asarray, state)
    out = []

    def check(what, ours, theirs):
        if ours != theirs:
            out.append(f"{what}: engine {ours!r}, showdown {theirs!r}")

    check("turn", int(s.turn), report["turn"])
    winner = {NO_WINNER: None, P1: "p1", P2: "p2", TIE: ""}[int(s.winner)]
    check("winner", winner, report["winner"] if report["ended"] else None)
    check("rng calls", int(s.rng_calls), rng_calls)
    if last_raw is not None:
        check("last rng output", int(s.rng[0]), last_raw)
    legal = np.asarray(jitted()[2](state))
    for k, side in enumerate(report["sides"]):
        sid = side["id"]
        req = side["request"]
        check(f"{sid} request", _REQUESTS[int(s.request[k])] if not report["ended"] else None,
              None if report["ended"] or not req or req["kind"] == "wait" else req["kind"])
        check(f"{sid} legal", [action_to_choice(a) for a in np.flatnonzero(legal[k])]
              if not report["ended"] else [], side["legal"])
        check(f"{sid} pokemon left", int(s.pokemon_left[k]), side["pokemon_left"])
        for pos, p in enumerate(side["pokemon"]):
            t = int(s.party[k, pos])
            who = f"{sid} pos {pos + 1} ({p['species']})"
            check(f"{who} team index", t, p["team_index"])
            if t != p["team_index"]:
                continue
            check(f"{who} hp", int(s.hp[k, t]), p["hp"])
            check(f"{who} fainted", bool(s.fainted[k, t]), p["fainted"])
            check(f"{who} active", pos == 0 and not s.fainted[k, t], p["active"])
            if not p["fainted"]:
                check(f"{who} status", STATUSES[int(s.status[k, t])], p["status"])
            check(f"{who} boosts", [int(v) for v in s.boosts[k, t]],
                  [p["boosts"][b] for b in BOOSTS])
            if p["modified_stats"]:
                check(f"{who} modified stats", [int(v) for v in s.mod_stats[k, t]],
                      [p["modified_stats"][x] for x in _STAT_KEYS])
            check(f"{who} stored stats", [int(v) for v in s.stats[k, t]],
                  [p["stored_stats"][x] for x in _STAT_KEYS])
            check(f"{who} volatiles", [v for i, v in enumerate(VOLATILES)
                                       if int(s.volatiles[k, t]) >> i & 1],
                  sorted(p["volatiles"], key=lambda v: (v not in VOLATILES, VOLATILES.index(v)
                                                       if v in VOLATILES else v)))
            check(f"{who} pp", [int(v) for v in s.pp[k, t, :len(p["moves"])]],
                  [m["pp"] for m in p["moves"]])
    return out


@dataclass
class Divergence:
    """The first decision at which the engine and Showdown differ."""

    step: int
    """Index of the decision (-1: the initial state, before any decision)."""
    choices: dict[str, str] | None
    differences: list[str]
    log: list[str]
    """Showdown's protocol lines of that step."""
    rng: list[dict[str, Any]] = field(default_factory=list)
    """Showdown's PRNG calls of that step."""

    def __str__(self) -> str:
        lines = [f"first divergence at decision {self.step} (choices {self.choices}):"]
        lines += [f"  {d}" for d in self.differences]
        lines += ["Showdown's log of that step:"] + [f"  {x}" for x in self.log]
        lines += ["Showdown's PRNG calls of that step:"]
        lines += [f"  {c['fn']}{tuple(c['args'])} -> {c['result']}  {c.get('caller', '')}"
                  for c in self.rng]
        return "\n".join(lines)


def replay(traj) -> tuple[Divergence | None, int]:
    """Replays a ``Trajectory`` (recorded with reports) in the engine; returns (the first
    divergence or None, decisions compared)."""
    state = initial_state(traj.seed, traj.teams)
    step = jitted()[1]
    calls, last = 0, None

    def advance(report):
        nonlocal calls, last
        for c in report["rng"]:
            calls += len(c["raw"])
            if c["raw"]:
                last = c["raw"][-1]

    advance(traj.initial)
    diff = compare(state, traj.initial, calls, last)
    if diff:
        return Divergence(-1, None, diff, traj.initial["log"], traj.initial["rng"]), 0
    for i, (choices, report) in enumerate(zip(traj.choices, traj.reports)):
        actions = [choice_to_action(choices[k]) if k in choices else 0 for k in ("p1", "p2")]
        state = step(state, np.asarray(actions, np.int32))
        advance(report)
        diff = compare(state, report, calls, last)
        if diff:
            return Divergence(i, choices, diff, report["log"], report["rng"]), i + 1
    return None, len(traj.reports)


def supported_team(rng: np.random.Generator, size: int = 6) -> list[tm.PokemonSet]:
    """A random legal team whose moves the engine supports: distinct species that learn at
    least one supported move, 1-4 of those moves each, levels 50-100, random DVs (the HP DV
    derived as in Gen 1) and stat experience."""
    from jaxenvs.pokejax.data import gen1
    from jaxenvs.pokejax.moves import SUPPORTED

    data = gen1()
    supported = np.array(sorted(data.move_index[m] for m in SUPPORTED if m != "struggle"))
    candidates = [s for s in range(1, len(data.species_names))
                  if data.learnable[s, supported].any()]
    team = []
    for s in rng.choice(candidates, size, replace=False):
        learn = supported[data.learnable[s, supported]]
        moves = rng.choice(learn, min(len(learn), int(rng.integers(1, 5))), replace=False)
        dv = rng.integers(0, 16, 6)
        dv[0] = (dv[1] % 2) * 8 + (dv[2] % 2) * 4 + (dv[5] % 2) * 2 + dv[3] % 2
        dv[4] = dv[3]
        evs = rng.integers(0, 256, 6)
        evs[4] = evs[3]
        team.append(tm.PokemonSet(species=data.species_names[s],
                                  moves=tuple(data.move_names[m] for m in moves),
                                  level=int(rng.integers(50, 101)),
                                  evs=tuple(int(v) for v in evs),
                                  ivs=tuple(int(2 * v + rng.integers(0, 2)) for v in dv)))
    return team
