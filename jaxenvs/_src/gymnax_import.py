"""Import gymnax without the plotting libraries it imports only to render its own envs.

``import gymnax`` imports every gymnax environment, and some of them import seaborn (which
imports scipy.stats and pandas) and matplotlib at module level, for their ``render`` alone:
more than half of the time ``import jaxenvs`` takes. ``import_gymnax`` imports gymnax with those
modules deferred: while it runs, each of them that is not imported yet is a stand-in in
``sys.modules`` that imports the real module at its first attribute use. Afterwards the
stand-ins leave ``sys.modules``, so any later ``import seaborn`` is the real one; gymnax's
modules keep their stand-ins, which work as the real modules do, only importing them later.
"""

from __future__ import annotations

import importlib
import sys
import types

#: The modules imported at first use rather than when gymnax is imported.
DEFERRED = ("seaborn", "matplotlib", "matplotlib.pyplot", "matplotlib.colors")


class _Deferred(types.ModuleType):
    """A stand-in for a module: an attribute read imports the real module and reads it there."""

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        if sys.modules.get(self.__name__) is self:  # used while gymnax is being imported
            del sys.modules[self.__name__]
        return getattr(importlib.import_module(self.__name__), name)


def import_gymnax() -> None:
    """Import gymnax (once), the modules of ``DEFERRED`` not yet imported deferred."""
    if "gymnax" in sys.modules:
        return
    stand_ins = {name: _Deferred(name) for name in DEFERRED if name not in sys.modules}
    for name, module in stand_ins.items():
        sys.modules[name] = module
        parent, _, child = name.rpartition(".")
        if parent in stand_ins:  # `import matplotlib.pyplot as plt` reads it off its parent
            setattr(stand_ins[parent], child, module)
    try:
        importlib.import_module("gymnax")
    finally:
        for name, module in stand_ins.items():
            if sys.modules.get(name) is module:
                del sys.modules[name]
