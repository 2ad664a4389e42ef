"""The Python reference's rows in ``jaxenvs bench`` / ``benchmarks/sps.py`` for TCGJax's ids.

The reference plays the env's deck pair in one Python process, both seats random
(``RandomPolicy``), and counts steps the way each env does: a ``TCGJax2P`` step is any
decision, a ``TCGJax`` step one decision of the agent in seat 0 (the random opponent's
decisions in between included). It does not batch, so the rows are paired
(``jaxenvs.bench``): the same games are played after each of our timed runs.
"""

from __future__ import annotations

from jaxenvs import bench
from jaxenvs.tcgjax.reference import speed

#: Games per measurement: one to a few seconds of play.
GAMES = 200


def _measure(pair: tuple[str, str]) -> dict:
    return speed.measure(GAMES, pairs=[pair])


def _reference_fn(counted: str, agent_seat_only: bool):
    def reference_sps(batch_size: int, num_steps: int, params) -> float | None:
        """Decisions per second of the reference with ``params``' decks; ``None`` where the
        env's setting has no counterpart here (agent in seat 1, the scripted opponent, decks
        other than a fixed pair of sample decks)."""
        from jaxenvs.tcgjax.env import sample_pair  # the env imports this package: import late

        del batch_size, num_steps
        pair = sample_pair(params)
        if pair is None or (agent_seat_only and (int(params.agent_seat) != 0
                                                 or int(params.opponent) != 0)):
            return None
        return _measure(pair)[counted]

    return reference_sps


for _env_id, _counted, _steps in (("TCGJax", "agent_decisions_per_s", "one seat-0 decision"),
                                  ("TCGJax2P", "decisions_per_s", "one decision of either seat")):
    bench.register_reference(
        _env_id, _reference_fn(_counted, _env_id == "TCGJax"),
        label="Python reference engine (one process, this run)", paired=True,
        note=f"jaxenvs.tcgjax.reference, random vs random over {GAMES} games of the env's deck "
             f"pair after each of our timed runs; a step is {_steps}, as in the env.")
