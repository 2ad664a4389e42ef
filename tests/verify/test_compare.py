"""Trajectory comparison: exact vs tolerance, first divergence, context, text reports."""

import numpy as np
import pytest

from jaxenvs.verify import EXACT, Tolerance, compare_trajectories
from jaxenvs.verify.compare import format_agreement_table, format_divergence


def _traj(steps=10):
    """A small trajectory with a scalar float, a vector float, an int and a bool field."""
    t = np.arange(steps)
    return {
        "x": (t * 0.5).astype(np.float32),
        "v": np.stack([t, -t], axis=1).astype(np.float32),
        "n": t.astype(np.int32),
        "done": t % 4 == 3,
    }


def _copy(traj):
    return {k: v.copy() for k, v in traj.items()}


def test_identical_trajectories_agree_exactly():
    ref = _traj()
    result = compare_trajectories(_copy(ref), ref)
    assert result.ok and result.divergence is None
    assert result.steps == 10
    assert list(result.fields) == ["x", "v", "n", "done"]
    for field in result.fields.values():
        assert (field.steps, field.mismatches, field.max_abs_deviation) == (10, 0, 0.0)
        assert field.first_divergence is None and field.tolerance == EXACT


def test_exact_mode_distinguishes_negative_zero_and_tolerance_does_not():
    ref = {"x": np.zeros(5, np.float32)}
    actual = {"x": ref["x"].copy()}
    actual["x"][2] = -0.0
    exact = compare_trajectories(actual, ref)
    assert not exact.ok
    field = exact.fields["x"]
    assert (field.mismatches, field.first_divergence, field.max_abs_deviation) == (1, 2, 0.0)
    assert compare_trajectories(actual, ref, Tolerance.close()).ok


def test_nan_bit_patterns():
    nan = np.float32(np.nan)
    other_nan = np.array([0x7FC00001], np.uint32).view(np.float32)[0]
    ref = {"x": np.array([nan, nan, 1.0], np.float32)}
    same = compare_trajectories({"x": ref["x"].copy()}, ref)
    assert same.ok
    payload = compare_trajectories({"x": np.array([nan, other_nan, 1.0], np.float32)}, ref)
    assert payload.fields["x"].first_divergence == 1  # exact sees the different NaN bits
    assert compare_trajectories(
        {"x": np.array([nan, other_nan, 1.0], np.float32)}, ref, Tolerance.close()).ok
    nan_vs_number = compare_trajectories(
        {"x": np.array([nan, nan, nan], np.float32)}, ref, Tolerance.close(atol=10.0))
    assert nan_vs_number.fields["x"].mismatches == 1
    assert nan_vs_number.fields["x"].max_abs_deviation == np.inf


def test_tolerance_atol_and_rtol():
    ref = {"x": np.array([1.0, 100.0, 1000.0], np.float32)}
    actual = {"x": np.array([1.0005, 100.05, 1001.0], np.float32)}
    assert compare_trajectories(actual, ref).fields["x"].mismatches == 3  # exact
    atol = compare_trajectories(actual, ref, Tolerance.close(atol=1e-3)).fields["x"]
    assert (atol.mismatches, atol.first_divergence) == (2, 1)
    assert atol.max_abs_deviation == pytest.approx(1.0)
    rtol = compare_trajectories(actual, ref, Tolerance.close(rtol=1e-3)).fields["x"]
    assert rtol.mismatches == 0
    assert rtol.max_abs_deviation == pytest.approx(1.0)


def test_per_field_tolerances_default_to_exact():
    ref = {"a": np.ones(3, np.float32), "b": np.ones(3, np.float32)}
    actual = {"a": np.full(3, 1.01, np.float32), "b": np.full(3, 1.01, np.float32)}
    result = compare_trajectories(actual, ref, {"a": Tolerance.close(atol=0.1)})
    assert result.fields["a"].ok and result.fields["a"].tolerance == Tolerance.close(atol=0.1)
    assert result.fields["b"].mismatches == 3 and result.fields["b"].tolerance == EXACT


def test_vector_field_counts_each_step_once():
    ref = _traj()
    actual = _copy(ref)
    actual["v"][6] = [100.0, 100.0]
    field = compare_trajectories(actual, ref).fields["v"]
    assert (field.mismatches, field.first_divergence, field.max_abs_deviation) == (1, 6, 106.0)


def test_first_divergence_across_fields_and_context():
    ref = _traj()
    actual = _copy(ref)
    actual["x"][7] = 99.0
    actual["n"][5] = -1
    actual["done"][5] = not actual["done"][5]
    actual["done"][9] = not actual["done"][9]
    result = compare_trajectories(actual, ref, context=2)
    d = result.divergence
    assert d.step == 5 and d.fields == ("n", "done")
    assert d.context_start == 3 and list(d.context_steps) == [3, 4, 5]
    for name in ref:
        np.testing.assert_array_equal(d.actual[name], actual[name][3:6])
        np.testing.assert_array_equal(d.expected[name], ref[name][3:6])
    assert d.mismatch["n"].tolist() == [False, False, True]
    assert d.mismatch["x"].tolist() == [False, False, False]
    assert result.fields["x"].first_divergence == 7
    assert result.fields["done"].mismatches == 2
    assert result.max_abs_deviation == pytest.approx(99.0 - 3.5)


def test_context_window_is_clipped_at_the_start():
    ref = _traj()
    actual = _copy(ref)
    actual["n"][1] = 7
    d = compare_trajectories(actual, ref, context=3).divergence
    assert d.context_start == 0 and d.step == 1 and len(d.actual["x"]) == 2


def test_invalid_comparisons_raise():
    ref = _traj()
    with pytest.raises(ValueError, match="missing.*done"):
        compare_trajectories({k: v for k, v in ref.items() if k != "done"}, ref)
    with pytest.raises(ValueError, match="shape"):
        compare_trajectories({**ref, "x": ref["x"][:-1]}, ref)
    with pytest.raises(ValueError, match="different numbers of steps"):
        compare_trajectories({"a": np.zeros(3), "b": np.zeros(4)},
                             {"a": np.zeros(3), "b": np.zeros(4)})
    with pytest.raises(ValueError, match="bit for bit"):
        compare_trajectories({**ref, "x": ref["x"].astype(np.float64)}, ref)
    # A tolerance compares values, whatever the dtypes.
    assert compare_trajectories({**ref, "x": ref["x"].astype(np.float64)}, ref,
                                Tolerance.close()).ok
    with pytest.raises(ValueError):
        Tolerance(atol=1.0)
    with pytest.raises(ValueError):
        Tolerance.close(atol=-1.0)


def test_agreement_table_shows_the_numbers():
    ref = _traj()
    actual = _copy(ref)
    actual["x"][4] = 2.25  # reference 2.0
    tolerances = {"v": Tolerance.close(atol=1e-3)}
    result = compare_trajectories(actual, ref, tolerances)
    table = format_agreement_table(result.fields.values())
    lines = table.splitlines()
    assert lines[0].split() == ["field", "steps", "mismatches", "max", "|Δ|", "tolerance"]
    assert lines[2].split() == ["x", "10", "1", "0.25", "exact"]
    assert lines[3].split() == ["v", "10", "0", "0", "atol=0.001", "rtol=0"]
    # The same field from two trajectories is summed into one row.
    twice = format_agreement_table([*result.fields.values(), *result.fields.values()])
    assert twice.splitlines()[2].split() == ["x", "20", "2", "0.25", "exact"]
    assert len(twice.splitlines()) == len(lines)


def test_divergence_report_shows_step_fields_and_both_values():
    ref = _traj()
    actual = _copy(ref)
    actual["x"][6] = -0.0 if ref["x"][6] == 0 else 17.5
    actual["n"][6] = 42
    report = format_divergence(compare_trajectories(actual, ref, context=2))
    assert "First divergence at step 6 in x, n" in report
    assert "step 4" in report and "step 5" in report and "step 6  <-- first divergence" in report
    assert "step 3" not in report
    assert "actual    17.5" in report and "expected  3.0" in report
    assert "actual    42" in report and "expected  6" in report
    assert "[ 6. -6.]" in report  # an agreeing field is shown once


def test_divergence_report_shows_signed_zeros_and_nan_bits():
    ref = {"x": np.zeros(3, np.float32)}
    actual = {"x": np.array([0.0, -0.0, 0.0], np.float32)}
    report = format_divergence(compare_trajectories(actual, ref))
    assert "actual    -0.0" in report and "expected  0.0" in report
    # NaNs differing only in payload print alike, so their bit patterns are added.
    nans = np.array([0x7FC00000, 0x7FC00001], np.uint32).view(np.float32)
    report = format_divergence(compare_trajectories({"x": nans[1:]}, {"x": nans[:1]}))
    assert "actual    nan  (0x7FC00001)" in report
    assert "expected  nan  (0x7FC00000)" in report


def test_report_without_divergence():
    ref = _traj()
    assert format_divergence(compare_trajectories(ref, ref)) == \
        "No divergence: all 4 fields agree over 10 steps."
