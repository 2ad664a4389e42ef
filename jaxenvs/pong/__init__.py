"""Pong: PufferLib 3.0.0 Ocean Pong (C), translated exactly to JAX.

``types`` holds the params and state, ``env`` the gymnax environment and ``render`` frames for
GIFs; the rules, translated line by line from the C, are private (``_src/rules``).
``golden/`` holds recorded runs of the real C env and ``reference`` the checks against them
(``jaxenvs verify Pong``), which the env never imports.
"""

from jaxenvs.pong.env import Pong
from jaxenvs.pong.types import PongParams, PongState

__all__ = ["Pong", "PongParams", "PongState"]
