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
    certificate = " ".join(out[out.index("Certificate: jaxenvs verify Pong"):].split())
    assert "compared exact: obs, reward, terminal, post_paddle_yl," in certificate
    assert "counted 40,000 steps in 2 checks" in certificate
    assert "worst deviation 0 " in certificate and "first divergence none" in certificate
    assert "PASS: 2 of 2 checks passed" in certificate
    for version in ("jaxenvs 0.", "jax 0.", "jaxlib 0.", "Python 3.",
                    "PufferLib 3.0.0 Ocean Pong (C) golden data, 16 runs, manifest sha256 "):
        assert version in certificate


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
    certificate = " ".join(out[out.index("Certificate: jaxenvs verify Failing"):].split())
    assert "first divergence bad: step 1 in x" in certificate
    assert "reference not stated" in certificate and "FAIL: 1 of 2" in certificate


def test_verify_prints_a_check_s_own_divergence_report(capsys, monkeypatch):
    def failing(options):
        yield CheckResult("mine", compare_trajectories({"x": [False]}, {"x": [True]}),
                          {"games": 3}, "game 2 differs\nin detail")

    monkeypatch.setitem(suite._suites, "Own", failing)
    assert main(["verify", "Own"]) == 1
    out = capsys.readouterr().out
    assert "FAILED mine\ngame 2 differs\nin detail\n" in out
    assert "First divergence at step" not in out
    certificate = " ".join(out[out.index("Certificate: jaxenvs verify Own"):].split())
    assert "counted 1 steps, 3 games in 1 checks" in certificate
    assert "first divergence mine: game 2 differs" in certificate


@pytest.mark.parametrize("argv", [["verify", "Nope"],
                                  ["verify", "Pong", "--files", "no_such_file*"],
                                  ["verify", "Pong", "--mode", "sideways"],
                                  ["verify", "PokeJAX", "--mode", "inject"],
                                  ["verify", "PokeJAX2P", "--files", "*.json"],
                                  ["verify", "TCGJax", "--mode", "inject"],
                                  ["verify", "TCGJax2P", "--files", "*.json"]])
def test_verify_cannot_run(capsys, argv):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("jaxenvs verify: ") and err.count("\n") == 1
