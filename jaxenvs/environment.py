"""The base class every jaxenvs environment derives from.

It is gymnax's ``Environment`` (so gymnax wrappers, adapters and the gymnax 1.0 contract of
``reset``/``step`` with auto-reset and ``info["final_observation"]`` apply unchanged) plus two
things gymnax lacks: checking parameters where they are made, with a readable error, rather
than deep inside a trace; and, for environments whose reset costs a good part of a step, an
auto-reset that resets only the finished envs of a batch.
"""

from __future__ import annotations

import dataclasses
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
from gymnax.environments import environment

from jaxenvs import branches, rounds
from jaxenvs.loop_vmap import loop_vmap


class Environment(environment.Environment):
    """A gymnax environment with parameter checking.

    Subclasses implement gymnax's ``step_env``, ``reset_env``, spaces and ``default_params``,
    and override ``check_params`` to reject parameter values that would make the dynamics
    meaningless. ``jaxenvs.make`` calls it for every parameter set it returns.

    gymnax's ``step`` computes a reset for every env at every step and keeps it where the
    episode ended; under ``vmap`` that is a full reset of the batch per step. A subclass whose
    reset is costly sets ``reset_round_fraction``: a batch on a CPU then resets its finished
    envs only, in rounds of ``1 / reset_round_fraction`` of the batch, usually one round or
    none (``rounds.where``; a lone env, or a batch of one round, resets as gymnax does). The
    result is the same, bit for bit: each finished env gets ``reset_env`` of the same key.
    """

    #: ``None``: gymnax's reset-every-step auto-reset; else the round fraction (class docstring).
    reset_round_fraction: int | None = None
    #: On a CPU, step a batch env by env in one kernel (``jaxenvs.loop_vmap``), each env's
    #: auto-reset a real branch; on other backends, ``vmap``.
    loop_on_cpu: bool = False

    @partial(jax.jit, static_argnames=("self",))
    def step(self, key, state, action, params=None):
        """gymnax's ``step`` (auto-reset, ``info`` with ``terminated``, ``truncated`` and
        ``final_observation``); with ``reset_round_fraction`` set, resetting only the finished
        envs."""
        if params is None:
            params = self.default_params
        if self.loop_on_cpu:
            return loop_vmap(self._step_then_reset)(key, state, action, params)
        if self.reset_round_fraction is None:
            return environment.Environment.step(self, key, state, action, params)
        key_step, key_reset = jax.random.split(key)
        obs_st, state_st, reward, terminated, info = self.step_env(key_step, state, action,
                                                                   params)
        truncated = self.is_truncated(state_st, params)

        def reset(operands, carry):
            key_reset, params = operands
            return (*self.reset_env(key_reset, params), jnp.bool_(False))

        obs, state, _ = rounds.where(
            lambda operands, carry: carry[2], reset, (key_reset, params),
            (obs_st, state_st, terminated | truncated), self.reset_round_fraction)
        info = {**info, "terminated": terminated, "truncated": truncated,
                "final_observation": obs_st}
        return obs, state, reward, terminated, truncated, info

    def _step_then_reset(self, key, state, action, params):
        """One env's step and, where its episode ended, its reset (a real branch)."""
        key_step, key_reset = jax.random.split(key)
        obs_st, state_st, reward, terminated, info = self.step_env(key_step, state, action,
                                                                   params)
        truncated = self.is_truncated(state_st, params)
        obs, state = branches.cond(terminated | truncated,
                                   lambda key, params, obs, state: self.reset_env(key, params),
                                   lambda key, params, obs, state: (obs, state),
                                   key_reset, params, obs_st, state_st,
                                   result_shapes=(obs_st, state_st))
        info = {**info, "terminated": terminated, "truncated": truncated,
                "final_observation": obs_st}
        return obs, state, reward, terminated, truncated, info

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
