"""HalfCheetah: gymnasium's HalfCheetah-v5 on a pure-JAX, planar port of MuJoCo's pipeline.

``types`` holds the params and state, ``env`` the gymnax environment and ``render`` frames for
GIFs. The physics is the planar engine (``jaxenvs._src.planar``), its model private here
(``_src/``). ``reference/`` checks them against MuJoCo itself (needs ``jaxenvs[mujoco]``);
the env never imports it.
"""

from jaxenvs.halfcheetah.env import HalfCheetah
from jaxenvs.halfcheetah.types import HalfCheetahParams, HalfCheetahState

__all__ = ["HalfCheetah", "HalfCheetahParams", "HalfCheetahState"]
