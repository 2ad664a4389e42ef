"""Which environment an id names for training, and the PPO settings each one starts from."""

from __future__ import annotations

from typing import Any

import gymnax

import jaxenvs
from jaxenvs.ppo.config import PPOConfig

#: CleanRL's continuous-action PPO (2,048 transitions per update, here 8 envs x 256 steps; 32
#: minibatches, 10 epochs, learning rate 3e-4 annealed, tanh 64 x 64, normalized observations
#: and scaled rewards), without value clipping. Hopper and Walker2d learn to walk with it in
#: 1M steps; with the Stable-Baselines3 zoo's tuned settings Hopper stood still (a return of
#: about 1,000) and Walker2d stayed under 700 after 500k steps.
_CLEANRL_CONTINUOUS = PPOConfig(total_timesteps=1_000_000, num_envs=8, num_steps=256,
                                update_epochs=10, num_minibatches=32, learning_rate=3e-4,
                                anneal_lr=True, gamma=0.99, gae_lambda=0.95, clip_eps=0.2,
                                clip_value=False, ent_coef=0.0, vf_coef=0.5,
                                max_grad_norm=0.5, hidden_sizes=(64, 64), activation="tanh",
                                log_std_init=0.0, normalize_observations=True,
                                scale_rewards=True)

#: Documented starting points per env id; any other id gets ``PPOConfig()``.
DEFAULT_CONFIGS: dict[str, PPOConfig] = {
    # PureJaxRL's CartPole settings, which solve it (mean return near the cap of 500).
    "CartPole-v1": PPOConfig(),
    # Frameskip 8: enough steps to beat the scripted opponent (mean return > 0) and then win
    # points in long rallies (the curve: docs/pong_learning_curve.png). A larger entropy bonus
    # than CartPole's keeps the policy from collapsing onto "stay" early.
    "Pong": PPOConfig(total_timesteps=10_000_000, num_envs=256, num_steps=128,
                      num_minibatches=16, learning_rate=2.5e-4, ent_coef=0.05),
    # Against the random opponent (benchmarks/results/tcgjax-l4.md). The observation is raw
    # integers (card indices up to 385, damage, turns): tanh keeps the activations bounded;
    # ReLU nets of this size start far from uniform and their win rate drifted down.
    "TCGJax": PPOConfig(total_timesteps=1_000_000, num_envs=128, num_steps=64,
                        num_minibatches=4, learning_rate=3e-4, ent_coef=0.01),
    # Against the random opponent, the 10,000-team pool: the return levels off early in the
    # run (the learning curve and wall time: benchmarks/results/pokejax-l4.md).
    "PokeJAX": PPOConfig(total_timesteps=1_500_000, num_envs=128, num_steps=64,
                         num_minibatches=4, learning_rate=3e-4, ent_coef=0.01),
    # Stable-Baselines3 zoo's tuned HalfCheetah PPO (1 env x 512 steps there; 8 x 64 here,
    # the same 512 transitions per update), with normalized observations and scaled rewards.
    "HalfCheetah": PPOConfig(total_timesteps=1_000_000, num_envs=8, num_steps=64,
                             update_epochs=20, num_minibatches=8, learning_rate=2.0633e-5,
                             anneal_lr=False, gamma=0.98, gae_lambda=0.92, clip_eps=0.1,
                             clip_value=False, ent_coef=0.000401762, vf_coef=0.58096,
                             max_grad_norm=0.8, hidden_sizes=(256, 256), activation="relu",
                             log_std_init=-2.0, normalize_observations=True,
                             scale_rewards=True),
    # benchmarks/results/hopper-l4.md and walker2d-l4.md.
    "Hopper": _CLEANRL_CONTINUOUS,
    "Walker2d": _CLEANRL_CONTINUOUS,
}


def default_config(env_id: str) -> PPOConfig:
    """The starting ``PPOConfig`` for ``env_id``."""
    return DEFAULT_CONFIGS.get(env_id, PPOConfig())


def make_env(env_id: str, **overrides: Any):
    """``(env, params)`` for a jaxenvs id, or else a gymnax id (e.g. ``CartPole-v1``).

    Unknown ids raise jaxenvs' ``ValueError`` (listing the registered ids).
    """
    if env_id in jaxenvs.registered_envs:
        return jaxenvs.make(env_id, **overrides)
    if env_id in gymnax.registered_envs:
        env, params = gymnax.make(env_id)
        return env, params.replace(**overrides) if overrides else params
    return jaxenvs.make(env_id)  # raises with the list of ids and the closest match
