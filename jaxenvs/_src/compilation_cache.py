"""JAX's persistent compilation cache for the command line: compiled programs are kept in the
user's cache folder, so that a command run again skips XLA's compile of what it compiled
before (a game's first step takes a few seconds instead of tens).

``JAXENVS_COMPILATION_CACHE=0`` turns it off; a cache folder the user gave JAX already
(``JAX_COMPILATION_CACHE_DIR`` or ``jax.config``) is kept.
"""

from __future__ import annotations

import os
from pathlib import Path

import jax

from jaxenvs._src.user_dirs import cache_dir

#: Set to ``0`` to leave JAX's compilation cache off.
ENV_VAR = "JAXENVS_COMPILATION_CACHE"


def enable() -> Path | None:
    """Turn the cache on in ``<XDG_CACHE_HOME>/jaxenvs/xla`` unless it is off (``ENV_VAR``);
    returns the folder in use, or ``None``."""
    if os.environ.get(ENV_VAR, "1") == "0":
        return None
    if jax.config.jax_compilation_cache_dir:
        return Path(jax.config.jax_compilation_cache_dir)
    directory = cache_dir() / "xla"
    jax.config.update("jax_compilation_cache_dir", str(directory))
    # every program, not only those that took a second to compile: the env's reset, small
    # beside its step, still compiles for most of a second
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    return directory
