"""Saving and loading trained policies: flax-serialized parameters plus a JSON description.

A checkpoint is a folder with ``params.msgpack`` (``flax.serialization.to_bytes`` of the
network parameters) and ``checkpoint.json`` (env id, env parameter overrides and the
``PPOConfig``), which is all that is needed to rebuild the network and evaluate it. A run
with ``normalize_observations`` also writes ``obs_stats.msgpack``, the observation
statistics the policy was trained with, which evaluation applies frozen.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import flax.serialization
import jax

from jaxenvs.ppo.config import PPOConfig
from jaxenvs.wrappers import RunningMeanStd

PARAMS_FILE = "params.msgpack"
DESCRIPTION_FILE = "checkpoint.json"
OBS_STATS_FILE = "obs_stats.msgpack"


def save_checkpoint(directory: str | Path, params: Any, *, env_id: str,
                    env_overrides: dict[str, Any], config: PPOConfig,
                    obs_stats: RunningMeanStd | None = None) -> Path:
    """Write the checkpoint folder ``directory`` (created if needed); returns its path.

    ``obs_stats`` is required exactly when ``config.normalize_observations`` is set."""
    if (obs_stats is None) == config.normalize_observations:
        raise ValueError("obs_stats must be given exactly when config.normalize_observations")
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / PARAMS_FILE).write_bytes(flax.serialization.to_bytes(jax.device_get(params)))
    if obs_stats is not None:
        (directory / OBS_STATS_FILE).write_bytes(
            flax.serialization.to_bytes(jax.device_get(obs_stats)))
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


def load_obs_stats(directory: str | Path, template: RunningMeanStd) -> RunningMeanStd:
    """The observation statistics saved with a ``normalize_observations`` run, in the
    structure of ``template`` (e.g. ``RunningMeanStd.like`` of one observation's floats)."""
    path = Path(directory) / OBS_STATS_FILE
    if not path.is_file():
        raise FileNotFoundError(f"{directory} was trained with normalized observations but "
                                f"has no {OBS_STATS_FILE}")
    return flax.serialization.from_bytes(template, path.read_bytes())


def config_from_description(description: dict[str, Any]) -> PPOConfig:
    """The ``PPOConfig`` stored in a checkpoint description."""
    config = dict(description["config"])
    config["hidden_sizes"] = tuple(config["hidden_sizes"])
    return PPOConfig(**config)
