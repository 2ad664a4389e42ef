"""Hopper: gymnasium's Hopper-v5 on the planar physics (``jaxenvs._src.planar``).

``types`` holds the params and state, ``env`` the gymnax environment; its model is private
(``_src/``), generated from MuJoCo's by ``tools/planar_model.py``.
"""

from jaxenvs.hopper.env import Hopper
from jaxenvs.hopper.types import HopperParams, HopperState

__all__ = ["Hopper", "HopperParams", "HopperState"]
