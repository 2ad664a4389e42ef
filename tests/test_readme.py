"""The README's Python examples run as written.

Each ```python block of README.md is executed on its own (a fresh namespace, in a temporary
folder, since the rendering example writes a GIF). Where a block prints a value and states it in
a comment (``print(x.shape)   # (100, 1024)``), the printed line must show it.
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"^```python\n(.*?)^```", README.read_text(), flags=re.S | re.M)
#: ``print(...)  # expected``: the comment states what the line prints.
STATED_OUTPUT = re.compile(r"^print\(.*\)\s+#\s*(.+)$", re.M)


def test_the_readme_has_python_examples():
    assert len(BLOCKS) >= 4, "README.md lost its ```python examples"


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_readme_example_runs(code, tmp_path, monkeypatch):
    if "pong.gif" in code:
        pytest.importorskip("PIL", reason="the rendering example needs the [render] extra")
    monkeypatch.chdir(tmp_path)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, str(README), "exec"), {"__name__": "readme_example"})
    lines = printed.getvalue().splitlines()
    for stated in STATED_OUTPUT.findall(code):
        assert any(stated.strip() in line for line in lines), (stated, lines)
    if "pong.gif" in code:
        assert (tmp_path / "pong.gif").stat().st_size > 0
