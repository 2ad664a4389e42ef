"""RULES.md names the tests that pin each rule (every name must exist in the named file) and the
public sources each game rule follows (every one cited is listed, and every one listed cited)."""

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


def test_every_cited_source_is_listed_and_every_listed_source_cited():
    text = RULES.read_text(encoding="utf-8")
    rules, sources = text.split("\n## 10. Sources")
    listed = re.findall(r"^- \[(S\d+)\] .*?<(https://[^>]+)>", sources, re.M | re.S)
    numbers = [int(label[1:]) for label, _ in listed]
    assert numbers == list(range(1, len(listed) + 1)), "sources numbered S1, S2, ... in order"
    assert len({url for _, url in listed}) == len(listed), "a source listed twice"
    cited = set(re.findall(r"\[(S\d+)\]", rules))
    assert cited <= {label for label, _ in listed}, "a rule cites an unlisted source"
    disagreements = sources.split("Where they disagree or are silent")[1]
    assert {label for label, _ in listed} <= cited | set(re.findall(r"\[(S\d+)\]",
                                                                     disagreements))
    # Each section of game rules cites sources.
    for number in ("1", "3", "4", "5"):
        section = rules.split(f"\n## {number}. ")[1].split("\n## ")[0]
        assert "*Sources*" in section, f"section {number} cites no source"
