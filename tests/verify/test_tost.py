"""TOST equivalence test: Student-t CDF/quantile, decisions, symmetry, validation."""

import math

import numpy as np
import pytest

from jaxenvs.verify import TostResult, tost
from jaxenvs.verify.tost import student_t_cdf, student_t_ppf

# --- Student-t distribution against tabulated values -------------------------------------------


@pytest.mark.parametrize("df", [0.5, 1.0, 3.7, 10.0, 1e4])
def test_t_cdf_is_one_half_at_zero_and_symmetric(df):
    assert student_t_cdf(0.0, df) == 0.5
    for t in (0.3, 1.7, 12.0):
        assert student_t_cdf(-t, df) + student_t_cdf(t, df) == pytest.approx(1.0, abs=1e-14)


def test_t_cdf_closed_forms():
    # df = 1 is the Cauchy distribution, df = 2 has cdf 1/2 + t / (2 sqrt(2 + t^2)).
    for t in (-30.0, -2.5, -0.4, 0.9, 7.0):
        assert student_t_cdf(t, 1.0) == pytest.approx(0.5 + math.atan(t) / math.pi, rel=1e-13)
        expected = 0.5 + t / (2.0 * math.sqrt(2.0 + t * t))
        assert student_t_cdf(t, 2.0) == pytest.approx(expected, rel=1e-13)


def test_t_cdf_keeps_relative_accuracy_in_the_far_tail():
    # Cauchy lower tail: atan(t)/pi + 1/2 = atan(-1/t)/pi for t < 0; exact here, no cancellation.
    t = -1e8
    assert student_t_cdf(t, 1.0) == pytest.approx(math.atan(-1.0 / t) / math.pi, rel=1e-12)
    assert 0.0 < student_t_cdf(-60.0, 30.0) < 1e-30


def test_t_cdf_infinite_arguments():
    assert student_t_cdf(math.inf, 5.0) == 1.0
    assert student_t_cdf(-math.inf, 5.0) == 0.0


@pytest.mark.parametrize(
    ("p", "df", "expected"),
    [
        (0.975, 10.0, 2.228138852),
        (0.95, 10.0, 1.812461123),
        (0.975, 1.0, 12.70620474),
        (0.995, 5.0, 4.032142984),
        (0.975, 1e7, 1.959964),  # close to the normal quantile
    ],
)
def test_t_quantile_tabulated(p, df, expected):
    assert student_t_ppf(p, df) == pytest.approx(expected, abs=1e-6)
    assert student_t_ppf(1.0 - p, df) == pytest.approx(-expected, abs=1e-6)


def test_t_quantile_inverts_cdf():
    for df in (1.0, 2.5, 30.0, 500.0):
        for p in (1e-9, 0.01, 0.3, 0.5, 0.8, 0.999):
            assert student_t_cdf(student_t_ppf(p, df), df) == pytest.approx(p, rel=1e-10)


@pytest.mark.parametrize(("p", "df"), [(0.0, 5.0), (1.0, 5.0), (0.5, 0.0), (0.5, -1.0)])
def test_t_quantile_rejects_bad_arguments(p, df):
    with pytest.raises(ValueError):
        student_t_ppf(p, df)


def test_t_distribution_matches_scipy():
    stats = pytest.importorskip("scipy.stats")
    for df in (0.7, 1.0, 4.0, 17.3, 250.0, 1e5):
        for t in (-40.0, -5.0, -1.2, 0.0, 0.6, 3.3):
            assert student_t_cdf(t, df) == pytest.approx(stats.t.cdf(t, df), rel=1e-10)
        for p in (0.001, 0.05, 0.9, 0.975):
            assert student_t_ppf(p, df) == pytest.approx(stats.t.ppf(p, df), rel=1e-10)


# --- TOST --------------------------------------------------------------------------------------


def test_tost_p_values_match_scipy_welch_tests():
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(7)
    cases = [
        (rng.normal(0.0, 1.0, 40), rng.normal(0.1, 1.0, 40), 0.5),
        (rng.normal(3.0, 0.5, 12), rng.normal(3.0, 2.0, 30), 1.0),
        (rng.exponential(2.0, 200), rng.exponential(2.2, 150), 0.4),
        (rng.normal(0.0, 1.0, 5), rng.normal(2.0, 1.0, 7), 0.3),
    ]
    for a, b, margin in cases:
        result = tost(a, b, margin)
        # H0: diff <= -margin  <=>  mean(a) - mean(b - margin) <= 0, alternative "greater".
        lower = stats.ttest_ind(a, b - margin, equal_var=False, alternative="greater")
        upper = stats.ttest_ind(a, b + margin, equal_var=False, alternative="less")
        assert result.p_lower == pytest.approx(lower.pvalue, rel=1e-9)
        assert result.p_upper == pytest.approx(upper.pvalue, rel=1e-9)
        assert result.t_lower == pytest.approx(lower.statistic, rel=1e-12)
        assert result.t_upper == pytest.approx(upper.statistic, rel=1e-12)
        assert result.df == pytest.approx(lower.df, rel=1e-12)


def test_tost_statistics_by_hand():
    a = np.array([1.0, 2.0, 3.0, 4.0])  # mean 2.5, var 5/3
    b = np.array([2.0, 4.0, 6.0])  # mean 4, var 4
    result = tost(a, b, margin=3.0, alpha=0.1)
    va, vb = (5.0 / 3.0) / 4.0, 4.0 / 3.0
    se = math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va**2 / 3.0 + vb**2 / 2.0)
    assert result.difference == -1.5
    assert result.std_error == pytest.approx(se, rel=1e-14)
    assert result.df == pytest.approx(df, rel=1e-14)
    assert result.t_lower == pytest.approx(1.5 / se, rel=1e-14)
    assert result.t_upper == pytest.approx(-4.5 / se, rel=1e-14)
    assert result.p_lower == pytest.approx(student_t_cdf(-1.5 / se, df), rel=1e-12)
    assert result.p_value == max(result.p_lower, result.p_upper) == result.p_lower
    half = student_t_ppf(0.9, df) * se
    assert (result.ci_low, result.ci_high) == pytest.approx((-1.5 - half, -1.5 + half))
    assert (result.n_a, result.n_b, result.margin, result.alpha) == (4, 3, 3.0, 0.1)


def test_tost_accepts_large_samples_from_one_distribution():
    rng = np.random.default_rng(0)
    a = rng.normal(10.0, 2.0, 2000)
    b = rng.normal(10.0, 2.0, 2000)
    result = tost(a, b, margin=0.5)
    assert result.equivalent
    assert result.p_value < 1e-6
    assert -0.5 < result.ci_low < result.ci_high < 0.5


def test_tost_rejects_means_further_apart_than_margin():
    rng = np.random.default_rng(1)
    a = rng.normal(0.0, 1.0, 2000)
    b = rng.normal(1.0, 1.0, 2000)
    result = tost(a, b, margin=0.5)
    assert not result.equivalent
    assert result.p_value > 0.99
    assert result.p_upper < 1e-6  # clearly not above +margin; the lower side fails
    assert result.ci_high < -0.5


def test_tost_rejects_small_samples_with_tight_margin():
    # Identical distributions, but 5 noisy samples cannot pin the difference within 0.1.
    rng = np.random.default_rng(2)
    a = rng.normal(0.0, 1.0, 5)
    b = rng.normal(0.0, 1.0, 5)
    result = tost(a, b, margin=0.1)
    assert not result.equivalent
    assert result.p_value > 0.3
    assert result.ci_low < -0.1 or result.ci_high > 0.1


def test_tost_decision_agrees_with_confidence_interval():
    rng = np.random.default_rng(3)
    for _ in range(50):
        a = rng.normal(0.0, 1.0, rng.integers(2, 60))
        b = rng.normal(rng.uniform(-1, 1), rng.uniform(0.1, 3), rng.integers(2, 60))
        result = tost(a, b, margin=0.6, alpha=0.05)
        inside = -0.6 < result.ci_low and result.ci_high < 0.6
        assert result.equivalent == inside


def test_tost_is_symmetric_in_swapping_samples():
    rng = np.random.default_rng(4)
    a = rng.normal(0.2, 1.0, 30)
    b = rng.normal(0.0, 1.5, 45)
    ab, ba = tost(a, b, 0.8), tost(b, a, 0.8)
    assert ba.difference == -ab.difference != 0.0
    assert ba.p_value == ab.p_value
    assert (ba.p_lower, ba.p_upper) == (ab.p_upper, ab.p_lower)
    assert (ba.ci_low, ba.ci_high) == (-ab.ci_high, -ab.ci_low)
    assert (ba.std_error, ba.df, ba.equivalent) == (ab.std_error, ab.df, ab.equivalent)
    assert (ba.n_a, ba.n_b) == (45, 30)


def test_tost_zero_variance_in_both_samples():
    inside = tost([1.0, 1.0, 1.0], [1.5, 1.5], margin=1.0)
    assert inside.equivalent
    assert (inside.p_value, inside.std_error) == (0.0, 0.0)
    assert math.isnan(inside.df)
    assert (inside.ci_low, inside.ci_high) == (-0.5, -0.5)
    assert (inside.t_lower, inside.t_upper) == (math.inf, -math.inf)

    at_bound = tost([1.0, 1.0], [2.0, 2.0], margin=1.0)
    assert not at_bound.equivalent
    assert (at_bound.p_lower, at_bound.p_upper, at_bound.p_value) == (1.0, 0.0, 1.0)

    outside = tost([0.0, 0.0], [5.0, 5.0], margin=1.0)
    assert not outside.equivalent and outside.p_value == 1.0


def test_tost_zero_variance_in_one_sample_uses_welch():
    b = np.array([0.9, 1.1, 1.0, 1.05, 0.95])
    result = tost([1.0, 1.0, 1.0], b, margin=0.5)
    assert result.df == pytest.approx(len(b) - 1)
    assert result.std_error == pytest.approx(np.std(b, ddof=1) / math.sqrt(len(b)))
    assert result.equivalent


def test_tost_summary_is_one_readable_line():
    a = np.linspace(-1.0, 1.0, 100)
    result = tost(a, a + 0.05, margin=0.5)
    text = str(result)
    assert text == result.summary()
    assert "\n" not in text
    assert text.startswith("TOST: equivalent within ±0.5")
    assert "90% CI" in text and "n_a=100, n_b=100" in text
    failed = tost([0.0, 1.0], [0.5, 1.5], margin=0.1)
    assert str(failed).startswith("TOST: NOT shown equivalent within ±0.1")


def test_tost_result_is_frozen():
    result = tost([0.0, 1.0, 2.0], [0.5, 1.0, 1.5], margin=1.0)
    assert isinstance(result, TostResult)
    with pytest.raises(AttributeError):
        result.equivalent = True  # type: ignore[misc]


@pytest.mark.parametrize(
    ("a", "b", "kwargs", "message"),
    [
        ([1.0], [1.0, 2.0], {"margin": 1.0}, "samples_a needs at least 2"),
        ([1.0, 2.0], [], {"margin": 1.0}, "samples_b needs at least 2"),
        ([[1.0, 2.0]], [1.0, 2.0], {"margin": 1.0}, "one-dimensional"),
        ([1.0, math.nan], [1.0, 2.0], {"margin": 1.0}, "samples_a contains non-finite"),
        ([1.0, 2.0], [1.0, math.inf], {"margin": 1.0}, "samples_b contains non-finite"),
        ([1.0, 2.0], [1.0, 2.0], {"margin": 0.0}, "margin must be"),
        ([1.0, 2.0], [1.0, 2.0], {"margin": -1.0}, "margin must be"),
        ([1.0, 2.0], [1.0, 2.0], {"margin": math.inf}, "margin must be"),
        ([1.0, 2.0], [1.0, 2.0], {"margin": 1.0, "alpha": 0.0}, "alpha must be"),
        ([1.0, 2.0], [1.0, 2.0], {"margin": 1.0, "alpha": 0.5}, "alpha must be"),
        ([1.0, 2.0], [1.0, 2.0], {"margin": 1.0, "alpha": 1.2}, "alpha must be"),
    ],
)
def test_tost_validates_inputs(a, b, kwargs, message):
    with pytest.raises(ValueError, match=message):
        tost(a, b, **kwargs)
