"""jaxenvs: verified, high-performance JAX reinforcement-learning environments.

``env, params = jaxenvs.make("Pong")`` gives a gymnax 1.0 environment; ``jaxenvs.api_test``
checks any environment against that contract.
"""

from jaxenvs.api_test import ApiTestError, ApiTestReport, api_test
from jaxenvs.environment import Environment
from jaxenvs.registry import make, register, registered_envs
from jaxenvs.halfcheetah import HalfCheetah
from jaxenvs.pokejax import PokeJAX, PokeJAX2P
from jaxenvs.pong import Pong
from jaxenvs.tcgjax import TCGJax, TCGJax2P

__version__ = "0.1.0"

register("Pong", Pong)
register("PongContinuous", Pong, env_kwargs={"continuous": True})
register("HalfCheetah", HalfCheetah)
register("PokeJAX", PokeJAX)
register("PokeJAX2P", PokeJAX2P)
register("TCGJax", TCGJax)
register("TCGJax2P", TCGJax2P)

__all__ = [
    "ApiTestError", "ApiTestReport", "Environment", "api_test", "make", "register",
    "registered_envs", "__version__",
]
