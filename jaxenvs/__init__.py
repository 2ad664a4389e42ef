"""jaxenvs: verified, high-performance JAX reinforcement-learning environments.

``env, params = jaxenvs.make("Pong")`` gives a gymnax 1.0 environment; ``jaxenvs.api_test``
checks any environment against that contract; ``jaxenvs.gymnasium_env("Pong")`` gives it as a
Gymnasium environment.
"""

from jaxenvs.api_test import ApiTestError, ApiTestReport, api_test
from jaxenvs.environment import Environment
from jaxenvs.registry import make, register, registered_envs
from jaxenvs.halfcheetah import HalfCheetah
from jaxenvs.pokejax import PokeJAX, PokeJAX2P
from jaxenvs.pong import Pong
from jaxenvs.tcgjax import TCGJax, TCGJax2P

__version__ = "0.1.0"


def gymnasium_env(env_id: str, num_envs: int | None = None, **params):
    """``env_id`` as a ``gymnasium.Env``, or with ``num_envs`` a ``gymnasium.vector.VectorEnv``
    (``jaxenvs.gymnasium_adapter``; needs ``pip install gymnasium``)."""
    try:
        from jaxenvs.gymnasium_adapter import gymnasium_env as build
    except ModuleNotFoundError as error:
        if error.name != "gymnasium":
            raise
        raise ModuleNotFoundError("jaxenvs.gymnasium_env needs gymnasium: pip install "
                                  "'jaxenvs[gymnasium]'", name="gymnasium") from error
    return build(env_id, num_envs, **params)


register("Pong", Pong)
register("PongContinuous", Pong, env_kwargs={"continuous": True})
register("HalfCheetah", HalfCheetah)
register("PokeJAX", PokeJAX)
register("PokeJAX2P", PokeJAX2P)
register("TCGJax", TCGJax)
register("TCGJax2P", TCGJax2P)

__all__ = [
    "ApiTestError", "ApiTestReport", "Environment", "api_test", "gymnasium_env", "make",
    "register", "registered_envs", "__version__",
]
