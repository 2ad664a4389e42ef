"""The base class every jaxenvs environment derives from.

It is gymnax's ``Environment`` (so gymnax wrappers, adapters and the gymnax 1.0 contract of
``reset``/``step`` with auto-reset and ``info["final_observation"]`` apply unchanged) plus two
things gymnax lacks: checking parameters where they are made, with a readable error, rather
than deep inside a trace; and, for game engines whose step is mostly branches, a batched step
that on a CPU runs each env's step on its own, its auto-reset only where its episode ended.
"""

from __future__ import annotations

import dataclasses
from functools import partial
from typing import Any

import jax
from gymnax.environments import environment, spaces

from jaxenvs._src import branches, gate, keys
from jaxenvs._src.loop_vmap import loop_vmap


class Environment(environment.Environment):
    """A gymnax environment with parameter checking.

    Subclasses implement gymnax's ``step_env``, ``reset_env``, spaces and ``default_params``,
    and override ``check_params`` to reject parameter values that would make the dynamics
    meaningless. ``jaxenvs.make`` calls it for every parameter set it returns.

    gymnax's ``step`` computes a reset for every env at every step and keeps it where the
    episode ended, and under ``vmap`` every branch of a ``cond`` runs for every env. A
    subclass whose step is mostly branches (a game engine's rules) sets ``loop_on_cpu``: on
    the XLA:CPU fast path (``jaxenvs._src.gate``) a batch then runs env by env in one kernel
    (``jaxenvs._src.loop_vmap``), where each branch, the auto-reset among them, runs only
    where it applies; in the plain form its auto-reset runs only for the envs whose episode
    ended (``branches.rarely``). The result is the same, bit for bit: each finished env gets
    ``reset_env`` of the same key.
    """

    #: Players who choose through ``step``. A two-player env follows the self-play
    #: convention (``docs/self-play.md``): ``obs["current_player"]`` chooses, ``reward`` is
    #: its reward, ``info["rewards"]`` both players', and ``observe(state, player)`` gives
    #: either player's view.
    num_players: int = 1
    #: On the fast path, step a batch env by env in one kernel, each env's auto-reset a real
    #: branch; elsewhere the step under ``vmap``, its auto-reset only for the envs whose
    #: episode ended (class docstring).
    loop_on_cpu: bool = False
    #: With ``loop_on_cpu``: each env's results written as one row of a ``[batch, entries]``
    #: array (``loop_vmap``'s ``rows``), fewer instructions where the state and observation
    #: are small multi-axis arrays (TCGJax), more where they are many small leaves (PokeJAX).
    loop_rows: bool = False
    #: On the fast path, draw ``reset``'s and ``step``'s random numbers (the auto-reset's key
    #: split among them) unrolled (``jaxenvs._src.keys``): the same bits, a shorter compile.
    #: Only for an env whose state holds no key, since the keys its functions see are then
    #: of another kind.
    unrolled_keys_on_cpu: bool = False
    #: The env also runs with ``jax_enable_x64`` on. The game engines (PokeJAX, TCGJax) are
    #: written for JAX's default 32-bit mode, where their integer tables and loop carries
    #: keep one type; under x64 their ``reset`` and ``step`` refuse with a readable error
    #: rather than fail deep inside a trace.
    supports_x64: bool = True
    #: Parameters that ``make`` also takes as the path of a file to read (PokeJAX's
    #: ``teams``): ``jaxenvs train`` stores such a path in its run absolute, so that the run
    #: resumes and evaluates from any folder.
    file_params: tuple[str, ...] = ()

    def _own_key(self, key):
        """The key ``reset`` and ``step`` draw with (``unrolled_keys_on_cpu``)."""
        return keys.unrolled_on_cpu(key) if self.unrolled_keys_on_cpu else key

    def _check_precision_mode(self) -> None:
        """Refuse to trace in x64 mode an env that does not support it (``supports_x64``)."""
        if jax.config.jax_enable_x64 and not self.supports_x64:
            raise RuntimeError(
                f"{self.name} runs in JAX's default 32-bit mode only, and jax_enable_x64 is "
                "on: turn it off (unset JAX_ENABLE_X64, or "
                "jax.config.update('jax_enable_x64', False) before using the env)")

    @partial(jax.jit, static_argnames=("self",))
    def reset(self, key, params=None):
        """gymnax's ``reset``; with ``unrolled_keys_on_cpu``, its draws unrolled on a CPU."""
        self._check_precision_mode()
        return environment.Environment.reset(self, self._own_key(key), params)

    @partial(jax.jit, static_argnames=("self",))
    def step(self, key, state, action, params=None):
        """gymnax's ``step`` (auto-reset, ``info`` with ``terminated``, ``truncated`` and
        ``final_observation``); with ``loop_on_cpu``, env by env on a CPU, the new state
        written where the state was (``loop_vmap``'s ``updates``); with
        ``unrolled_keys_on_cpu``, its draws unrolled on a CPU."""
        self._check_precision_mode()
        if params is None:
            params = self.default_params
        self._check_action(action, params)
        if self.loop_on_cpu and gate.enabled():
            return loop_vmap(self._step_then_reset, updates={1: 1}, rows=self.loop_rows)(
                key, state, action, params)
        if self.loop_on_cpu:
            return self._step_then_reset(self._own_key(key), state, action, params)
        return environment.Environment.step(self, self._own_key(key), state, action, params)

    def _check_action(self, action, params) -> None:
        """Refuse, while tracing, an action of the wrong shape or kind for one env's step
        (a batch is stepped under ``vmap``), with a message rather than an error from deep
        inside the step."""
        space = self.action_space(params)
        shape, dtype = jax.numpy.shape(action), jax.numpy.result_type(action)
        if tuple(shape) != tuple(space.shape):
            raise ValueError(
                f"{self.name}'s step takes one env's action, of shape {tuple(space.shape)} "
                f"({type(space).__name__}), got shape {tuple(shape)}; step a batch with "
                f"jax.vmap(env.step, in_axes=(0, 0, 0, None))")
        integer = jax.numpy.issubdtype(dtype, jax.numpy.integer)
        if isinstance(space, spaces.Discrete) and not integer:
            raise ValueError(f"{self.name}'s actions are integers (Discrete({space.n})), got "
                             f"{dtype}")
        if not (integer or jax.numpy.issubdtype(dtype, jax.numpy.floating)):
            raise ValueError(f"{self.name}'s actions are numbers, got {dtype}")

    def _step_then_reset(self, key, state, action, params):
        """One env's step and, where its episode ended, its reset (``branches.rarely``): on
        the fast path a real branch, and one that writes the reset over the step's
        observation and state in place, where a ``cond`` would copy both into its results at
        every step (``docs/game-engines-on-cpu.md``, "The auto-reset"); in the plain form
        under ``vmap``, a reset of only the envs whose episode ended, where gymnax's step
        resets every env and selects."""
        key_step, key_reset = jax.random.split(key)
        obs_st, state_st, reward, terminated, info = self.step_env(key_step, state, action,
                                                                   params)
        truncated = self.is_truncated(state_st, params)
        obs, state = branches.rarely(terminated | truncated,
                                     lambda _, key, params: self.reset_env(key, params),
                                     (obs_st, state_st), key_reset, params)
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
