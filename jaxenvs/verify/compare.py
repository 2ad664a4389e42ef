"""Field-by-field comparison of a trajectory against a reference trajectory.

A trajectory is a mapping ``field name -> array`` whose leading axis is the step. Each field
is compared under its own ``Tolerance``: ``EXACT`` compares bit patterns (so ``-0.0`` vs
``0.0`` and differing NaNs are disagreements, as they are for a bit-for-bit port), while
``Tolerance.close(atol, rtol)`` compares values numerically. A step of a field mismatches if
any of its elements does.

The result says, per field, how many steps were compared and mismatched, the largest absolute
deviation and the first divergent step; overall, the earliest divergent step across fields,
which fields diverge there, and the values of every field in both trajectories for a few steps
up to it. ``format_agreement_table`` and ``format_divergence`` render these for people.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

import numpy as np
from numpy.typing import ArrayLike


@dataclass(frozen=True)
class Tolerance:
    """How two values of a field must agree.

    ``exact=True``: identical dtype and identical bits (float values are compared as their
    IEEE bit patterns). Otherwise ``|actual - expected| <= atol + rtol * |expected|``, with
    NaN agreeing with NaN and ``-0.0`` with ``0.0``.
    """

    exact: bool = True
    atol: float = 0.0
    rtol: float = 0.0

    def __post_init__(self) -> None:
        if self.exact and (self.atol or self.rtol):
            raise ValueError("an exact tolerance takes no atol/rtol; use Tolerance.close")
        if self.atol < 0 or self.rtol < 0:
            raise ValueError(f"atol and rtol must be >= 0, got {self.atol}, {self.rtol}")

    @classmethod
    def close(cls, atol: float = 0.0, rtol: float = 0.0) -> Tolerance:
        """A numerical tolerance: ``|actual - expected| <= atol + rtol * |expected|``."""
        return cls(exact=False, atol=atol, rtol=rtol)

    def __str__(self) -> str:
        return "exact" if self.exact else f"atol={self.atol:g} rtol={self.rtol:g}"


#: Bit-for-bit agreement, the default for every field.
EXACT = Tolerance()


@dataclass(frozen=True)
class FieldResult:
    """Agreement of one field over the compared steps."""

    name: str
    tolerance: Tolerance
    steps: int
    """Steps compared (the trajectory length)."""
    mismatches: int
    """Steps where at least one element of the field disagrees."""
    max_abs_deviation: float
    """Largest ``|actual - expected|`` over all elements (``inf`` where exactly one is NaN;
    0 for a bits-only disagreement such as ``-0.0`` vs ``0.0``)."""
    first_divergence: int | None
    """First mismatching step, or None if the field agrees everywhere."""

    @property
    def ok(self) -> bool:
        return self.mismatches == 0


@dataclass(frozen=True)
class Divergence:
    """Where two trajectories first disagree, with the values leading up to it."""

    step: int
    """Earliest mismatching step over all fields."""
    fields: tuple[str, ...]
    """The fields that mismatch at ``step``, in comparison order."""
    context_start: int
    """First step of the context window; the window ends with ``step`` (inclusive)."""
    actual: dict[str, np.ndarray]
    """Every field's values over the window, ``[context_start, step]``, in the compared
    trajectory."""
    expected: dict[str, np.ndarray]
    """The same window in the reference trajectory."""
    mismatch: dict[str, np.ndarray]
    """Per field, a bool array over the window: True where that step mismatches."""

    @property
    def context_steps(self) -> range:
        return range(self.context_start, self.step + 1)


@dataclass(frozen=True)
class Comparison:
    """Agreement of a whole trajectory: per-field results and the first divergence."""

    steps: int
    """Length of the compared trajectories (shared by every field)."""
    fields: dict[str, FieldResult]
    """Per-field results, in the reference's field order."""
    divergence: Divergence | None
    """None when every field agrees at every step."""

    @property
    def ok(self) -> bool:
        return self.divergence is None

    @property
    def max_abs_deviation(self) -> float:
        """Largest deviation over all fields (0 for an empty comparison)."""
        return max((f.max_abs_deviation for f in self.fields.values()), default=0.0)


def _per_element_agreement(
    name: str, actual: np.ndarray, expected: np.ndarray, tolerance: Tolerance
) -> tuple[np.ndarray, np.ndarray]:
    """``(agree, abs_deviation)``, both of the arrays' shape."""
    if tolerance.exact:
        if actual.dtype != expected.dtype:
            raise ValueError(f"field {name!r}: dtype {actual.dtype} vs reference "
                             f"{expected.dtype} cannot be compared bit for bit")
        if np.issubdtype(actual.dtype, np.floating):
            bits = np.dtype(f"u{actual.dtype.itemsize}")
            agree = actual.view(bits) == expected.view(bits)
        else:
            agree = actual == expected
    a = actual.astype(np.float64)
    e = expected.astype(np.float64)
    both_nan = np.isnan(a) & np.isnan(e)
    with np.errstate(invalid="ignore"):
        deviation = np.where((a == e) | both_nan, 0.0, np.abs(a - e))
    deviation = np.where(np.isnan(deviation), np.inf, deviation)
    if not tolerance.exact:
        with np.errstate(invalid="ignore"):
            agree = both_nan | (deviation <= tolerance.atol + tolerance.rtol * np.abs(e))
    return agree, deviation


def compare_trajectories(
    actual: Mapping[str, ArrayLike],
    expected: Mapping[str, ArrayLike],
    tolerances: Tolerance | Mapping[str, Tolerance] = EXACT,
    context: int = 3,
) -> Comparison:
    """Compare every field of the reference ``expected`` with the same field of ``actual``.

    Both map field names to arrays with a leading step axis; every reference field must be
    present in ``actual`` with the same shape, and all fields share one length. ``tolerances``
    is one ``Tolerance`` for all fields or a mapping per field (missing fields are ``EXACT``).
    ``context`` is how many steps before the first divergence the context window shows.
    Raises ``ValueError`` on missing fields, shape mismatches or (for exact fields) dtype
    mismatches: those are not step-wise disagreements but a broken comparison.
    """
    if context < 0:
        raise ValueError(f"context must be >= 0, got {context}")
    missing = [name for name in expected if name not in actual]
    if missing:
        raise ValueError(f"fields missing from the compared trajectory: {', '.join(missing)}")
    arrays = {name: (np.asarray(actual[name]), np.asarray(expected[name])) for name in expected}
    lengths = set()
    for name, (a, e) in arrays.items():
        if a.shape != e.shape or a.ndim == 0:
            raise ValueError(f"field {name!r}: shape {a.shape} vs reference {e.shape} "
                             "(both need the same shape with a leading step axis)")
        lengths.add(e.shape[0])
    if len(lengths) > 1:
        raise ValueError(f"fields have different numbers of steps: {sorted(lengths)}")
    steps = lengths.pop() if lengths else 0

    fields: dict[str, FieldResult] = {}
    step_mismatch: dict[str, np.ndarray] = {}
    for name, (a, e) in arrays.items():
        tolerance = tolerances if isinstance(tolerances, Tolerance) else \
            tolerances.get(name, EXACT)
        agree, deviation = _per_element_agreement(name, a, e, tolerance)
        mismatch = ~agree.all(axis=tuple(range(1, agree.ndim)))
        bad = np.flatnonzero(mismatch)
        step_mismatch[name] = mismatch
        fields[name] = FieldResult(
            name=name,
            tolerance=tolerance,
            steps=steps,
            mismatches=int(bad.size),
            max_abs_deviation=float(deviation.max(initial=0.0)),
            first_divergence=int(bad[0]) if bad.size else None,
        )

    firsts = [f.first_divergence for f in fields.values() if f.first_divergence is not None]
    divergence = None
    if firsts:
        step = min(firsts)
        start = max(0, step - context)
        window = slice(start, step + 1)
        divergence = Divergence(
            step=step,
            fields=tuple(n for n, f in fields.items() if f.first_divergence == step),
            context_start=start,
            actual={n: a[window].copy() for n, (a, _) in arrays.items()},
            expected={n: e[window].copy() for n, (_, e) in arrays.items()},
            mismatch={n: m[window].copy() for n, m in step_mismatch.items()},
        )
    return Comparison(steps=steps, fields=fields, divergence=divergence)


def _format_deviation(value: float) -> str:
    return f"{value:.6g}"


def format_agreement_table(results: Iterable[FieldResult]) -> str:
    """A table with one row per field: steps, mismatching steps, max |Δ|, tolerance.

    Results for the same field and tolerance (e.g. from several trajectories) are summed into
    one row: steps and mismatches add up, max |Δ| is the largest.
    """
    rows: dict[tuple[str, Tolerance], list] = {}
    for r in results:
        row = rows.setdefault((r.name, r.tolerance), [0, 0, 0.0])
        row[0] += r.steps
        row[1] += r.mismatches
        row[2] = max(row[2], r.max_abs_deviation)
    header = ("field", "steps", "mismatches", "max |Δ|", "tolerance")
    body = [(name, f"{steps:,}", f"{mism:,}", _format_deviation(dev), str(tol))
            for (name, tol), (steps, mism, dev) in rows.items()]
    widths = [max(len(row[i]) for row in [header, *body]) for i in range(len(header))]

    def line(row: tuple[str, ...]) -> str:
        # Names and tolerances left-aligned, numbers right-aligned.
        cells = [c.ljust(w) if i in (0, 4) else c.rjust(w)
                 for i, (c, w) in enumerate(zip(row, widths))]
        return "  ".join(cells).rstrip()

    return "\n".join([line(header), line(tuple("-" * w for w in widths)),
                      *(line(row) for row in body)])


def _format_value(value: np.ndarray) -> str:
    """Shortest round-trip text of a value (so ``-0.0`` shows its sign)."""
    if value.ndim == 0:
        return str(value[()])
    return np.array2string(value, separator=" ", floatmode="unique", max_line_width=10_000)


def _format_bits(value: np.ndarray) -> str:
    """Hex bit patterns of a float value, for disagreements invisible in decimal."""
    bits = np.ascontiguousarray(value).view(f"u{value.dtype.itemsize}")
    digits = 2 * value.dtype.itemsize
    return " ".join(f"0x{int(b):0{digits}X}" for b in np.ravel(bits))


def format_divergence(comparison: Comparison) -> str:
    """Where the trajectories first disagree and every field's values just before and there.

    Per step, fields that agree show their value once; mismatching fields (marked ``*``) show
    the compared and the reference value, plus their bit patterns when the decimal text is the
    same (``-0.0`` vs ``0.0``, NaN payloads).
    """
    d = comparison.divergence
    if d is None:
        return f"No divergence: all {len(comparison.fields)} fields agree over " \
               f"{comparison.steps:,} steps."
    width = max(len(n) for n in d.actual)
    lines = [f"First divergence at step {d.step:,} in {', '.join(d.fields)} "
             f"(context: steps {d.context_start:,}..{d.step:,}; * = mismatch)"]
    for i, step in enumerate(d.context_steps):
        lines.append(f"step {step:,}" + ("  <-- first divergence" if step == d.step else ""))
        for name in d.actual:
            a, e = d.actual[name][i], d.expected[name][i]
            if not d.mismatch[name][i]:
                lines.append(f"    {name:<{width}}  {_format_value(a)}")
                continue
            a_text, e_text = _format_value(a), _format_value(e)
            if a_text == e_text and a.dtype.kind == "f":
                a_text += f"  ({_format_bits(a)})"
                e_text += f"  ({_format_bits(e)})"
            lines.append(f"  * {name:<{width}}  actual    {a_text}")
            lines.append(f"    {'':<{width}}  expected  {e_text}")
    return "\n".join(lines)
