"""jaxenvs environments as Gymnasium environments: ``gymnasium_env(id)`` (a ``gymnasium.Env``,
one env) and ``gymnasium_env(id, num_envs=N)`` (a ``gymnasium.vector.VectorEnv``, the batch
stepped by one jitted ``vmap``). NumPy arrays in and out; an action mask, where the env has
one, in ``info["action_mask"]`` as well as in the observation. Needs ``gymnasium``.

The spaces are the env's gymnax spaces in Gymnasium's kinds. The episodes are the env's: the same key gives the same
trajectory, a seed given to ``reset`` sets the key (``jax.random.key(seed)``). The single
``Env`` ends an episode as Gymnasium's do: the step that ends it returns the last observation
(``info["final_observation"]`` of the jaxenvs step), and ``reset`` starts the next. The
``VectorEnv`` resets each env in the step that ends its episode, as jaxenvs does
(``AutoresetMode.SAME_STEP``: the last observations in ``info["final_obs"]``).
"""

from __future__ import annotations

from typing import Any

import gymnasium
import jax
import jax.numpy as jnp
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnax.environments import spaces

from jaxenvs.registry import make


def gymnasium_space(space: Any) -> gymnasium.spaces.Space:
    """A gymnax space as Gymnasium's: ``Discrete``, ``Box`` (bool boxes included), ``Dict``."""
    if isinstance(space, spaces.Discrete):
        return gymnasium.spaces.Discrete(space.n)
    if isinstance(space, spaces.Box):
        dtype = np.dtype(space.dtype)
        low = np.broadcast_to(np.asarray(space.low), space.shape)
        high = np.broadcast_to(np.asarray(space.high), space.shape)
        if dtype == np.bool_:
            return gymnasium.spaces.Box(0, 1, space.shape, np.bool_)
        if np.issubdtype(dtype, np.integer):
            info = np.iinfo(dtype)
            low, high = (np.clip(np.nan_to_num(bound, posinf=info.max, neginf=info.min),
                                 info.min, info.max) for bound in (low, high))
        return gymnasium.spaces.Box(low.astype(dtype), high.astype(dtype), space.shape, dtype)
    if isinstance(space, spaces.Dict):
        return gymnasium.spaces.Dict({k: gymnasium_space(v) for k, v in space.spaces.items()})
    raise TypeError(f"no Gymnasium space for {type(space).__name__}")


def _numpy(tree: Any) -> Any:
    return jax.tree.map(np.asarray, jax.device_get(tree))


def numpy_observation(obs: Any, space: gymnasium.spaces.Space) -> Any:
    """One env's observation in the form ``space`` holds: NumPy arrays, ``Discrete``
    entries as ``np.int64``."""
    if isinstance(space, gymnasium.spaces.Dict):
        return {k: numpy_observation(obs[k], v) for k, v in space.spaces.items()}
    if isinstance(space, gymnasium.spaces.Discrete):
        return np.int64(obs)
    return np.asarray(obs)


def _mask_info(obs: Any) -> dict[str, np.ndarray]:
    """``{"action_mask": ...}`` where the observation holds a mask, else nothing."""
    return {"action_mask": obs["action_mask"]} if isinstance(obs, dict) and \
        "action_mask" in obs else {}


class _Stepper:
    """The env, its params and its jitted reset and step, batched or not."""

    def __init__(self, env_id: str, num_envs: int | None, params: dict[str, Any]):
        self.env, self.params = make(env_id, **params)
        reset, step = self.env.reset, self.env.step
        if num_envs is not None:
            reset = jax.vmap(reset, in_axes=(0, None))
            step = jax.vmap(step, in_axes=(0, 0, 0, None))
        self.num_envs = num_envs
        self.reset = jax.jit(reset)
        self.step = jax.jit(step)
        self.key: jax.Array | None = None
        self.state: Any = None

    def start(self, seed: int | None, np_random: np.random.Generator) -> Any:
        """The observation of a reset (its state kept). A ``seed`` sets the key; without one
        the first reset draws it from the Gymnasium env's ``np_random``, later ones go on."""
        if seed is not None or self.key is None:
            self.key = jax.random.key(seed if seed is not None
                                      else int(np_random.integers(2**31)))
        obs, self.state = self.reset(self.keys(), self.params)
        return _numpy(obs)

    def advance(self, action: Any) -> tuple[Any, ...]:
        """The env's step from the current state (``reset`` first): its outputs but the new
        state, which is kept."""
        if self.state is None:
            raise RuntimeError("call reset() before step()")
        obs, self.state, *out = self.step(self.keys(), self.state, jnp.asarray(action),
                                          self.params)
        return (obs, *out)

    def keys(self) -> jax.Array:
        self.key, key = jax.random.split(self.key)
        return key if self.num_envs is None else jax.random.split(key, self.num_envs)


class GymnasiumEnv(gymnasium.Env):
    """One jaxenvs env as a ``gymnasium.Env`` (module docstring)."""

    metadata = {"render_modes": []}

    def __init__(self, env_id: str, **params: Any):
        self._run = _Stepper(env_id, None, params)
        self.observation_space = gymnasium_space(
            self._run.env.observation_space(self._run.params))
        self.action_space = gymnasium_space(self._run.env.action_space(self._run.params))

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        obs = numpy_observation(self._run.start(seed, self.np_random), self.observation_space)
        return obs, _mask_info(obs)

    def step(self, action):
        obs, reward, terminated, truncated, info = self._run.advance(action)
        terminated, truncated = bool(terminated), bool(truncated)
        if terminated or truncated:  # the episode's last observation, not the next reset's
            obs = info["final_observation"]
        obs = numpy_observation(_numpy(obs), self.observation_space)
        info = {k: v for k, v in _numpy(info).items() if k != "final_observation"}
        return obs, float(reward), terminated, truncated, {**info, **_mask_info(obs)}


class GymnasiumVectorEnv(gymnasium.vector.VectorEnv):
    """A batch of one jaxenvs env as a ``gymnasium.vector.VectorEnv`` (module docstring)."""

    metadata = {"render_modes": [], "autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, env_id: str, num_envs: int, **params: Any):
        self._run = _Stepper(env_id, num_envs, params)
        self.num_envs = num_envs
        self.single_observation_space = gymnasium_space(
            self._run.env.observation_space(self._run.params))
        self.single_action_space = gymnasium_space(
            self._run.env.action_space(self._run.params))
        self.observation_space = gymnasium.vector.utils.batch_space(
            self.single_observation_space, num_envs)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space,
                                                               num_envs)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        obs = self._run.start(seed, self.np_random)
        return obs, _mask_info(obs)

    def step(self, actions):
        obs, reward, terminated, truncated, info = self._run.advance(actions)
        obs, info = _numpy(obs), _numpy(info)
        terminated, truncated = np.asarray(terminated), np.asarray(truncated)
        # Gymnasium's same-step auto-reset: each ended env's last observation in "final_obs"
        # (where "_final_obs" holds), its reset's in the observation
        info["final_obs"] = info.pop("final_observation")
        info["_final_obs"] = terminated | truncated
        return obs, np.asarray(reward), terminated, truncated, {**info, **_mask_info(obs)}


def gymnasium_env(env_id: str, num_envs: int | None = None,
                  **params: Any) -> GymnasiumEnv | GymnasiumVectorEnv:
    """``env_id`` (with env parameters ``params``, as ``jaxenvs.make`` takes them) as a
    ``gymnasium.Env``, or with ``num_envs`` a ``gymnasium.vector.VectorEnv`` of that many."""
    if num_envs is None:
        return GymnasiumEnv(env_id, **params)
    if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
        raise ValueError(f"num_envs must be an int >= 1, got {num_envs!r}")
    return GymnasiumVectorEnv(env_id, num_envs, **params)
