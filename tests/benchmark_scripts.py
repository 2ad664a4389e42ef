"""``load_benchmark_script``: a script of ``benchmarks/`` (not a package) imported for a test."""

import importlib.util
from pathlib import Path
from types import ModuleType


def load_benchmark_script(name: str) -> ModuleType:
    """The script ``benchmarks/NAME.py`` imported as a module."""
    path = Path(__file__).resolve().parents[1] / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"{name}_benchmark", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
