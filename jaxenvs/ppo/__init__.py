"""The shared PPO trainer: the whole training loop in one ``jit`` (work in progress).

``make_train(config, env, env_params)(key)`` runs vectorized rollouts, GAE and minibatch
epochs; see ``train.py`` for where it departs from PureJaxRL (truncation bootstrapping,
action masks).
"""

from jaxenvs.ppo.config import PPOConfig
from jaxenvs.ppo.networks import ActorCritic, policy_distribution
from jaxenvs.ppo.train import gae, make_train

__all__ = ["ActorCritic", "PPOConfig", "gae", "make_train", "policy_distribution"]
