"""What a planar body's reference package registers: its ``jaxenvs verify`` suite and its
``jaxenvs bench`` reference rows."""

from __future__ import annotations

from jaxenvs.planar_reference import mujoco_c
from jaxenvs.planar_reference.speed import register_speed_references
from jaxenvs.verify.suite import ReferenceInfo, register_suite


def register_body(env_id: str) -> None:
    """Register ``env_id``'s suite (``verification``, by name: it imports MuJoCo's side only
    when run) and its speed references."""
    body = mujoco_c.body(env_id)
    register_speed_references(env_id)
    register_suite(env_id,
                   f"jaxenvs.planar_reference.verification:{env_id.lower()}_suite",
                   reference=ReferenceInfo(f"MuJoCo's C library running gymnasium's "
                                           f"{body.gymnasium_id}", mujoco_c.versions))
