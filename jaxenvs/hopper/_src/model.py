"""Hopper-v5's planar model, from its generated table (``model_table``)."""

from __future__ import annotations

from jaxenvs._src.planar.model import from_table
from jaxenvs.hopper._src import model_table

#: Bodies 0-3: torso, thigh, leg, foot; dofs 0-5: rootx, rootz, rooty, then the three hinges.
HOPPER = from_table(model_table)
