"""The base class every jaxenvs environment derives from.

It is gymnax's ``Environment`` (so gymnax wrappers, adapters and the gymnax 1.0 contract of
``reset``/``step`` with auto-reset and ``info["final_observation"]`` apply unchanged) plus the
one thing gymnax lacks: checking parameters where they are made, with a readable error, rather
than deep inside a trace.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from gymnax.environments import environment


class Environment(environment.Environment):
    """A gymnax environment with parameter checking.

    Subclasses implement gymnax's ``step_env``, ``reset_env``, spaces and ``default_params``,
    and override ``check_params`` to reject parameter values that would make the dynamics
    meaningless. ``jaxenvs.make`` calls it for every parameter set it returns.
    """

    def check_params(self, params: Any) -> None:
        """Raise ``ValueError`` naming each invalid field of ``params``; accept by default."""

    def make_params(self, **overrides: Any) -> Any:
        """``default_params`` with ``overrides`` applied, checked. Unknown names raise."""
        defaults = self.default_params
        names = [f.name for f in dataclasses.fields(defaults)]
        unknown = sorted(set(overrides) - set(names))
        if unknown:
            raise ValueError(
                f"{self.name} has no parameter(s) {', '.join(unknown)}; "
                f"its parameters are: {', '.join(names)}"
            )
        params = defaults.replace(**overrides)
        self.check_params(params)
        return params
