"""The README's and ``docs/``'s links to files and headings in this repository lead somewhere.

The figures behind the README's table live in one document per environment (``docs/``), which
the README links by heading; a renamed heading or a moved file would otherwise leave a dead link
that no test notices.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
#: ``[text](target)``, where the target is not a web address.
LOCAL_LINK = re.compile(r"\]\((?!https?://)([^)\s]+)\)")


def anchors(markdown: str) -> set[str]:
    """The anchors GitHub gives a document's headings: lower case, punctuation other than
    hyphens dropped, spaces as hyphens."""
    found = set()
    for heading in re.findall(r"^#{1,6} (.+)$", markdown, flags=re.M):
        found.add(re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-"))
    return found


def test_anchors_follow_githubs_rule():
    assert anchors("## On one GPU (NVIDIA H200)\n### L3: rollouts, and more") == {
        "on-one-gpu-nvidia-h200", "l3-rollouts-and-more"}


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: p.name)
def test_local_links_lead_to_a_file_and_heading(document):
    text = document.read_text()
    # fenced code is not markdown
    text_outside_code = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    dead = []
    for target in LOCAL_LINK.findall(text_outside_code):
        path, _, anchor = target.partition("#")
        linked = (document.parent / path).resolve() if path else document
        if not linked.exists():
            dead.append(f"{target}: no file {linked.relative_to(ROOT)}")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked.read_text()):
            dead.append(f"{target}: no heading #{anchor} in {linked.relative_to(ROOT)}")
    assert not dead, f"{document.name}: " + "; ".join(dead)
