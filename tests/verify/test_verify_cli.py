"""``jaxenvs verify``: progress, summary, failure report and exit status."""

import numpy as np
import pytest

from jaxenvs.cli import main
from jaxenvs.verify import CheckResult, compare_trajectories, suite


def test_verify_pong_one_file(capsys):
    assert main(["verify", "Pong", "--files", "pong_fs8_seed0_random.npz"]) == 0
    out = capsys.readouterr().out
    assert "PASS  state injection pong_fs8_seed0_random.npz  (20,000 steps" in out
    assert "PASS  replay pong_fs8_seed0_random.npz  (20,000 steps" in out
    assert "field" in out and "mismatches" in out and "max |Δ|" in out
    rows = [line.split() for line in out.splitlines()]
    assert ["obs", "40,000", "0", "0", "exact"] in rows  # both checks, summed
    assert ["pre_last_obs", "20,000", "0", "0", "exact"] in rows  # replay only
    assert "Pong: 2 checks, 2 passed, 0 failed; 40,000 steps compared; worst |Δ| 0" in out
    assert "FAIL" not in out


def test_verify_reports_failures(capsys, monkeypatch):
    def failing(options):
        ref = {"x": np.zeros(8, np.float32)}
        yield CheckResult("good", compare_trajectories(ref, ref))
        yield CheckResult("bad", compare_trajectories({"x": np.arange(8, dtype=np.float32)},
                                                      ref))

    monkeypatch.setitem(suite._suites, "Failing", failing)
    assert main(["verify", "Failing", "--mode", "inject"]) == 1
    out = capsys.readouterr().out
    assert "PASS  good" in out and "FAIL  bad" in out
    assert "Failing: 2 checks, 1 passed, 1 failed; 16 steps compared; worst |Δ| 7" in out
    assert "FAILED bad" in out and "First divergence at step 1 in x" in out


@pytest.mark.parametrize("argv", [["verify", "Nope"],
                                  ["verify", "Pong", "--files", "no_such_file*"]])
def test_verify_cannot_run(capsys, argv):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("jaxenvs verify: ")
