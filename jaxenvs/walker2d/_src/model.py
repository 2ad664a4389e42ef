"""Walker2d-v5's planar model, from its generated table (``model_table``)."""

from __future__ import annotations

from jaxenvs._src.planar.model import from_table
from jaxenvs.walker2d._src import model_table

#: Bodies 0-6: torso, thigh, leg, foot, thigh_left, leg_left, foot_left; dofs 0-8: rootx,
#: rootz, rooty, then the six hinges.
WALKER2D = from_table(model_table)
