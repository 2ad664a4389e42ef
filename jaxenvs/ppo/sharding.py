"""Data-parallel PPO: the env batch sharded over a 1-D device mesh, in one global-view ``jit``.

``make_train(config, env, env_params, mesh)`` places sharding constraints on everything that
has an env axis (env states, observations, per-env keys, rollouts) and on the minibatches, so
that each device steps ``num_envs / num_devices`` environments and computes the gradient of
its share of each minibatch; parameters and optimizer state are replicated. XLA's SPMD
partitioner turns the replicated-parameter update into a gradient all-reduce, and the
minibatch shuffle (which mixes envs across devices) into the collectives it needs. No
``pmap`` and no per-device code: the same program runs on 1 device or many, and gives the
same results up to float summation order.

Multi-host: call ``maybe_initialize_distributed(True)`` (i.e. ``jax.distributed.initialize()``)
in every process before anything else touches JAX. ``jax.devices()`` then lists the devices
of all hosts, ``make_mesh()`` spans them, and each process runs the same ``jit(train)(key)``
with the same key. The returned parameters and metrics are replicated, so every process can
read them; the returned env states stay sharded, so each process holds only its own envs.
"""

from __future__ import annotations

from typing import Any, Sequence

import jax
from jax.sharding import Mesh, NamedSharding, PartitionSpec

#: Name of the mesh axis the env batch is split over.
BATCH_AXIS = "batch"


def maybe_initialize_distributed(enabled: bool) -> None:
    """Join a multi-host run (``jax.distributed.initialize()``, configured from the cluster's
    environment) if ``enabled``; must precede every other JAX call, including ``make_mesh``."""
    if enabled:
        jax.distributed.initialize()


def make_mesh(devices: Sequence[jax.Device] | None = None) -> Mesh:
    """A 1-D mesh with axis ``BATCH_AXIS`` over ``devices`` (default: all visible devices,
    of every host in a multi-host run)."""
    devices = jax.devices() if devices is None else list(devices)
    return Mesh(devices, (BATCH_AXIS,))


def check_divisible(num_envs: int, mesh: Mesh) -> None:
    """Refuse an env batch that does not split evenly over the mesh's batch axis: uneven
    shards would be padded silently, wasting devices and hiding a misconfiguration."""
    devices = mesh.shape[BATCH_AXIS]
    if num_envs % devices:
        raise ValueError(f"num_envs ({num_envs}) must be divisible by the number of devices "
                         f"on the {BATCH_AXIS!r} mesh axis ({devices})")


def shard_envs(tree: Any, mesh: Mesh, env_axis: int = 0) -> Any:
    """Constrain every leaf of ``tree`` to be split over the mesh along ``env_axis`` (0 for
    per-env arrays, 1 for time-major rollouts) and replicated along its other axes."""
    spec = PartitionSpec(*([None] * env_axis), BATCH_AXIS)
    return jax.lax.with_sharding_constraint(tree, NamedSharding(mesh, spec))


def replicate(tree: Any, mesh: Mesh) -> Any:
    """Constrain every leaf of ``tree`` to be a full copy on each device of the mesh."""
    return jax.lax.with_sharding_constraint(tree, NamedSharding(mesh, PartitionSpec()))
