"""Showdown's row in ``jaxenvs bench`` / ``benchmarks/sps.py`` for PokeJAX's ids.

Random-vs-random battles between the teams of the measured params, in their format: the pool's
``gen1randombattle`` battles by default (``battles.random_battles``), battles between the
params' own teams otherwise (``battles.team_battles``, e.g. ``--param format=gen1ou --param
teams=FILE``). They are played inside one Node process without per-step reports, so the
figure is Showdown's own simulation speed and not the JSON pipe's. A step is what one env step
of ours plays: beside ``PokeJAX`` a decision point (every player who has a choice makes it),
beside ``PokeJAX2P`` one player's choice. Node does not batch,
so the row is paired (``jaxenvs.bench``): the same battles are played after each of our timed
runs, in one Node process kept for the whole run (warmed up once); without Node or the pinned
package the cells stay empty.
"""

from __future__ import annotations

import atexit
import functools
import time
from types import SimpleNamespace
from typing import Callable, Iterator

import numpy as np

from jaxenvs import bench
from jaxenvs.pokejax import teams as tm
from jaxenvs.pokejax.env import default_teams
from jaxenvs.pokejax.reference.battles import random_battles, team_battles
from jaxenvs.pokejax.reference.driver import ShowdownProcess, Trajectory, reference_problem

#: Battles per measurement: about three seconds of play (60 battles, about one second, gave
#: 3.0k-4.4k decisions/s from one measurement to the next).
BATTLES = 150


def _packed_teams(params) -> list[str] | None:
    """The params' own teams packed (the first ``2 * BATTLES``, all the battles use), or
    ``None`` for the pool's."""
    if params is None or params.teams is default_teams():
        return None
    teams = SimpleNamespace(**{k: np.asarray(v) for k, v in params.teams.items()})
    return [tm.packed(teams, k) for k in range(min(len(teams.species), 2 * BATTLES))]


def _battles(showdown: ShowdownProcess, params, packed: list[str] | None
             ) -> Iterator[Trajectory]:
    """The measured battles: between the pool's teams, or the params' own (``packed``, from
    ``_packed_teams``) in their format."""
    if packed is None:
        return random_battles(showdown, range(BATTLES), record=False)
    return team_battles(showdown, packed, range(BATTLES), params.format, record=False)


@functools.cache
def _showdown() -> ShowdownProcess | None:
    """The run's Node process (ended at exit), or ``None`` without Node or the package."""
    if reference_problem() is not None:
        return None
    showdown = ShowdownProcess()
    atexit.register(showdown.close)
    return showdown


def _showdown_sps(count: Callable[[Trajectory], int]) -> Callable[..., float | None]:
    """The row's measurement, a step being ``count`` of a battle's steps. The first
    measurement of given params packs their teams and plays their battles once unmeasured
    (the first ran a third slower, Node's JIT and Dex caches still filling)."""
    prepared: list[tuple[object, list[str] | None]] = []

    def sps(batch_size: int, num_steps: int, params) -> float | None:
        del batch_size, num_steps
        showdown = _showdown()
        if showdown is None:
            return None
        for known, packed in prepared:
            if known is params:
                break
        else:
            packed = _packed_teams(params)
            list(_battles(showdown, params, packed))
            prepared.append((params, packed))
        start = time.perf_counter()
        steps = sum(count(t) for t in _battles(showdown, params, packed))
        return steps / (time.perf_counter() - start)
    return sps


for _env_id, _count, _step in (
        ("PokeJAX", lambda t: t.num_decisions, "one decision point"),
        ("PokeJAX2P", lambda t: t.num_choices, "one player's choice")):
    bench.register_reference(
        _env_id, _showdown_sps(_count), label="Showdown 0.11.11 in Node (one process, this run)",
        paired=True,
        note=f"pokemon-showdown, {BATTLES} random-vs-random battles between the measured "
             f"params' teams in their format (gen1randombattle pool teams by default) inside "
             f"Node (no per-step reports) after each of our timed runs; a step is {_step}.")
