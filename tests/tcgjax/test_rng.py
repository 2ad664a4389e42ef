"""The random sources (the JAX stream itself is checked in test_games.py)."""

import pytest

from jaxenvs.tcgjax.rng import JaxKeyRandomSource, PythonRandomSource, ScriptedRandomSource


@pytest.mark.parametrize("make", [PythonRandomSource, JaxKeyRandomSource])
def test_sources_answer_in_range(make):
    source = make(3)
    assert sorted(source.permutation(20)) == list(range(20))
    assert source.permutation(0) == [] and sorted(source.permutation(7)) == list(range(7))
    assert all(0 <= source.randint(3) < 3 for _ in range(5))
    assert {source.coin() for _ in range(40)} == {True, False}
    assert source.counter == 48
    with pytest.raises(ValueError):
        source.randint(0)
    with pytest.raises(ValueError):
        source.permutation(21)


def test_python_source_is_seeded():
    a, b = PythonRandomSource(5), PythonRandomSource(5)
    assert [a.randint(100) for _ in range(10)] == [b.randint(100) for _ in range(10)]


def test_scripted_source_refuses_unexpected_calls():
    source = ScriptedRandomSource(coins=[True], ints=[1])
    assert source.coin() is True and source.randint(2) == 1
    with pytest.raises(AssertionError, match="unexpected coin"):
        source.coin()
    with pytest.raises(AssertionError, match="not in 0..1"):
        ScriptedRandomSource(ints=[2]).randint(2)
    assert ScriptedRandomSource(identity_perms=True).permutation(3) == [0, 1, 2]
