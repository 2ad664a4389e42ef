"""Replaying Showdown trajectories in the JAX engine and finding the first divergence.

``replay(trajectory)`` starts the engine from the trajectory's teams and seed, feeds it the
choices Showdown's run made, and compares the engine's state with Showdown's report at every
decision (``compare``): turn, winner, requests and legal choices, party order, per Pokémon HP,
fainted and active flags, status and its counter, boosts, modified and stored stats, types,
species, volatiles (with the confusion counter and the substitute's HP), moves and PP, last
move; per side the last selected move and slot; Gen 1's last damage; and the PRNG: the number
of LCG outputs drawn so far and the last one. It returns a ``Divergence`` (the step, the
differences, Showdown's log of that step and its PRNG calls) or None. ``replay_many`` does the
same for many trajectories at once (``vmap``-ed batches).

Choices map to engine actions as ``move i`` -> i - 1 and ``switch j`` -> j + 2
(``turn.FIRST_SWITCH`` + j - 2).
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, Sequence

import jax
import numpy as np

from jaxenvs.pokejax import teams as tm
from jaxenvs.pokejax._src import turn
from jaxenvs.pokejax._src.state import (BOOSTS, NO_WINNER, P1, P2, PSEUDO_MOVES, REQ_MOVE, REQ_NONE,
                                        REQ_SWITCH, STATUSES, TIE, VOLATILES, BattleState,
                                        init_state)
from jaxenvs.pokejax.data import gen1

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


def _move_name(move: int) -> str:
    return PSEUDO_MOVES.get(move) or gen1().move_names[move]


def compare(state: BattleState, report: dict[str, Any], rng_calls: int,
            last_raw: int | None, legal: np.ndarray | None = None) -> list[str]:
    """Differences between the engine's state and a harness report (empty: equal).

    ``rng_calls`` is the number of LCG outputs Showdown drew up to this report and
    ``last_raw`` the last of them (None if none yet); ``legal`` is ``turn.legal_actions`` of
    the state if already computed.
    """
    legal = np.asarray(jitted()[2](state) if legal is None else legal).tolist()
    return _compare(_plain(state), report, rng_calls, last_raw, legal)


def _plain(state: BattleState) -> SimpleNamespace:
    """The state's fields as nested Python lists (fast to index)."""
    return SimpleNamespace(**{f.name: np.asarray(getattr(state, f.name)).tolist()
                              for f in dataclasses.fields(state)})


def _compare(s: SimpleNamespace, report: dict[str, Any], rng_calls: int,
             last_raw: int | None, legal: list) -> list[str]:
    """``compare`` on ``_plain`` fields and legal actions."""
    out = []

    def check(what, ours, theirs):
        if ours != theirs:
            out.append(f"{what}: engine {ours!r}, showdown {theirs!r}")

    check("turn", int(s.turn), report["turn"])
    winner = {NO_WINNER: None, P1: "p1", P2: "p2", TIE: ""}[int(s.winner)]
    check("winner", winner, report["winner"] if report["ended"] else None)
    check("last damage", int(s.last_damage), report["last_damage"])
    check("rng calls", int(s.rng_calls), rng_calls)
    if last_raw is not None:
        check("last rng output", s.rng[0], last_raw)
    for k, side in enumerate(report["sides"]):
        sid = side["id"]
        req = side["request"]
        check(f"{sid} request", _REQUESTS[int(s.request[k])] if not report["ended"] else None,
              None if report["ended"] or not req or req["kind"] == "wait" else req["kind"])
        check(f"{sid} legal", [action_to_choice(a) for a, ok in enumerate(legal[k]) if ok]
              if not report["ended"] else [], side["legal"])
        check(f"{sid} pokemon left", int(s.pokemon_left[k]), side["pokemon_left"])
        check(f"{sid} last selected move", _move_name(int(s.last_selected[k])),
              side["last_selected_move"])
        check(f"{sid} last selected slot", int(s.last_slot[k]),
              side["last_selected_move_slot"])
        for pos, p in enumerate(side["pokemon"]):
            t = int(s.party[k][pos])
            who = f"{sid} pos {pos + 1} ({p['species']})"
            check(f"{who} team index", t, p["team_index"])
            if t != p["team_index"]:
                continue
            check(f"{who} hp", int(s.hp[k][t]), p["hp"])
            check(f"{who} fainted", bool(s.fainted[k][t]), p["fainted"])
            check(f"{who} active", pos == 0 and not s.fainted[k][t], p["active"])
            if not p["fainted"]:
                check(f"{who} status", STATUSES[int(s.status[k][t])], p["status"])
                check(f"{who} status counter", int(s.status_turns[k][t]),
                      (p["status_state"] or {}).get("time", 0))
            check(f"{who} confusion counter", int(s.confusion_turns[k][t]),
                  (p["volatiles"].get("confusion") or {}).get("time", 0))
            check(f"{who} substitute hp", int(s.sub_hp[k][t]),
                  (p["volatiles"].get("substitute") or {}).get("hp", 0))
            check(f"{who} toxic counter", int(s.toxic_counter[k][t]),
                  (p["volatiles"].get("residualdmg") or {}).get("counter", 0))
            check(f"{who} rage accuracy", int(s.rage_accuracy[k][t]),
                  (p["volatiles"].get("rage") or {}).get("accuracy", 0))
            foe_id = report["sides"][1 - k]["id"]
            trap = p["volatiles"].get("partialtrappinglock") or {}
            check(f"{who} trap lock", (int(s.trap_turns[k][t]), int(s.trap_total[k][t]),
                                       int(s.trap_damage[k][t]),
                                       f"{foe_id}:{s.trap_target[k][t]}" if trap else None),
                  (trap.get("duration", 0), trap.get("totalDuration", 0), trap.get("damage", 0),
                   trap.get("locked")))
            trapped = p["volatiles"].get("partiallytrapped") or {}
            check(f"{who} trapped", (int(s.trapped_turns[k][t]),
                                     bool(s.trapped_maybe_locked[k][t]),
                                     f"{foe_id}:{s.trapped_by[k][t]}" if trapped else None),
                  (trapped.get("duration", 0), bool(trapped.get("maybeLocked")),
                   trapped.get("source")))
            check(f"{who} fake trap", int(s.fake_trap_turns[k][t]),
                  (p["volatiles"].get("fakepartiallytrapped") or {}).get("duration", 0))
            bide = p["volatiles"].get("bide") or {}
            check(f"{who} bide", (int(s.bide_damage[k][t]), int(s.bide_turns[k][t])),
                  (bide.get("damage", 0), bide.get("time", 0)))
            lock = p["volatiles"].get("lockedmove") or {}
            check(f"{who} locked move", (int(s.lock_turns[k][t]), int(s.lock_accuracy[k][t])),
                  (lock.get("time", 0), lock.get("accuracy", 0)))
            disable = p["volatiles"].get("disable") or {}
            check(f"{who} disable", (_move_name(int(s.disable_move[k][t])) or None,
                                     int(s.disable_slot[k][t]), int(s.disable_turns[k][t])),
                  (disable.get("move"), disable.get("slotIndex", 0), disable.get("time", 0)))
            check(f"{who} boosts", [int(v) for v in s.boosts[k][t]],
                  [p["boosts"][b] for b in BOOSTS])
            if p["modified_stats"]:
                check(f"{who} modified stats", [int(v) for v in s.mod_stats[k][t]],
                      [p["modified_stats"][x] for x in _STAT_KEYS])
            check(f"{who} stored stats", [int(v) for v in s.stats[k][t]],
                  [p["stored_stats"][x] for x in _STAT_KEYS])
            check(f"{who} types", [gen1().type_names[int(v)] for v in s.types[k][t] if v],
                  p["types"])
            check(f"{who} transformed", bool(s.transformed[k][t]), p["transformed"])
            check(f"{who} species", gen1().species_names[int(s.form[k][t])], p["species"])
            check(f"{who} volatiles", [v for i, v in enumerate(VOLATILES)
                                       if int(s.volatiles[k][t]) >> i & 1],
                  sorted(p["volatiles"], key=lambda v: (v not in VOLATILES, VOLATILES.index(v)
                                                       if v in VOLATILES else v)))
            check(f"{who} moves", [_move_name(int(v)) for v in s.moves[k][t][:len(p["moves"])]],
                  [m["id"] for m in p["moves"]])
            check(f"{who} pp", [int(v) for v in s.pp[k][t][:len(p["moves"])]],
                  [m["pp"] for m in p["moves"]])
            check(f"{who} last move", _move_name(int(s.last_move[k][t])) or None,
                  p["last_move"])
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


def _rng_progress(reports: Sequence[dict[str, Any]]) -> list[tuple[int, int | None]]:
    """(LCG outputs drawn so far, the last one) after each report."""
    calls, last, out = 0, None, []
    for report in reports:
        for c in report["rng"]:
            calls += len(c["raw"])
            if c["raw"]:
                last = c["raw"][-1]
        out.append((calls, last))
    return out


def _actions(choices: dict[str, str]) -> list[int]:
    return [choice_to_action(choices[k]) if k in choices else 0 for k in ("p1", "p2")]


#: ``replay_many`` runs battles in batches of this many, this many decisions per call (fixed
#: shapes: one compilation).
BATCH, CHUNK = 64, 64


@functools.cache
def _batched():
    """jit(vmap) of the battle start and of ``CHUNK`` decisions (a ``lax.scan`` of
    ``turn.step``) returning every state and its legal actions; a finished battle ignores
    further steps."""
    def start(teams, seed):
        state = turn.start(init_state(teams, seed))
        return state, turn.legal_actions(state)

    def chunk(state, actions):
        def body(state, a):
            state = turn.step(state, a)
            return state, (state, turn.legal_actions(state))

        return jax.lax.scan(body, state, actions)

    return jax.jit(jax.vmap(start)), jax.jit(jax.vmap(chunk))


def warm_up() -> None:
    """Compiles ``replay_many``'s batched functions (on two pool teams), e.g. while Showdown
    records the battles to compare."""
    from jaxenvs.pokejax.data import team_pool

    pool = team_pool()
    pair = [tm.to_arrays(tm.parse(tm.packed(pool, k))) for k in (0, 1)]
    teams = {key: np.stack([np.stack([a[key] for a in pair])] * BATCH) for key in pair[0]}
    start, chunk = _batched()
    state, _ = start(teams, np.ones((BATCH, 4), np.int32))
    jax.block_until_ready(chunk(state, np.zeros((BATCH, CHUNK, 2), np.int32)))


def step_many(states: Sequence[BattleState], actions: np.ndarray
              ) -> list[tuple[BattleState, np.ndarray]]:
    """One decision (``actions[k]``, int[2]) from each of ``states``, with the legal actions
    after it, through ``replay_many``'s compiled batch (any number of states)."""
    _, chunk = _batched()
    out = []
    for k in range(0, len(states), BATCH):
        part = list(states[k:k + BATCH])
        batch = jax.tree_util.tree_map(lambda *xs: np.stack(xs),
                                       *(part + [part[-1]] * (BATCH - len(part))))
        acts = np.zeros((BATCH, CHUNK, 2), np.int32)
        acts[:len(part), 0] = actions[k:k + BATCH]
        _, (after, legal) = chunk(batch, acts)
        after, legal = jax.tree_util.tree_map(np.asarray, (after, legal))
        out += [(jax.tree_util.tree_map(lambda a: a[b, 0], after), legal[b, 0])
                for b in range(len(part))]
    return out


def replay_many(trajs: Sequence[Any]) -> list[tuple[Divergence | None, int]]:
    """``replay`` for many trajectories at once: ``BATCH`` battles side by side (``vmap``),
    ``CHUNK`` decisions per call, then the same comparison at every decision. Returns (the
    first divergence or None, decisions compared) per trajectory."""
    results = []
    for k in range(0, len(trajs), BATCH):
        results += _replay_batch(trajs[k:k + BATCH])
    return results


def _replay_batch(trajs: Sequence[Any]) -> list[tuple[Divergence | None, int]]:
    start, chunk = _batched()
    padded = list(trajs) + [trajs[-1]] * (BATCH - len(trajs))
    arrays = [[tm.to_arrays(tm.parse(t)) for t in traj.teams] for traj in padded]
    teams = {key: np.stack([np.stack([a[key] for a in pair]) for pair in arrays])
             for key in arrays[0][0]}
    state, first_legal = start(teams, np.asarray([traj.seed for traj in padded], np.int32))
    length = max(len(traj.choices) for traj in trajs)
    actions = np.zeros((BATCH, -(-max(length, 1) // CHUNK) * CHUNK, 2), np.int32)
    for b, traj in enumerate(trajs):
        for i, choices in enumerate(traj.choices):
            actions[b, i] = _actions(choices)
    first = jax.tree_util.tree_map(np.asarray, state)
    parts = []
    for k in range(0, actions.shape[1], CHUNK):
        state, out = chunk(state, actions[:, k:k + CHUNK])
        parts.append(jax.tree_util.tree_map(np.asarray, out))
    states, legal = jax.tree_util.tree_map(lambda *xs: np.concatenate(xs, axis=1), *parts)
    first_legal = np.asarray(first_legal)

    results = []
    for b, traj in enumerate(trajs):
        progress = _rng_progress([traj.initial] + list(traj.reports))
        initial = _plain(jax.tree_util.tree_map(lambda a: a[b], first))
        battle = _plain(jax.tree_util.tree_map(lambda a: a[b, :len(traj.reports)], states))
        moves_legal = legal[b].tolist()
        diff = _compare(initial, traj.initial, *progress[0], first_legal[b].tolist())
        if diff:
            results.append((Divergence(-1, None, diff, traj.initial["log"],
                                       traj.initial["rng"]), 0))
            continue
        result = (None, len(traj.reports))
        for i, report in enumerate(traj.reports):
            state = SimpleNamespace(**{k: v[i] for k, v in vars(battle).items()})
            diff = _compare(state, report, *progress[i + 1], moves_legal[i])
            if diff:
                result = (Divergence(i, traj.choices[i], diff, report["log"], report["rng"]),
                          i + 1)
                break
        results.append(result)
    return results


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
