"""``jaxenvs verify PokeJAX`` (and ``PokeJAX2P``, the same engine): the battle engine against
Pokémon Showdown 0.11.11 in Node, decision by decision.

Random-vs-random battles are played in Showdown (``battles``) and replayed in the engine with
the same seeds and choices (``replay.replay_many``), which compares the engine with Showdown's
report after the leads and after every decision, exactly, and returns each battle's first
divergence. Four kinds of battle, as in the engine tests: the standard pool battles
(``battles.random_battles``), random legal teams of supported moves and mirror matches of those
(``battles.random_team_battles``, the slow tests' seeds), and user teams in ``gen1ou`` (random
teams that format accepts, in battles Showdown plays in it).

Sizes: ``QUICK`` by default (about two minutes on 2 cores, the engine's compilation included),
``FULL`` with ``--full`` (the slow tests': 10,000 pool battles, 500 battles of each other kind;
about 35 minutes).
Each check covers up to ``CHECK_BATTLES`` battles of one kind; Showdown records the next
check's battles while the engine replays the current ones.

The agreement table has three fields, per report compared: the battle state, both sides'
requests and legal choices, and the PRNG stream (True where the engine agrees).
"""

from __future__ import annotations

import itertools
import subprocess
from concurrent.futures import ThreadPoolExecutor
from typing import Iterator, Mapping, Sequence

import numpy as np

from jaxenvs.pokejax import teams as tm
from jaxenvs.pokejax.reference import battles, replay
from jaxenvs.pokejax.reference.driver import (SHOWDOWN_VERSION, ReferenceUnavailable,
                                              ShowdownProcess, Trajectory)
from jaxenvs.verify.compare import compare_trajectories
from jaxenvs.verify.suite import (CheckResult, ReferenceInfo, SuiteFn, SuiteOptions, check_options,
                                  register_suite)

#: Battles per kind: the default and ``--full`` (the slow tests' sizes).
QUICK = {"pool": 256, "random-team": 64, "mirror": 64, "gen1ou": 64}
FULL = {"pool": 10_000, "random-team": 500, "mirror": 500, "gen1ou": 500}
#: Battles recorded and replayed per check (a multiple of ``replay.BATCH``).
CHECK_BATTLES = 512
#: ``random_team_battles`` seeds of the random-team kinds (those of the slow tests).
TEAM_SEEDS = {"random-team": 200, "mirror": 201, "gen1ou": 301}
#: The agreement table's fields (see the module docstring).
FIELDS = ("battle state", "requests and legal choices", "PRNG stream")
#: What ``replay.compare`` compares, for the certificate.
COMPARED = ("at each Showdown report (after the leads, after every decision): turn, winner, "
            "party order, HP, fainted and active flags, status and its counter, boosts, "
            "modified and stored stats, types, species, volatiles and their counters, moves, "
            "PP, last moves, the sides' selected moves, Gen 1's last damage; both sides' "
            "requests and legal choices; the PRNG stream (LCG outputs drawn so far, the last "
            "one)")


def _battles(showdown: ShowdownProcess, kind: str, count: int) -> Iterator[Trajectory]:
    if kind == "pool":
        return battles.random_battles(showdown, range(count))
    return battles.random_team_battles(showdown, count, TEAM_SEEDS[kind], kind == "mirror",
                                       format="gen1ou" if kind == "gen1ou" else tm.FORMATS[0])


def _field(difference: str) -> str:
    """Which of ``FIELDS`` a difference reported by ``replay.compare`` is in (by its label)."""
    label = difference.partition(":")[0]
    if label.endswith((" request", " legal")):
        return FIELDS[1]
    if label in ("rng calls", "last rng output"):
        return FIELDS[2]
    return FIELDS[0]


def _check(name: str, trajs: Sequence[Trajectory], first: int,
           results: Sequence[tuple[replay.Divergence | None, int]]) -> CheckResult:
    """The check of battles ``first, first + 1, ...`` from ``replay_many``'s results."""
    rows: dict[str, list[np.ndarray]] = {f: [] for f in FIELDS}
    detail = None
    for k, (traj, (divergence, _)) in enumerate(zip(trajs, results)):
        # Reports compared: the initial one, then one per decision up to the divergence.
        reports = len(traj.reports) + 1 if divergence is None else divergence.step + 2
        wrong = {_field(d) for d in divergence.differences} if divergence else set()
        for f in FIELDS:
            row = np.ones(reports, bool)
            row[-1] = f not in wrong
            rows[f].append(row)
        if divergence is not None and detail is None:
            more = len(divergence.differences) - 1
            detail = (f"battle {first + k} (seed {traj.seed}, policy seed {traj.policy_seed}), "
                      f"decision {divergence.step}: {divergence.differences[0]}"
                      + (f" (and {more} more)" if more else "")
                      + f"\nteams {traj.teams}\n{divergence}")
    actual = {f: np.concatenate(r) for f, r in rows.items()}
    comparison = compare_trajectories(actual, {f: np.ones_like(a) for f, a in actual.items()})
    counts = {"battles": len(trajs), "decisions": sum(n for _, n in results)}
    return CheckResult(name, comparison, counts, detail)


def make_suite(sizes: Mapping[str, int] | None = None,
               check_battles: int = CHECK_BATTLES) -> SuiteFn:
    """The PokeJAX suite over ``sizes`` battles per kind (default: ``QUICK``, or ``FULL``
    with ``options.full``), ``check_battles`` per check."""

    def suite(options: SuiteOptions) -> Iterator[CheckResult]:
        check_options("PokeJAX", options, modes=("replay",), files=False)
        chosen = sizes or (FULL if options.full else QUICK)
        plan = [(kind, start, min(count, start + check_battles))
                for kind, count in chosen.items() for start in range(0, count, check_battles)]
        try:
            showdown = ShowdownProcess()
        except ReferenceUnavailable as error:
            raise ValueError(f"the PokeJAX suite needs Showdown: {error}") from None
        with showdown, ThreadPoolExecutor(1) as recorder:
            streams = {kind: _battles(showdown, kind, count) for kind, count in chosen.items()}

            def record(kind: str, start: int, stop: int):
                return recorder.submit(list, itertools.islice(streams[kind], stop - start))

            pending = record(*plan[0]) if plan else None
            replay.warm_up()  # compiles while Showdown records the first battles
            for i, (kind, start, stop) in enumerate(plan):
                trajs = pending.result()
                if i + 1 < len(plan):
                    pending = record(*plan[i + 1])
                yield _check(f"{kind} battles {start}-{stop - 1}", trajs, start,
                             replay.replay_many(trajs))

    return suite


def showdown_versions() -> dict[str, str]:
    """The pinned Showdown (the driver refuses any other) and the Node that runs it."""
    try:
        node = subprocess.run(["node", "--version"], capture_output=True, text=True,
                              timeout=30).stdout.strip() or "unknown"
    except OSError:
        node = "not found"
    return {"Pokémon Showdown": SHOWDOWN_VERSION, "Node": node}


pokejax_suite = make_suite()
SHOWDOWN = ReferenceInfo("Pokémon Showdown in Node, random-vs-random battles",
                         showdown_versions, COMPARED)
for _env_id in ("PokeJAX", "PokeJAX2P"):
    register_suite(_env_id, pokejax_suite, reference=SHOWDOWN)
