"""L4 transfer checks: one policy's win rate or return in a JAX env and in its reference
engine, TOSTed.

What the environments' ``transfer`` modules share: ``sample_actions`` draws the reference
side's actions from the network's logits with NumPy (so no random stream is shared with the
JAX side), and ``TransferResult`` holds both means, their TOST and the timings, as JSON
and as the printed summary.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from jaxenvs.verify.tost import TostResult


def sample_actions(logits: np.ndarray, rng: np.random.Generator, greedy: bool = False
                   ) -> np.ndarray:
    """int[B]: per row of ``logits`` [B, A], an action sampled from its softmax (Gumbel-max
    with ``rng``), or with ``greedy`` the most likely one. Masked logits (-1e9) are never
    drawn."""
    if not greedy:
        logits = logits + rng.gumbel(size=logits.shape)
    return np.argmax(logits, axis=1)


@dataclass
class TransferResult:
    """One metric of a policy (win rate, mean return) over ``episodes`` independent episodes
    in each engine, and its TOST."""

    setting: dict[str, Any]
    """What was played (the env's matchup, opponent, engine versions...)."""
    metric: str
    """What ``jax_mean`` and ``reference_mean`` average: ``win rate`` or ``episode return``."""
    greedy: bool
    episodes: int
    jax_mean: float
    reference_mean: float
    tost: TostResult
    jax_seconds: float
    reference_seconds: float
    extra: dict[str, Any] = field(default_factory=dict)
    """Further counts (e.g. games cut at a decision limit in each engine)."""

    def to_json(self) -> dict:
        out = asdict(self)
        out["tost"] = asdict(self.tost)
        return out

    def summary(self, reference: str = "reference") -> str:
        """Both means, times and the TOST, as printed by the transfer commands."""
        return (f"{'greedy' if self.greedy else 'sampled'} policy, {self.episodes} episodes "
                f"per engine\n{self.metric}: JAX {self.jax_mean:.4f} ({self.jax_seconds:.1f} "
                f"s, compile included), {reference} {self.reference_mean:.4f} "
                f"({self.reference_seconds:.1f} s)\n{self.tost.summary()}")
