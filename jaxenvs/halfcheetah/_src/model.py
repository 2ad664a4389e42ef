"""HalfCheetah-v5's planar model, from its generated table (``model_table``)."""

from __future__ import annotations

from jaxenvs._src.planar.model import from_table
from jaxenvs.halfcheetah._src import model_table

#: Bodies 0-6: torso, bthigh, bshin, bfoot, fthigh, fshin, ffoot; dofs 0-8: rootx, rootz,
#: rooty, then the six hinges.
HALF_CHEETAH = from_table(model_table)
