"""``load_benchmark_script`` and ``load_tool``: a script of ``benchmarks/`` or ``tools/`` (not
packages) imported for a test."""

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def _load(folder: str, name: str) -> ModuleType:
    path = ROOT / folder / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"{name}_{folder}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # as an import does (dataclasses look their module up)
    spec.loader.exec_module(module)
    return module


def load_benchmark_script(name: str) -> ModuleType:
    """The script ``benchmarks/NAME.py`` imported as a module."""
    return _load("benchmarks", name)


def load_tool(name: str) -> ModuleType:
    """The script ``tools/NAME.py`` (a data generator) imported as a module."""
    return _load("tools", name)
