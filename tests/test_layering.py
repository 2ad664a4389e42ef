"""The import contracts of ``pyproject.toml`` (``[tool.importlinter]``) hold: the XLA:CPU fast
path is reached through its gate only, what ``import jaxenvs`` loads reaches no reference,
verification, MuJoCo or Node, and no package's modules import each other in a cycle."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_the_import_contracts_hold():
    lint = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    if lint is None:
        pytest.fail("lint-imports is missing: install the [test] extra (import-linter)")
    result = subprocess.run([lint, str(ROOT / "pyproject.toml")], cwd=ROOT,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]


def test_importing_jaxenvs_loads_no_reference_verification_fast_path_or_mujoco():
    """What the contracts say of imports, seen in a fresh process: the fast path is imported
    by the gate when something is traced on it, references and verification on demand."""
    code = ("import sys, jaxenvs; print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('mujoco', 'brax') or '.reference' in m or 'cpu_kernels' in m "
            "or m.startswith('jaxenvs.verify')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def test_importing_jaxenvs_defers_gymnax_plotting_imports_to_their_first_use():
    """gymnax imports seaborn and matplotlib for its own envs' rendering; ``import jaxenvs``
    leaves them unimported (``_src.gymnax_import``), and gymnax's modules still reach the real
    ones when they use them, while ``sys.modules`` holds no stand-in."""
    code = """
import sys, types
import jaxenvs
plotting = ('seaborn', 'matplotlib', 'scipy.stats', 'pandas')
print(sorted(m for m in sys.modules if m in plotting))
from gymnax.environments.misc import pong
import matplotlib.colors, matplotlib.pyplot, seaborn
print(pong.sns.color_palette is seaborn.color_palette,
      pong.plt.subplots is matplotlib.pyplot.subplots,
      pong.colors.ListedColormap is matplotlib.colors.ListedColormap,
      all(type(sys.modules[m]) is types.ModuleType for m in plotting))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split("\n")
    assert out[:2] == ["[]", "True True True True"]
