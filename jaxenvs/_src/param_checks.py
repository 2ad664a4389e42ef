"""Checks of an env's parameters at ``make``: each returns a message naming the field when its
value is of the wrong kind, not finite or out of range, and ``None`` when it is good. Nothing
is converted: ``2.9`` is not an int (it would index deck 2), ``inf`` not a size.

An env's ``check_params`` gathers the messages (``errors``) and raises them together.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

#: The largest value an int32 field holds.
INT32_MAX = 2**31 - 1


def _scalar(value: Any) -> np.ndarray | None:
    """``value`` as a 0-d NumPy array if it is one number (a Python, NumPy or JAX scalar)."""
    if isinstance(value, (bool, int, float, np.number, np.bool_)):
        return np.asarray(value)
    if hasattr(value, "shape") and hasattr(value, "dtype") and tuple(value.shape) == ():
        return np.asarray(value)
    return None


def integer(params: Any, name: str, low: int, high: int = INT32_MAX) -> str | None:
    """``name`` must be an int (not a bool, not a float) in ``[low, high]``."""
    value = getattr(params, name)
    number = _scalar(value)
    if number is None or number.dtype == np.bool_ or not np.issubdtype(number.dtype,
                                                                       np.integer):
        return f"{name} must be an int, got {value!r}"
    if not low <= int(number) <= high:
        return f"{name} must be in [{low}, {high}], got {value!r}"
    return None


def boolean(params: Any, name: str) -> str | None:
    """``name`` must be a bool (Python, NumPy or a JAX scalar bool; not 0 or 1)."""
    value = getattr(params, name)
    number = _scalar(value)
    if number is None or number.dtype != np.bool_:
        return f"{name} must be a bool, got {value!r}"
    return None


def real(params: Any, name: str, low: float = -math.inf, *, above: bool = False,
         infinite: bool = False) -> str | None:
    """``name`` must be a number (an int or a float, not a bool), finite in float32 (or, with
    ``infinite``, any but NaN: an open end of a range), and at least ``low`` (above it, with
    ``above``)."""
    value = getattr(params, name)
    number = _scalar(value)
    if number is None or number.dtype == np.bool_ or not (
            np.issubdtype(number.dtype, np.integer) or np.issubdtype(number.dtype, np.floating)):
        return f"{name} must be a number, got {value!r}"
    with np.errstate(over="ignore"):
        if np.isnan(number) if infinite else not np.isfinite(np.float32(number)):
            return f"{name} must be {'a number' if infinite else 'finite (in float32)'}, got " \
                   f"{value!r}"
    if (float(number) <= low) if above else (float(number) < low):
        return f"{name} must be {'>' if above else '>='} {low:g}, got {value!r}"
    return None


def errors(*messages: str | None) -> list[str]:
    """The messages of the checks that failed."""
    return [message for message in messages if message is not None]
