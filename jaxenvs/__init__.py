"""jaxenvs: verified, high-performance JAX reinforcement-learning environments.

``env, params = jaxenvs.make("Pong")`` gives a gymnax 1.0 environment; ``jaxenvs.api_test``
checks any environment against that contract; ``jaxenvs.gymnasium_env("Pong")`` gives it as a
Gymnasium environment and ``jaxenvs.pettingzoo_env("TCGJax2P")`` a two-player one as a
PettingZoo environment.
"""

import importlib

from jaxenvs._src.gymnax_import import import_gymnax

import_gymnax()  # before the modules below import gymnax: without its plotting imports

from jaxenvs.api_test import ApiTestError, ApiTestReport, api_test
from jaxenvs.environment import Environment
from jaxenvs.registry import make, register, registered_envs
from jaxenvs.halfcheetah import HalfCheetah
from jaxenvs.hopper import Hopper
from jaxenvs.pokejax import PokeJAX, PokeJAX2P
from jaxenvs.pong import Pong
from jaxenvs.tcgjax import TCGJax, TCGJax2P
from jaxenvs.walker2d import Walker2d

__version__ = "0.1.0"


def _adapter(module: str, package: str):
    """``module``'s adapter function, or an error naming the extra that installs
    ``package``."""
    try:
        return getattr(importlib.import_module(f"jaxenvs.{module}_adapter"), f"{module}_env")
    except ModuleNotFoundError as error:
        if error.name != package:
            raise
        raise ModuleNotFoundError(f"jaxenvs.{module}_env needs {package}: pip install "
                                  f"'jaxenvs[{module}]'", name=package) from error


def gymnasium_env(env_id: str, num_envs: int | None = None, **params):
    """``env_id`` as a ``gymnasium.Env``, or with ``num_envs`` a ``gymnasium.vector.VectorEnv``
    (``jaxenvs.gymnasium_adapter``; needs ``pip install gymnasium``)."""
    return _adapter("gymnasium", "gymnasium")(env_id, num_envs, **params)


def pettingzoo_env(env_id: str, **params):
    """The two-player env ``env_id`` as a PettingZoo ``AECEnv`` (``jaxenvs.pettingzoo_adapter``;
    needs ``pip install pettingzoo``)."""
    return _adapter("pettingzoo", "pettingzoo")(env_id, **params)


register("Pong", Pong)
register("PongContinuous", Pong, env_kwargs={"continuous": True})
register("HalfCheetah", HalfCheetah)
register("Hopper", Hopper)
register("Walker2d", Walker2d)
register("PokeJAX", PokeJAX)
register("PokeJAX2P", PokeJAX2P)
register("TCGJax", TCGJax)
register("TCGJax2P", TCGJax2P)

__all__ = [
    "ApiTestError", "ApiTestReport", "Environment", "api_test", "gymnasium_env", "make",
    "pettingzoo_env", "register", "registered_envs", "__version__",
]
