"""Showdown's row in ``jaxenvs bench`` / ``benchmarks/sps.py`` for PokeJAX's ids.

Random-vs-random ``gen1randombattle`` battles between pool teams (``battles.random_battles``),
played inside one Node process without per-step reports, so the figure is Showdown's own
simulation speed and not the JSON pipe's. A step is one decision point (every player who has a
choice makes it), which is one step of ``PokeJAX2P`` and of ``PokeJAX``. Node does not batch, so
it is measured once per run and shown at every batch size; without Node or the pinned package
the cells stay empty.
"""

from __future__ import annotations

import functools
import time

from jaxenvs import bench
from jaxenvs.pokejax.reference.battles import random_battles
from jaxenvs.pokejax.reference.driver import ShowdownProcess, reference_problem

#: Battles per measurement (after 5 warm-up battles): about ten seconds of play.
BATTLES = 200


@functools.cache
def _showdown_steps_per_second() -> float | None:
    if reference_problem() is not None:
        return None
    with ShowdownProcess() as showdown:
        list(random_battles(showdown, range(5), record=False))  # Node's JIT and Dex caches
        start = time.perf_counter()
        steps = sum(t.num_decisions
                    for t in random_battles(showdown, range(BATTLES), record=False))
        return steps / (time.perf_counter() - start)


def showdown_sps(batch_size: int, num_steps: int, params) -> float | None:
    del batch_size, num_steps, params
    return _showdown_steps_per_second()


for _env_id in ("PokeJAX", "PokeJAX2P"):
    bench.register_reference(
        _env_id, showdown_sps, label="Showdown 0.11.11 in Node (one process, this run)",
        note=f"pokemon-showdown, {BATTLES} random-vs-random gen1randombattle battles of pool "
             "teams inside Node (no per-step reports); a step is one decision point.")
