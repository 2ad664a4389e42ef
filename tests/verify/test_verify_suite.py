"""The suite registry and runner, with stand-in suites."""

import numpy as np
import pytest

from jaxenvs.verify import CheckResult, SuiteOptions, compare_trajectories, suite
from jaxenvs.verify import available_suites, get_suite, register_suite, run_suite


def _check(name, steps, diverge_at=None):
    """A check comparing ``steps`` steps, diverging by 0.5 at ``diverge_at`` if given."""
    ref = {"x": np.zeros(steps, np.float32)}
    actual = {"x": ref["x"].copy()}
    if diverge_at is not None:
        actual["x"][diverge_at] = 0.5
    return CheckResult(name, compare_trajectories(actual, ref))


@pytest.fixture
def stand_in(monkeypatch):
    """Registers ``"StandIn"``: two passing checks and one failing, per selected mode."""
    seen = []

    def fn(options):
        seen.append(options)
        for mode in options.modes:
            yield _check(f"{mode} a", 10)
            yield _check(f"{mode} b", 20, diverge_at=3)
            yield _check(f"{mode} c", 5)

    monkeypatch.setitem(suite._suites, "StandIn", fn)
    return seen


def test_run_suite_summarises(stand_in):
    progress = []
    result = run_suite("StandIn", SuiteOptions(mode="replay"), on_check=progress.append)
    assert [c.name for c in progress] == ["replay a", "replay b", "replay c"]
    assert result.checks == tuple(progress)
    assert (result.passed, result.failed, result.ok) == (2, 1, False)
    assert result.steps == 35 and result.worst_deviation == 0.5
    assert stand_in == [SuiteOptions(mode="replay")]
    assert result.summary() == ("StandIn: 3 checks, 2 passed, 1 failed; 35 steps compared; "
                                "worst |Δ| 0.5")


def test_run_suite_defaults_to_all_modes(stand_in):
    result = run_suite("StandIn")
    assert len(result.checks) == 6 and stand_in[0].modes == ("inject", "replay")


def test_a_suite_without_checks_does_not_pass(monkeypatch):
    monkeypatch.setitem(suite._suites, "Empty", lambda options: iter(()))
    assert not run_suite("Empty").ok


def test_unknown_suite_lists_available_ones():
    with pytest.raises(ValueError, match=r"No verification suite for 'Nope'.*Pong"):
        get_suite("Nope")
    # A registered environment without a suite of its own is just as unknown. (The list holds
    # every suite imported so far in this process, so other envs' suites may come with Pong.)
    with pytest.raises(ValueError,
                       match=r"'PongContinuous'.*Suites exist for: (\w+, )*Pong(, \w+)*\.$"):
        run_suite("PongContinuous")


def test_pong_suite_is_found_beside_the_environment():
    assert "Pong" in available_suites()
    from jaxenvs.pong.reference import pong_suite

    assert get_suite("Pong") is pong_suite


def test_register_suite_refuses_duplicates(stand_in):
    with pytest.raises(ValueError, match="already registered"):
        register_suite("StandIn", lambda options: ())
    with pytest.raises(TypeError):
        register_suite("Other", "not callable")


def test_invalid_mode():
    with pytest.raises(ValueError, match="mode"):
        SuiteOptions(mode="sideways")


def test_a_suite_registered_by_name_is_imported_when_requested(monkeypatch):
    monkeypatch.setattr(suite, "_suites", dict(suite._suites))
    monkeypatch.setattr(suite, "_references", dict(suite._references))
    reference = suite.ReferenceInfo("stand-in", lambda: {"it": "1.0"})
    register_suite("ByName", "jaxenvs.pong.reference:pong_suite", reference=reference)
    from jaxenvs.pong.reference import pong_suite

    assert get_suite("ByName") is pong_suite and suite.get_reference("ByName") is reference
    with pytest.raises(TypeError):
        register_suite("NoFunction", "jaxenvs.pong.reference")


def test_counts_add_up_over_checks(monkeypatch):
    def fn(options):
        yield CheckResult("a", _check("a", 4).comparison, {"games": 2, "decisions": 3})
        yield CheckResult("b", _check("b", 6).comparison, {"games": 1})

    monkeypatch.setitem(suite._suites, "Counted", fn)
    assert run_suite("Counted").counts == {"games": 3, "decisions": 3}


def test_options_a_suite_cannot_honour_are_refused():
    suite.check_options("X", SuiteOptions(mode="replay", full=True), ("replay",), files=False)
    with pytest.raises(ValueError, match=r"^the X suite has no 'inject' checks; --mode takes "
                                         r"replay or all$"):
        suite.check_options("X", SuiteOptions(mode="inject"), ("replay",))
    with pytest.raises(ValueError, match=r"^the X suite reads no files"):
        suite.check_options("X", SuiteOptions(files="*"), files=False)


def test_pong_ignores_full():
    one = "pong_fs8_seed0_random.npz"
    quick, full = (run_suite("Pong", SuiteOptions(files=one, full=f)) for f in (False, True))
    assert full.ok and [c.name for c in full.checks] == [c.name for c in quick.checks]


def test_halfcheetah_names_mujoco_in_its_certificate():
    pytest.importorskip("mujoco")
    get_suite("HalfCheetah")
    versions = suite.get_reference("HalfCheetah").versions()
    assert set(versions) == {"MuJoCo", "gymnasium"}
