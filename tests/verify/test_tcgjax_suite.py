"""``jaxenvs verify TCGJax`` at a tiny size (36 games, one per ordered pairing) against the
Python reference: it passes in both batched forms, its certificate names the counts and
versions, and with the engine made wrong on purpose it fails with the first divergence."""

import jax
import jax.numpy as jnp
import pytest

from jaxenvs.cli import main
from jaxenvs.tcgjax.reference import lockstep, verification
from jaxenvs.verify import get_suite, suite


@pytest.fixture
def tiny(monkeypatch):
    """``jaxenvs verify TCGJax`` runs one batch of 36 games."""
    get_suite("TCGJax")  # registers the reference
    monkeypatch.setitem(suite._suites, "TCGJax", verification.make_suite(batches=1, batch=36))


def test_suite_is_registered_by_name_for_both_ids():
    assert get_suite("TCGJax") is verification.tcgjax_suite
    assert get_suite("TCGJax2P") is verification.tcgjax_suite
    assert "Python reference" in suite.get_reference("TCGJax").name


def test_tiny_suite_passes_with_a_certificate(tiny, capsys):
    assert main(["verify", "TCGJax"]) == 0
    out = capsys.readouterr().out
    for form in lockstep.FORMS:
        assert f"PASS  lock step games 0-35, {form} form  (" in out
    certificate = " ".join(out[out.index("Certificate: jaxenvs verify TCGJax"):].split())
    assert " 36 games, " in certificate and " decisions in 2 checks" in certificate
    assert "first divergence none" in certificate and "PASS: 2 of 2" in certificate
    for version in ("jaxenvs 0.", "jax 0.", "jaxlib 0.", "Python 3.",
                    "TCGJax Python reference sources sha256 "):
        assert version in certificate


def test_a_wrong_engine_fails_with_the_first_divergence(tiny, monkeypatch, capsys):
    """The engine's fifth decision of every game puts 10 damage on player 0's Active."""
    step, observe = lockstep.batch_step, jax.jit(jax.vmap(lockstep.observe))

    def wrong_step(states, actions, seeds, form="loop"):
        states, _ = step(states, actions, seeds, form)
        hit = jnp.where((states.decisions == 5) & (actions >= 0), 10, 0)
        states = states.replace(players=states.players.replace(
            damage=states.players.damage.at[:, 0, 0].add(hit)))
        return states, observe(states)

    monkeypatch.setattr(lockstep, "batch_step", wrong_step)
    monkeypatch.setitem(suite._suites, "TCGJax",
                        verification.make_suite(batches=1, batch=36, forms=("loop",)))
    assert main(["verify", "TCGJax"]) == 1
    out = capsys.readouterr().out
    assert "FAIL  lock step games 0-35, loop form  (" in out
    assert "first differs after action 5 " in out and "players: reference" in out
    certificate = " ".join(out[out.index("Certificate: jaxenvs verify TCGJax"):].split())
    assert "first divergence lock step games 0-35, loop form: game 0 (seed 100000, " in certificate
    assert "FAIL: 0 of 1" in certificate
