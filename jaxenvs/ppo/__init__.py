"""The shared PPO trainer: the whole training loop in one ``jit``.

``make_train(config, env, env_params)(key)`` runs vectorized rollouts, GAE and minibatch
epochs; ``make_train_parts`` runs the same in chunks of updates, for a caller that saves
between them (``jaxenvs train``). See ``train.py`` for where it departs from PureJaxRL
(truncation bootstrapping, action masks).
"""

from jaxenvs.ppo.config import PPOConfig
from jaxenvs.ppo.networks import ActorCritic, policy_distribution
from jaxenvs.ppo.train import TrainCarry, gae, make_train, make_train_parts

__all__ = ["ActorCritic", "PPOConfig", "TrainCarry", "gae", "make_train", "make_train_parts",
           "policy_distribution"]
