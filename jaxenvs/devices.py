"""How many XLA devices a CPU host is split into, chosen before JAX starts.

On CPU, XLA runs a program on one device, and an environment's kernels (small, branchy, one
element per env) mostly run on one core: XLA's intra-op thread pool only splits large
uniform loops. Splitting the host into ``N`` CPU devices (JAX's ``jax_num_cpu_devices``) and
sharding the env batch over them runs ``N`` copies of the program side by side, one per
core, which on a small host gives most of the other cores' worth (the figures:
``benchmarks/README.md``, "One device per core").

The count only takes effect before JAX's first computation, and importing gymnax runs one, so
a command given ``--cpu-devices N`` restarts itself with ``JAX_NUM_CPU_DEVICES=N`` when JAX
has already started with another count; a library user sets that variable, or calls
``use_cpu_devices`` right after ``import jax`` and before importing ``jaxenvs``. It changes
nothing on GPU or TPU, whose devices are the accelerators.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Callable

import jax
from jax.sharding import NamedSharding

#: ``--cpu-devices`` value meaning one device per core this process may run on.
AUTO = "auto"
#: The environment variable JAX reads its CPU device count from when it starts.
ENV_VAR = "JAX_NUM_CPU_DEVICES"


def available_cores() -> int:
    """Cores this process may run on (its CPU affinity where the OS reports one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def parse_cpu_devices(text: str) -> int:
    """``"auto"`` (one device per available core) or a positive integer."""
    if text == AUTO:
        return available_cores()
    try:
        count = int(text)
    except ValueError:
        count = 0
    if count < 1:
        raise argparse.ArgumentTypeError(f"expected {AUTO!r} or a positive integer, got {text!r}")
    return count


def use_cpu_devices(count: int, restart_command: bool = False) -> None:
    """Split the CPU host into ``count`` XLA devices.

    Takes effect only before JAX's first computation, and importing gymnax (so ``jaxenvs``)
    already runs one. If JAX has started on a GPU or TPU, nothing is done (the envs run
    there). If JAX has started on the CPU with another count: with ``restart_command``, run
    this process's command line again in its place (``os.execve``), with JAX told the count
    through ``JAX_NUM_CPU_DEVICES``; otherwise raise ``RuntimeError`` naming the fix.
    """
    if count < 1:
        raise ValueError(f"cpu device count must be >= 1, got {count}")
    try:
        jax.config.update("jax_num_cpu_devices", count)
        return
    except RuntimeError:  # JAX has started: fine if it already has that many, or runs on an
        # accelerator, where the CPU devices hold no env
        if len(jax.devices("cpu")) == count or jax.default_backend() != "cpu":
            return
    if restart_command and os.environ.get(ENV_VAR) != str(count):
        sys.stdout.flush()
        os.execve(sys.executable, [sys.executable, *sys.orig_argv[1:]],
                  {**os.environ, ENV_VAR: str(count)})
    raise RuntimeError(
        f"cannot split the CPU into {count} devices: JAX has already started with "
        f"{len(jax.devices('cpu'))}. Set {ENV_VAR}={count} in the environment, or call "
        "jaxenvs.devices.use_cpu_devices right after `import jax`, before importing jaxenvs")


def add_cpu_devices_option(parser: argparse.ArgumentParser, default: str | None) -> None:
    """Add ``--cpu-devices N|auto`` (``args.cpu_devices``: an int, or ``None`` to leave JAX's
    own count, one device unless ``JAX_NUM_CPU_DEVICES`` says otherwise) to a command."""
    shown = default if default is not None else "JAX's own, 1 unless JAX_NUM_CPU_DEVICES is set"
    parser.add_argument(
        "--cpu-devices", metavar="N", type=parse_cpu_devices, default=default,
        help=f"split a CPU host into N XLA devices and shard the env batch over them; "
             f"{AUTO!r} = one per core this process may use (default: {shown}); no effect "
             "on GPU/TPU")


def per_device(fn: Callable, sharding: NamedSharding) -> Callable:
    """``fn``, whose arguments and results all have the env batch as leading axis (split as
    ``sharding`` says), run by each device on its own share of the batch (``shard_map``).

    Step envs this way rather than in a global-view ``jit`` over split inputs: there, every
    ``while_loop`` whose condition reads the whole batch (an env's opponent turn, a solver
    that stops once every state has converged) waits for a cross-device reduction at each
    iteration. Inside, collectives over the mesh axis still reach every device.
    """
    if sharding.num_devices == 1:
        return fn
    # check_vma=False: values made inside (e.g. zeros for a scan carry) need no axis casts
    return jax.shard_map(fn, mesh=sharding.mesh, in_specs=sharding.spec,
                         out_specs=sharding.spec, check_vma=False)
