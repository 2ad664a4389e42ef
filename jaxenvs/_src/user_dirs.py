"""The user's folders where jaxenvs keeps files of its own, outside any checkout: the XDG base
directories (``$XDG_DATA_HOME``, ``$XDG_CACHE_HOME``; ``~/.local/share`` and ``~/.cache``
when unset)."""

from __future__ import annotations

import os
from pathlib import Path


def _base(variable: str, default: str) -> Path:
    value = os.environ.get(variable)
    return Path(value) if value else Path.home() / default


def data_dir() -> Path:
    """``<XDG_DATA_HOME>/jaxenvs``: files kept for the user (``jaxenvs bench``'s results)."""
    return _base("XDG_DATA_HOME", ".local/share") / "jaxenvs"


def cache_dir() -> Path:
    """``<XDG_CACHE_HOME>/jaxenvs``: files that may be deleted at any time (compiled
    programs)."""
    return _base("XDG_CACHE_HOME", ".cache") / "jaxenvs"
