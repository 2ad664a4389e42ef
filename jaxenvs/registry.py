"""Environment ids and their constructors: ``make``, ``register`` and ``registered_envs``."""

from __future__ import annotations

import difflib
import importlib
from typing import Any, Callable

from jaxenvs.environment import Environment

#: Ids of every registered environment, in registration order (kept in sync by ``register``).
registered_envs: list[str] = []
_constructors: dict[str, tuple[Callable[..., Environment], dict[str, Any]]] = {}
#: The environment ``make`` built for each id: ``reset`` and ``step`` are jitted with the env
#: as a static argument, so a new instance would compile them again.
_instances: dict[str, Environment] = {}


def register(
    env_id: str,
    constructor: Callable[..., Environment],
    *,
    env_kwargs: dict[str, Any] | None = None,
    overwrite: bool = False,
) -> None:
    """Make ``jaxenvs.make(env_id)`` build ``constructor(**env_kwargs)``.

    ``constructor`` returns a ``jaxenvs.Environment`` (usually it is the class itself).
    Registering an id twice raises unless ``overwrite=True``.
    """
    if not isinstance(env_id, str) or not env_id:
        raise ValueError(f"env_id must be a non-empty string, got {env_id!r}")
    if not callable(constructor):
        raise TypeError(f"constructor for {env_id!r} must be callable, got {constructor!r}")
    if env_id in _constructors and not overwrite:
        raise ValueError(f"{env_id!r} is already registered; pass overwrite=True to replace it")
    _constructors[env_id] = (constructor, dict(env_kwargs or {}))
    _instances.pop(env_id, None)
    if env_id not in registered_envs:
        registered_envs.append(env_id)


def make(env_id: str, **param_overrides: Any) -> tuple[Environment, Any]:
    """Build a registered environment and its parameters.

    Keyword arguments override fields of the environment's default parameters, e.g.
    ``jaxenvs.make("Pong", frameskip=1)``; they are checked here, so a bad value fails now with
    a message naming the field, not later inside ``jit``.

    Returns ``(env, params)``; ``env`` is the same instance at every call for an id, so its
    compiled ``reset`` and ``step`` are reused. Raises ``ValueError`` for an unknown id
    (listing the registered ids and the closest match) or for unknown or invalid parameters.
    """
    if env_id not in _constructors:
        close = difflib.get_close_matches(str(env_id), registered_envs, n=1, cutoff=0.0)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise ValueError(
            f"Unknown environment id {env_id!r}.{hint} "
            f"Registered ids: {', '.join(registered_envs)}."
        )
    if env_id not in _instances:
        constructor, env_kwargs = _constructors[env_id]
        _instances[env_id] = constructor(**env_kwargs)
    env = _instances[env_id]
    return env, env.make_params(**param_overrides)


def import_reference_adapter(env_id: str) -> None:
    """Import the ``reference`` module beside ``env_id``'s class (e.g. ``jaxenvs.pong.reference``
    for ``jaxenvs.pong.env.Pong``).

    That module connects the environment to its reference simulator: importing it registers
    the env's verification suite (``jaxenvs.verify``) and its benchmark reference
    (``jaxenvs.bench``). Imported on demand, so ``import jaxenvs`` stays light. Does nothing
    for an unregistered id or a package without such a module.
    """
    if env_id not in _constructors:
        return
    env, _ = make(env_id)
    package = type(env).__module__.rpartition(".")[0]
    if not package:
        return
    module = f"{package}.reference"
    try:
        importlib.import_module(module)
    except ModuleNotFoundError as error:
        if error.name != module:  # the module exists but something it imports does not
            raise
