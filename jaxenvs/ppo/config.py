"""PPO's hyperparameters: one typed, documented config shared by every environment."""

from __future__ import annotations

import dataclasses
import math


@dataclasses.dataclass(frozen=True)
class PPOConfig:
    """Hyperparameters of ``make_train``. Defaults are PureJaxRL's CartPole settings.

    One update consumes ``num_envs * num_steps`` transitions; ``total_timesteps`` is rounded
    down to a whole number of updates.
    """

    total_timesteps: int = 500_000
    """Environment steps (summed over the batch) of the whole run."""
    num_envs: int = 4
    """Environments stepped in parallel (``vmap``)."""
    num_steps: int = 128
    """Rollout length per environment between updates."""
    update_epochs: int = 4
    """Passes over each rollout."""
    num_minibatches: int = 4
    """Minibatches per epoch; must divide ``num_envs * num_steps``."""
    learning_rate: float = 2.5e-4
    """Adam step size (at the start, if annealed)."""
    anneal_lr: bool = True
    """Decay the learning rate linearly to 0 over the run."""
    gamma: float = 0.99
    """Discount factor."""
    gae_lambda: float = 0.95
    """GAE's lambda."""
    clip_eps: float = 0.2
    """PPO's ratio clipping (also used for the value function if ``clip_value``)."""
    clip_value: bool = True
    """Clip each value prediction to within ``clip_eps`` of the rollout's (PureJaxRL's
    choice); off, the value loss is the plain squared error (Stable-Baselines3's default)."""
    ent_coef: float = 0.01
    """Entropy bonus weight."""
    vf_coef: float = 0.5
    """Value loss weight."""
    max_grad_norm: float = 0.5
    """Global gradient-norm clip."""
    hidden_sizes: tuple[int, ...] = (64, 64)
    """Widths of the actor's and the critic's hidden layers (separate networks)."""
    activation: str = "tanh"
    """Hidden activation: ``tanh`` or ``relu``."""
    log_std_init: float = 0.0
    """Initial log standard deviation of a continuous policy's Gaussian (a learned,
    state-independent parameter); e.g. -2 starts with std 0.14 on a [-1, 1] action box."""
    normalize_observations: bool = False
    """Train on observations normalized by running statistics shared across the env batch
    (``jaxenvs.wrappers.NormalizeObservation``); the statistics are saved with the checkpoint
    and applied, frozen, at evaluation."""
    scale_rewards: bool = False
    """Divide rewards by the running std of the discounted return
    (``jaxenvs.wrappers.ScaleReward``); logged returns stay in the env's own units."""

    @property
    def batch_size(self) -> int:
        """Transitions per update."""
        return self.num_envs * self.num_steps

    @property
    def num_updates(self) -> int:
        """Whole updates in ``total_timesteps``."""
        return self.total_timesteps // self.batch_size

    def __post_init__(self) -> None:
        errors = _type_errors(self)
        if errors:  # the ranges below need the right types
            raise ValueError("Invalid PPOConfig: " + "; ".join(errors))
        for name in _POSITIVE_INTS:
            if getattr(self, name) < 1:
                errors.append(f"{name} must be >= 1, got {getattr(self, name)}")
        if not errors and self.batch_size % self.num_minibatches:
            errors.append(f"num_minibatches ({self.num_minibatches}) must divide "
                          f"num_envs * num_steps ({self.batch_size})")
        if not errors and self.num_updates < 1:
            errors.append(f"total_timesteps ({self.total_timesteps}) is less than one update "
                          f"(num_envs * num_steps = {self.batch_size})")
        for name in ("learning_rate", "clip_eps", "max_grad_norm"):
            if not getattr(self, name) > 0:
                errors.append(f"{name} must be > 0, got {getattr(self, name)}")
        for name in ("ent_coef", "vf_coef"):
            if not getattr(self, name) >= 0:
                errors.append(f"{name} must be >= 0, got {getattr(self, name)}")
        for name in ("gamma", "gae_lambda"):
            if not 0 <= getattr(self, name) <= 1:
                errors.append(f"{name} must lie in [0, 1], got {getattr(self, name)}")
        if not self.hidden_sizes or min(self.hidden_sizes) < 1:
            errors.append(f"hidden_sizes must be one or more widths >= 1, got "
                          f"{self.hidden_sizes}")
        if self.activation not in ("tanh", "relu"):
            errors.append(f"activation must be 'tanh' or 'relu', got {self.activation!r}")
        if errors:
            raise ValueError("Invalid PPOConfig: " + "; ".join(errors))


_POSITIVE_INTS = ("total_timesteps", "num_envs", "num_steps", "update_epochs",
                  "num_minibatches")
_BOOLS = ("anneal_lr", "clip_value", "normalize_observations", "scale_rewards")


def _type_errors(config: PPOConfig) -> list[str]:
    """What in ``config`` has the wrong type: ints that are not ints (a bool is not one),
    floats that are not finite numbers, flags that are not bools, widths that are not a
    tuple of ints."""
    errors = []
    for field in dataclasses.fields(config):
        value, name = getattr(config, field.name), field.name
        if name in _POSITIVE_INTS:
            ok = isinstance(value, int) and not isinstance(value, bool)
            wanted = "an int"
        elif name in _BOOLS:
            ok, wanted = isinstance(value, bool), "true or false"
        elif name == "hidden_sizes":
            ok = isinstance(value, tuple) and all(
                isinstance(width, int) and not isinstance(width, bool) for width in value)
            wanted = "a tuple of ints"
        elif name == "activation":
            ok, wanted = isinstance(value, str), "a string"
        else:
            ok = (isinstance(value, (int, float)) and not isinstance(value, bool)
                  and math.isfinite(value))
            wanted = "a finite number"
        if not ok:
            errors.append(f"{name} must be {wanted}, got {value!r}")
    return errors
