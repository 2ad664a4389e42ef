"""Pong: PufferLib 3.0.0 Ocean Pong (C), translated exactly to JAX.

Read in this order: ``types`` (state and params), ``core`` (the rules, with
``step_deterministic``), ``env`` (the gymnax environment), ``render`` (frames and GIFs),
``golden/`` (recorded trajectories of the real C env) and ``reference`` (the checks against
them, run by ``jaxenvs verify Pong``).
"""

from jaxenvs.pong.core import observe, reset_state, step_deterministic
from jaxenvs.pong.env import Pong
from jaxenvs.pong.render import render
from jaxenvs.pong.types import PongParams, PongState

__all__ = ["Pong", "PongParams", "PongState", "observe", "render", "reset_state",
           "step_deterministic"]
