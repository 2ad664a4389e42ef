"""Saving and loading trained policies: flax-serialized parameters plus a JSON description.

A checkpoint is a folder with ``params.msgpack`` (``flax.serialization.to_bytes`` of the
network parameters) and ``checkpoint.json`` (env id, env parameter overrides and the
``PPOConfig``), which is all that is needed to rebuild the network and evaluate it. A run
with ``normalize_observations`` also writes ``obs_stats.msgpack``, the observation
statistics the policy was trained with, which evaluation applies frozen. Each file is
written aside and renamed into place, so an interrupted save leaves the previous one whole.
"""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import flax.serialization
import jax

from jaxenvs.ppo.config import PPOConfig
from jaxenvs.wrappers import RunningMeanStd

PARAMS_FILE = "params.msgpack"
DESCRIPTION_FILE = "checkpoint.json"
OBS_STATS_FILE = "obs_stats.msgpack"


def write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a file beside it renamed into place."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def save_description(directory: str | Path, *, env_id: str, env_overrides: dict[str, Any],
                     config: PPOConfig, run: dict[str, Any] | None = None) -> None:
    """Write ``checkpoint.json`` into ``directory`` (created if needed): env id, env overrides,
    the ``PPOConfig`` and, from ``jaxenvs train``, ``run`` (its seed and chunk size)."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    description = {"env_id": env_id, "env_overrides": env_overrides,
                   "config": dataclasses.asdict(config)}
    if run is not None:
        description["run"] = run
    write_atomically(directory / DESCRIPTION_FILE,
                     (json.dumps(description, indent=2) + "\n").encode())


def save_policy(directory: str | Path, params: Any,
                obs_stats: RunningMeanStd | None = None) -> None:
    """Write ``params.msgpack`` (and ``obs_stats.msgpack`` if given) into ``directory``."""
    directory = Path(directory)
    write_atomically(directory / PARAMS_FILE,
                     flax.serialization.to_bytes(jax.device_get(params)))
    if obs_stats is not None:
        write_atomically(directory / OBS_STATS_FILE,
                         flax.serialization.to_bytes(jax.device_get(obs_stats)))


def save_checkpoint(directory: str | Path, params: Any, *, env_id: str,
                    env_overrides: dict[str, Any], config: PPOConfig,
                    obs_stats: RunningMeanStd | None = None) -> Path:
    """Write the checkpoint folder ``directory`` (created if needed); returns its path.

    ``obs_stats`` is required exactly when ``config.normalize_observations`` is set."""
    if (obs_stats is None) == config.normalize_observations:
        raise ValueError("obs_stats must be given exactly when config.normalize_observations")
    save_description(directory, env_id=env_id, env_overrides=env_overrides, config=config)
    save_policy(directory, params, obs_stats)
    return Path(directory)


def _restored(path: Path, restore: Any) -> Any:
    """``restore(path.read_bytes())``, a damaged file named in the error."""
    try:
        return restore(path.read_bytes())
    except Exception as error:  # msgpack and flax raise several types for damaged data
        raise ValueError(f"{path} cannot be read ({type(error).__name__}: {error}); "
                         f"it is damaged or not written by jaxenvs") from error


def load_checkpoint(directory: str | Path, params_template: Any | None = None):
    """``(params, description)`` from a checkpoint folder.

    With ``params_template`` (e.g. freshly initialised parameters of the same network) the
    parameters come back with its structure and types; without it, as nested dicts.
    """
    directory = Path(directory)
    for name in (PARAMS_FILE, DESCRIPTION_FILE):
        if not (directory / name).is_file():
            raise FileNotFoundError(f"{directory} is not a jaxenvs checkpoint: no {name}")
    description = load_description(directory)
    if params_template is None:
        return _restored(directory / PARAMS_FILE, flax.serialization.msgpack_restore), \
            description
    return _restored(directory / PARAMS_FILE,
                     lambda data: flax.serialization.from_bytes(params_template, data)), \
        description


def load_description(directory: str | Path) -> dict[str, Any]:
    """The contents of ``directory``'s ``checkpoint.json``."""
    return _restored(Path(directory) / DESCRIPTION_FILE, json.loads)


def load_obs_stats(directory: str | Path, template: RunningMeanStd) -> RunningMeanStd:
    """The observation statistics saved with a ``normalize_observations`` run, in the
    structure of ``template`` (e.g. ``RunningMeanStd.like`` of one observation's floats)."""
    path = Path(directory) / OBS_STATS_FILE
    if not path.is_file():
        raise FileNotFoundError(f"{directory} was trained with normalized observations but "
                                f"has no {OBS_STATS_FILE}")
    return _restored(path, lambda data: flax.serialization.from_bytes(template, data))


def config_from_description(description: dict[str, Any]) -> PPOConfig:
    """The ``PPOConfig`` stored in a checkpoint description."""
    config = dict(description["config"])
    config["hidden_sizes"] = tuple(config["hidden_sizes"])
    return PPOConfig(**config)
