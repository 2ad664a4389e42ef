"""The planar bodies and the gymnasium models they are held to."""

from __future__ import annotations

import dataclasses
from pathlib import Path


@dataclasses.dataclass(frozen=True)
class Body:
    """One planar body's env and its reference model."""

    env_id: str
    """The jaxenvs id of its env."""
    xml: str
    """gymnasium's XML of the ``-v5`` env (under ``gymnasium/envs/mujoco/assets``)."""
    frame_skip: int
    """The ``-v5`` env's physics steps per env step."""
    brax_env: str
    """Brax's env of the same name (Brax's own model of the body)."""
    velocity_clip: float | None
    """The ``-v5`` observation clips ``qvel`` to this magnitude (``None``: not clipped)."""

    @property
    def gymnasium_id(self) -> str:
        """gymnasium's id of the env, ``"<env_id>-v5"``."""
        return f"{self.env_id}-v5"

    def checkpoint(self) -> Path | None:
        """The committed PPO policy trained in the env (``jaxenvs/<env>/data/policy``), or
        ``None`` where there is none yet."""
        import jaxenvs

        path = Path(jaxenvs.__file__).parent / self.env_id.lower() / "data" / "policy"
        return path if path.exists() else None

    def table_path(self) -> Path:
        """Where the body's generated model table is committed (``tools/planar_model.py``)."""
        import jaxenvs

        return Path(jaxenvs.__file__).parent / self.env_id.lower() / "_src" / "model_table.py"

    def xml_path(self) -> Path:
        """The XML in the installed gymnasium."""
        import gymnasium

        return Path(gymnasium.__file__).parent / "envs" / "mujoco" / "assets" / self.xml

    def load_model(self):
        """The compiled ``mujoco.MjModel``."""
        import mujoco

        return mujoco.MjModel.from_xml_path(str(self.xml_path()))


BODIES = {body.env_id: body for body in (
    Body("HalfCheetah", "half_cheetah.xml", 5, "halfcheetah", None),
    Body("Hopper", "hopper.xml", 4, "hopper", 10.0),
    Body("Walker2d", "walker2d_v5.xml", 4, "walker2d", 10.0),
)}
