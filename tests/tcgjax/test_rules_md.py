"""RULES.md names the tests that pin each rule: every name must exist in the named file."""

import re
from pathlib import Path

import jaxenvs.tcgjax

RULES = Path(jaxenvs.tcgjax.__file__).parent / "RULES.md"
TESTS = Path(__file__).parent


def defined_tests() -> dict[str, set[str]]:
    return {p.stem.removeprefix("test_"): set(re.findall(r"^def (test_\w+)", p.read_text(), re.M))
            for p in TESTS.glob("test_*.py")}


def test_every_named_test_exists():
    text = RULES.read_text(encoding="utf-8")
    tests = defined_tests()
    qualified = re.findall(r"(\w+)::(test_\w+)", text)
    assert len(qualified) > 40
    for file, name in qualified:
        assert name in tests[file], f"RULES.md names {file}::{name}, which does not exist"
    every = set().union(*tests.values())
    for name in re.findall(r"\b(test_\w+)\b(?!\.py)", text):
        assert name in every, f"RULES.md names {name}, which does not exist"
    # Every rule test and every effect test is cited.
    cited = set(re.findall(r"\b(test_\w+)\b(?!\.py)", text))
    assert tests["rules"] <= cited and tests["effects"] <= cited
