"""A training run's folder: what ``jaxenvs train`` writes, and what ``--resume`` continues.

* ``checkpoint.json``: the run's description (``checkpoint.py``; with its seed and chunk size),
  written before anything compiles;
* ``params.msgpack`` (and ``obs_stats.msgpack``): the policy after the last finished chunk of
  updates, what ``jaxenvs eval`` loads;
* ``train_state/``: the whole ``TrainCarry`` after that chunk (parameters, optimizer, env
  states, episode statistics, key), saved by orbax's ``CheckpointManager``, which writes each
  save aside and renames it into place, so an interrupted save leaves the previous one;
* ``metrics.json``: one row per finished update; ``learning_curve.png`` at the end.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import jax
import orbax.checkpoint as ocp

from jaxenvs.ppo.checkpoint import (DESCRIPTION_FILE, OBS_STATS_FILE, PARAMS_FILE,
                                    write_atomically)

STATE_DIR = "train_state"
METRICS_FILE = "metrics.json"
CURVE_FILE = "learning_curve.png"
#: Everything a run writes into its folder (what ``--overwrite`` removes).
OUTPUTS = (DESCRIPTION_FILE, PARAMS_FILE, OBS_STATS_FILE, STATE_DIR, METRICS_FILE, CURVE_FILE)


def prepare(out: Path, *, resume: bool, overwrite: bool) -> None:
    """Check ``out`` before anything compiles: a new run needs an empty or absent folder
    (``overwrite``: a former run's folder, whose outputs are removed), a resumed one a run
    folder with a saved training state; either must be writable. Raises ``ValueError`` with
    the reason."""
    try:
        _prepare(out, resume=resume, overwrite=overwrite)
    except OSError as error:
        raise ValueError(f"cannot write the run folder {out}: {error.strerror or error}") \
            from error


def _prepare(out: Path, *, resume: bool, overwrite: bool) -> None:
    if out.exists() and not out.is_dir():
        raise ValueError(f"{out} is a file, not a run folder")
    is_run = (out / DESCRIPTION_FILE).is_file()
    if resume:
        if not is_run:
            raise ValueError(f"{out} is not a jaxenvs run folder (no {DESCRIPTION_FILE}); "
                             f"nothing to resume")
        if not (out / STATE_DIR).is_dir():
            raise ValueError(f"{out} has no saved training state (the run stopped before its "
                             f"first chunk of updates ended); start it again with --overwrite")
    elif out.exists() and any(out.iterdir()):
        if not overwrite:
            raise ValueError(f"{out} already exists; pass --resume {out} to continue that "
                             f"run, or --overwrite to start it again")
        if not is_run:
            raise ValueError(f"{out} is not a jaxenvs run folder (no {DESCRIPTION_FILE}); "
                             f"refusing to overwrite it: choose another --out")
        for name in OUTPUTS:
            path = out / name
            if path.is_dir():
                shutil.rmtree(path)
            else:
                path.unlink(missing_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryFile(dir=out):
        pass


def _saveable(tree: Any) -> Any:
    """``tree`` with typed PRNG keys as their raw data (what orbax stores)."""
    return jax.tree.map(lambda x: jax.random.key_data(x) if _is_key(x) else x, tree)


def _is_key(x: Any) -> bool:
    return isinstance(x, jax.Array) and jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key)


def _manager(out: Path) -> ocp.CheckpointManager:
    return ocp.CheckpointManager(
        out.absolute() / STATE_DIR,
        options=ocp.CheckpointManagerOptions(max_to_keep=1, enable_async_checkpointing=False))


def save_state(out: Path, carry: Any, updates_done: int) -> None:
    """Save ``carry`` (a ``TrainCarry``) as the state after ``updates_done`` updates,
    replacing the previous save once this one is complete."""
    with _manager(out) as manager:
        manager.save(updates_done, args=ocp.args.StandardSave(_saveable(carry)))


def restore_state(out: Path, template: Any) -> tuple[Any, int]:
    """``(carry, updates_done)`` of the last save, in the structure, dtypes and shardings of
    ``template`` (e.g. the run's fresh ``start(key)``)."""
    with _manager(out) as manager:
        updates_done = manager.latest_step()
        if updates_done is None:
            raise ValueError(f"{out / STATE_DIR} holds no complete save")
        target = jax.tree.map(ocp.utils.to_shape_dtype_struct, _saveable(template))
        saved = manager.restore(updates_done, args=ocp.args.StandardRestore(target))
    carry = jax.tree.map(
        lambda data, like: jax.random.wrap_key_data(data, impl=jax.random.key_impl(like))
        if _is_key(like) else data, saved, template)
    return carry, updates_done


def save_metrics(out: Path, history: list[dict[str, float]]) -> None:
    """Write ``metrics.json``: one row per finished update."""
    write_atomically(out / METRICS_FILE, (json.dumps(history, indent=1) + "\n").encode())


def load_metrics(out: Path) -> list[dict[str, float]]:
    """The rows of ``metrics.json`` (none if it is absent)."""
    path = out / METRICS_FILE
    return json.loads(path.read_text()) if path.is_file() else []
