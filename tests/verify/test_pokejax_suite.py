"""``jaxenvs verify PokeJAX`` at a tiny size (9 battles) against Showdown in Node: it passes,
its certificate names the counts and versions, and with the engine made wrong on purpose it
fails with the first divergence. Without Node or the pinned package these tests are skipped,
except under CI (``CI`` set), as in ``tests/pokejax``; the missing-Node message is tested
everywhere."""

import os

import pytest

from jaxenvs.cli import main
from jaxenvs.pokejax.reference import reference_problem, replay
from jaxenvs.pokejax.reference import suite as pokejax
from jaxenvs.verify import get_suite, suite

SIZES = {"pool": 3, "random-team": 2, "mirror": 2, "gen1ou": 2}


@pytest.fixture
def tiny(monkeypatch):
    """``jaxenvs verify PokeJAX`` runs ``SIZES`` battles, 4 per check."""
    problem = reference_problem()
    if problem:
        if os.environ.get("CI"):
            pytest.fail(problem)
        pytest.skip(problem)
    monkeypatch.setitem(suite._suites, "PokeJAX", pokejax.make_suite(SIZES, check_battles=4))


def test_suite_is_registered_for_both_ids():
    assert get_suite("PokeJAX") is pokejax.pokejax_suite
    assert get_suite("PokeJAX2P") is pokejax.pokejax_suite
    assert suite.get_reference("PokeJAX") is pokejax.SHOWDOWN


def test_tiny_suite_passes_with_a_certificate(tiny, capsys):
    assert main(["verify", "PokeJAX"]) == 0
    out = capsys.readouterr().out
    for name in ("pool battles 0-2", "random-team battles 0-1", "mirror battles 0-1",
                 "gen1ou battles 0-1"):
        assert f"PASS  {name}  (" in out
    for field in pokejax.FIELDS:
        assert any(line.startswith(field) and line.split()[-1] == "exact"
                   for line in out.splitlines())
    certificate = " ".join(out[out.index("Certificate: jaxenvs verify PokeJAX"):].split())
    assert " 9 battles, " in certificate and " decisions in 4 checks" in certificate
    assert "first divergence none" in certificate and "PASS: 4 of 4" in certificate
    assert "worst deviation 0 " in certificate
    for version in ("jaxenvs 0.", "jax 0.", "jaxlib 0.", "Python 3.", "Pokémon Showdown 0.11.11",
                    "Node v"):
        assert version in certificate


def test_a_wrong_engine_fails_with_the_first_divergence(tiny, monkeypatch, capsys):
    """After decision 3 of every battle, p1's first Pokémon has one HP less in the replay."""
    start, chunk = replay._batched()

    def wrong_chunk(state, actions):
        state, (states, legal) = chunk(state, actions)
        return state, (states.replace(hp=states.hp.at[:, 3, 0, 0].add(-1)), legal)

    monkeypatch.setattr(replay, "_batched", lambda: (start, wrong_chunk))
    assert main(["verify", "PokeJAX"]) == 1
    out = capsys.readouterr().out
    assert "FAIL  pool battles 0-2  (" in out and "FAILED pool battles 0-2" in out
    assert "decision 3: p1 pos " in out and " hp: engine " in out
    assert "Showdown's log of that step:" in out
    rows = {line.split()[1]: line.split() for line in out.splitlines()
            if line.startswith("battle state ")}
    assert rows["state"][3] == "9"  # one mismatching report per battle
    certificate = " ".join(out[out.index("Certificate: jaxenvs verify PokeJAX"):].split())
    assert "first divergence pool battles 0-2: battle 0 (seed " in certificate
    assert "FAIL: 0 of 4" in certificate


def test_missing_node_is_one_line_and_status_2(monkeypatch, capsys):
    monkeypatch.setenv("PATH", "")
    assert main(["verify", "PokeJAX"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("jaxenvs verify: the PokeJAX suite needs Showdown: Node.js ")
