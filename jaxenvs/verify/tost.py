"""Two one-sided tests (TOST) for the equivalence of two means.

Bit-for-bit comparison (``compare``) cannot apply where two backends legitimately differ in
floating-point detail; there the question is statistical: are, say, the episode returns of one
policy in backend A and backend B equal *up to a margin that does not matter*? A plain t-test
cannot answer that (failing to reject "the means are equal" is not evidence that they are), so
``tost`` runs Schuirmann's two one-sided tests, where the null hypothesis is
*non-equivalence*:

    H0: |mean_a - mean_b| >= margin        H1: |mean_a - mean_b| < margin

It is rejected, and the samples are declared equivalent, when both one-sided tests
``mean_a - mean_b <= -margin`` and ``mean_a - mean_b >= margin`` are rejected at level
``alpha``; equivalently when the ``1 - 2 * alpha`` confidence interval of the difference lies
inside ``(-margin, margin)``. The samples are independent and their variances may differ, so
the statistics are Welch's t with Welch-Satterthwaite degrees of freedom.

The Student-t distribution (``student_t_cdf``, ``student_t_ppf``) is computed here in float64
Python arithmetic from the regularized incomplete beta function (a Lentz continued fraction),
so the test needs neither scipy nor JAX's 64-bit mode, whose switch has moved between JAX
versions and which is global state a caller may not expect to be touched.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

_EPS = 1e-15
"""Relative convergence threshold of the continued fraction."""
_TINY = 1e-300
"""Stand-in for a zero denominator in Lentz's method."""


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function ``I_x(a, b)`` (modified Lentz).

    Converges quickly for ``x < (a + 1) / (a + b + 2)``; the number of terms grows like
    ``sqrt(max(a, b))`` near that point, hence the iteration cap that scales with it.
    """
    max_iter = 1000 + int(20 * math.sqrt(a + b))
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    for m in range(1, max_iter + 1):
        m2 = 2 * m
        # Even step.
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > _TINY else _TINY)
        c = 1.0 + aa / c
        c = c if abs(c) > _TINY else _TINY
        h *= d * c
        # Odd step.
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > _TINY else _TINY)
        c = 1.0 + aa / c
        c = c if abs(c) > _TINY else _TINY
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPS:
            return h
    raise RuntimeError(f"incomplete beta continued fraction did not converge (a={a}, b={b}, x={x})")


def _stirling_correction(x: float) -> float:
    """``lgamma(x) - ((x - 1/2) log x - x + log(2 pi) / 2)`` for ``x >= 100`` (series; the
    first omitted term is below 1e-21)."""
    x2 = x * x
    return (1.0 / 12.0 - (1.0 / 360.0 - (1.0 / 1260.0 - 1.0 / (1680.0 * x2)) / x2) / x2) / x


def _log_beta(a: float, b: float) -> float:
    """``log B(a, b)``, keeping its accuracy when one argument is large.

    ``lgamma(a + b) - lgamma(a)`` cancels badly for large ``a`` (for the t distribution
    ``a = df / 2``, ``b = 1/2``), so there the difference comes from Stirling's series, in
    which the large terms cancel analytically.
    """
    small, big = min(a, b), max(a, b)
    if big < 100.0:
        return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)
    log_ratio = (
        (big - 0.5) * math.log1p(small / big)
        + small * math.log(big + small)
        - small
        + _stirling_correction(big + small)
        - _stirling_correction(big)
    )
    return math.lgamma(small) - log_ratio


def _betainc(a: float, b: float, x: float, y: float) -> float:
    """Regularized incomplete beta ``I_x(a, b)``, given ``x`` and ``y = 1 - x`` separately.

    Taking ``y`` from the caller avoids the cancellation of ``1 - x`` when ``x`` is near 1.
    """
    if x <= 0.0:
        return 0.0
    if y <= 0.0:
        return 1.0
    log_x = math.log1p(-y) if x > 0.5 else math.log(x)
    log_y = math.log1p(-x) if y > 0.5 else math.log(y)
    log_front = a * log_x + b * log_y - _log_beta(a, b)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _betacf(a, b, x) / a
    return 1.0 - math.exp(log_front) * _betacf(b, a, y) / b


def student_t_cdf(t: float, df: float) -> float:
    """``P(T <= t)`` for Student's t with ``df > 0`` (not necessarily integer) degrees of freedom.

    Uses ``P(T <= -|t|) = I_{df / (df + t^2)}(df / 2, 1 / 2) / 2``; the lower tail is computed
    directly, so small tail probabilities keep their relative accuracy (use ``cdf(-t)`` rather
    than ``1 - cdf(t)`` for an upper tail). ``t`` may be infinite. Relative accuracy is about
    1e-11 up to ``df = 1e6``; the continued fraction grows ill-conditioned beyond, to about
    1e-8 at ``df = 1e8``, which is still far below anything a test decision depends on.
    """
    if not df > 0:
        raise ValueError(f"df must be > 0, got {df}")
    if math.isnan(t):
        raise ValueError("t must not be NaN")
    if math.isinf(t):
        return 1.0 if t > 0 else 0.0
    t2 = t * t
    lower_tail = 0.5 * _betainc(0.5 * df, 0.5, df / (df + t2), t2 / (df + t2))
    return lower_tail if t <= 0 else 1.0 - lower_tail


def student_t_ppf(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t with ``df > 0`` degrees of freedom, ``0 < p < 1``.

    Bisection on the lower tail ``cdf(-t)`` for ``t >= 0`` (monotone, and accurate for small
    probabilities), run until the bracket cannot be halved further in float64.
    """
    if not df > 0:
        raise ValueError(f"df must be > 0, got {df}")
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1), got {p}")
    if p == 0.5:
        return 0.0
    tail = min(p, 1.0 - p)
    lo, hi = 0.0, 1.0
    while student_t_cdf(-hi, df) > tail:
        lo, hi = hi, 2.0 * hi
    while True:
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if student_t_cdf(-mid, df) > tail:
            lo = mid
        else:
            hi = mid
    t = 0.5 * (lo + hi)
    return -t if p < 0.5 else t


@dataclass(frozen=True)
class TostResult:
    """Outcome of ``tost``: the estimate, both one-sided tests and the decision.

    The difference is always ``mean_a - mean_b``. ``t_lower``/``p_lower`` test
    ``H0: difference <= -margin`` and ``t_upper``/``p_upper`` test ``H0: difference >= margin``.
    """

    difference: float
    """``mean(samples_a) - mean(samples_b)``."""
    std_error: float
    """Welch standard error of the difference, ``sqrt(var_a / n_a + var_b / n_b)``."""
    df: float
    """Welch-Satterthwaite degrees of freedom (NaN when both samples have zero variance)."""
    t_lower: float
    """``(difference + margin) / std_error``."""
    t_upper: float
    """``(difference - margin) / std_error``."""
    p_lower: float
    """One-sided p-value of ``H0: difference <= -margin``."""
    p_upper: float
    """One-sided p-value of ``H0: difference >= margin``."""
    p_value: float
    """``max(p_lower, p_upper)``: the p-value of the TOST as a whole."""
    ci_low: float
    """Lower end of the ``1 - 2 * alpha`` confidence interval of the difference."""
    ci_high: float
    """Upper end of that interval."""
    margin: float
    alpha: float
    n_a: int
    n_b: int
    equivalent: bool
    """``p_value < alpha``: both one-sided null hypotheses are rejected."""

    def summary(self) -> str:
        """One line for a human: the decision, the p-value, the estimate and its interval."""
        verdict = "equivalent" if self.equivalent else "NOT shown equivalent"
        relation = "<" if self.equivalent else ">="
        level = round(100 * (1 - 2 * self.alpha), 6)
        return (
            f"TOST: {verdict} within ±{self.margin:.6g} "
            f"(p={self.p_value:.4g} {relation} alpha={self.alpha:g}); "
            f"mean_a - mean_b = {self.difference:.6g} (se {self.std_error:.4g}, "
            f"df {self.df:.4g}), {level:g}% CI [{self.ci_low:.6g}, {self.ci_high:.6g}], "
            f"n_a={self.n_a}, n_b={self.n_b}"
        )

    def __str__(self) -> str:
        return self.summary()


def _as_sample(samples: ArrayLike, name: str) -> np.ndarray:
    """``samples`` as a 1-D float64 array of at least two finite values, or a ValueError."""
    x = np.asarray(samples, dtype=np.float64)
    if x.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {x.shape}")
    if x.size < 2:
        raise ValueError(f"{name} needs at least 2 samples to estimate a variance, got {x.size}")
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{name} contains non-finite values (NaN or inf)")
    return x


def _signed_infinity(x: float) -> float:
    """``x / 0`` as a limit: ``±inf`` with the sign of ``x``, NaN for ``x == 0``."""
    return math.copysign(math.inf, x) if x != 0 else math.nan


def tost(
    samples_a: ArrayLike, samples_b: ArrayLike, margin: float, alpha: float = 0.05
) -> TostResult:
    """Schuirmann's TOST: are the means of two independent samples within ``margin``?

    ``samples_a`` and ``samples_b`` are 1-D, with at least two finite values each; ``margin``
    (> 0) is the largest difference of means that counts as equivalent, in the samples' units;
    ``alpha`` in ``(0, 0.5)`` is the level of each one-sided test, so the decision matches a
    ``1 - 2 * alpha`` confidence interval lying inside ``(-margin, margin)``.

    If both samples have zero variance the difference is known exactly: the samples are
    equivalent iff ``|difference| < margin``, each one-sided p-value is 0 when its bound is
    strictly met and 1 otherwise, the t statistics are ``±inf`` (or NaN exactly at the bound),
    ``df`` is NaN and the interval collapses to the difference. If only one sample has zero
    variance the Welch formulas apply unchanged.
    """
    a = _as_sample(samples_a, "samples_a")
    b = _as_sample(samples_b, "samples_b")
    margin = float(margin)
    alpha = float(alpha)
    if not (math.isfinite(margin) and margin > 0):
        raise ValueError(f"margin must be finite and > 0, got {margin}")
    if not 0.0 < alpha < 0.5:
        raise ValueError(f"alpha must be in (0, 0.5), got {alpha}")

    n_a, n_b = a.size, b.size
    difference = float(np.mean(a) - np.mean(b))
    va = float(np.var(a, ddof=1)) / n_a
    vb = float(np.var(b, ddof=1)) / n_b
    std_error = math.sqrt(va + vb)

    if std_error == 0.0:
        lower_met = difference > -margin
        upper_met = difference < margin
        t_lower = _signed_infinity(difference + margin)
        t_upper = _signed_infinity(difference - margin)
        p_lower = 0.0 if lower_met else 1.0
        p_upper = 0.0 if upper_met else 1.0
        df = math.nan
        ci_low = ci_high = difference
    else:
        df = (va + vb) ** 2 / (va**2 / (n_a - 1) + vb**2 / (n_b - 1))
        t_lower = (difference + margin) / std_error
        t_upper = (difference - margin) / std_error
        # Upper tail of t_lower as the lower tail of -t_lower: accurate for tiny p, and makes
        # swapping a and b swap p_lower and p_upper exactly.
        p_lower = student_t_cdf(-t_lower, df)
        p_upper = student_t_cdf(t_upper, df)
        half_width = student_t_ppf(1.0 - alpha, df) * std_error
        ci_low, ci_high = difference - half_width, difference + half_width

    p_value = max(p_lower, p_upper)
    return TostResult(
        difference=difference,
        std_error=std_error,
        df=df,
        t_lower=t_lower,
        t_upper=t_upper,
        p_lower=p_lower,
        p_upper=p_upper,
        p_value=p_value,
        ci_low=ci_low,
        ci_high=ci_high,
        margin=margin,
        alpha=alpha,
        n_a=n_a,
        n_b=n_b,
        equivalent=p_value < alpha,
    )
