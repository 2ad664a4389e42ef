"""Walker2d: gymnasium's Walker2d-v5 on the planar physics (``jaxenvs._src.planar``).

``types`` holds the params and state, ``env`` the gymnax environment; its model is private
(``_src/``), generated from MuJoCo's by ``tools/planar_model.py``.
"""

from jaxenvs.walker2d.env import Walker2d
from jaxenvs.walker2d.types import Walker2dParams, Walker2dState

__all__ = ["Walker2d", "Walker2dParams", "Walker2dState"]
