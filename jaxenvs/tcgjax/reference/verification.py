"""``jaxenvs verify TCGJax`` (and ``TCGJax2P``, the same engine): the JAX engine against the
Python reference engine, in lock step at every decision (``lockstep``).

Batches of ``BATCH`` games, every ordered sample-deck pairing alike, random players, from the
slow test's seeds (``lockstep.sample_games``): the reference plays each batch once, the JAX
engine replays it in each batched form (``lockstep.FORMS``: game by game as on a CPU, and
vectorized as on a GPU), and after ``new_game`` and every decision every field of the state,
the legal-action mask and the rewards must equal the reference's (``lockstep.digest``); the
first differing game is replayed step by step to name the fields (``first_divergence``).

Sizes: ``QUICK_BATCHES`` by default (1,620 games, a minute or two on 2 cores), the slow test's
``FULL_BATCHES`` with ``--full`` (10,260 games, 285 per pairing, in each form; about 6
minutes, the reference playing each game once for both forms). The reference registers this
suite by name, since this module imports the reference (through ``lockstep``).
"""

from __future__ import annotations

from typing import Iterator, Sequence

import numpy as np

from jaxenvs.tcgjax.reference import lockstep
from jaxenvs.verify.compare import compare_trajectories
from jaxenvs.verify.suite import CheckResult, SuiteFn, SuiteOptions, check_options

#: Games per batch (15 per ordered pairing), the first game's seed, batches by default and with
#: ``--full``: the slow test's games (``tests/tcgjax/test_jax_engine.py``).
BATCH = 540
SEED = 10**5
QUICK_BATCHES, FULL_BATCHES = 3, 19
#: The agreement table's one field: True where the digests agree.
FIELD = "state, legal actions, rewards"


def _check(name: str, run: lockstep.ReferenceRun, digests: np.ndarray, batch: int,
           form: str, counted: bool) -> CheckResult:
    """One batch in one form: a step per state compared (after ``new_game``, then after every
    action), the first divergence named field by field. Games and decisions are counted where
    ``counted`` (in one form only: the others replay the same games)."""
    agree = np.concatenate([np.all(digests[:len(ref), g] == ref, axis=1)
                            for g, ref in enumerate(run.digests)])
    comparison = compare_trajectories({FIELD: agree}, {FIELD: np.ones_like(agree)})
    bad = lockstep.disagreements(run, digests)
    detail = lockstep.first_divergence(run, bad[0][0], batch, form) if bad else None
    counts = {"games": len(run.seeds), "decisions": sum(len(a) for a in run.actions)} \
        if counted else {}
    return CheckResult(name, comparison, counts, detail)


def make_suite(batches: int | None = None, batch: int = BATCH,
               forms: Sequence[str] = lockstep.FORMS) -> SuiteFn:
    """The TCGJax suite over ``batches`` batches of ``batch`` games (default:
    ``QUICK_BATCHES``, or ``FULL_BATCHES`` with ``options.full``) in each of ``forms``."""

    def suite(options: SuiteOptions) -> Iterator[CheckResult]:
        check_options("TCGJax", options, modes=("replay",), files=False)
        count = batches or (FULL_BATCHES if options.full else QUICK_BATCHES)
        for b in range(count):
            first = b * batch
            run = lockstep.reference_run(*lockstep.sample_games(batch, SEED + first))
            for k, form in enumerate(forms):
                yield _check(f"lock step games {first}-{first + batch - 1}, {form} form", run,
                             lockstep.jax_digests(run, batch, form), batch, form, k == 0)

    return suite


tcgjax_suite = make_suite()
