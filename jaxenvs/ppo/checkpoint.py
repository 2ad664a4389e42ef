"""Saving and loading trained policies: flax-serialized parameters plus a JSON description.

A checkpoint is a folder with ``params.msgpack`` (``flax.serialization.to_bytes`` of the
network parameters) and ``checkpoint.json`` (env id, env parameter overrides and the
``PPOConfig``), which is all that is needed to rebuild the network and evaluate it.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import flax.serialization
import jax

from jaxenvs.ppo.config import PPOConfig

PARAMS_FILE = "params.msgpack"
DESCRIPTION_FILE = "checkpoint.json"


def save_checkpoint(directory: str | Path, params: Any, *, env_id: str,
                    env_overrides: dict[str, Any], config: PPOConfig) -> Path:
    """Write the checkpoint folder ``directory`` (created if needed); returns its path."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / PARAMS_FILE).write_bytes(flax.serialization.to_bytes(jax.device_get(params)))
    description = {"env_id": env_id, "env_overrides": env_overrides,
                   "config": dataclasses.asdict(config)}
    (directory / DESCRIPTION_FILE).write_text(json.dumps(description, indent=2) + "\n")
    return directory


def load_checkpoint(directory: str | Path, params_template: Any | None = None):
    """``(params, description)`` from a checkpoint folder.

    With ``params_template`` (e.g. freshly initialised parameters of the same network) the
    parameters come back with its structure and types; without it, as nested dicts.
    """
    directory = Path(directory)
    for name in (PARAMS_FILE, DESCRIPTION_FILE):
        if not (directory / name).is_file():
            raise FileNotFoundError(f"{directory} is not a jaxenvs checkpoint: no {name}")
    description = json.loads((directory / DESCRIPTION_FILE).read_text())
    data = (directory / PARAMS_FILE).read_bytes()
    if params_template is None:
        return flax.serialization.msgpack_restore(data), description
    return flax.serialization.from_bytes(params_template, data), description


def config_from_description(description: dict[str, Any]) -> PPOConfig:
    """The ``PPOConfig`` stored in a checkpoint description."""
    config = dict(description["config"])
    config["hidden_sizes"] = tuple(config["hidden_sizes"])
    return PPOConfig(**config)
