"""The two-player environments as PettingZoo environments: ``pettingzoo_env(id)``, an
``AECEnv`` whose agents ``player_0`` and ``player_1`` take turns as the env's
``obs["current_player"]`` says (``docs/self-play.md``). Needs ``pettingzoo``.

Observations are PettingZoo's masked form, ``{"observation": ..., "action_mask": int8[n]}``
(the env's observation in NumPy arrays, its mask apart); an agent's mask allows nothing when it
is not to choose. Rewards are the env's per-player ``info["rewards"]``. The game is the env's,
played by ``reset`` and ``step`` without the auto-reset (an episode that ends ends the agents,
as PettingZoo's do; ``reset`` starts the next), with keys split one by one from
``jax.random.key(seed)`` of the seed given to ``reset``: the same seed, the same game.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import jax
import jax.numpy as jnp
import numpy as np
from pettingzoo import AECEnv

from jaxenvs.gymnasium_adapter import gymnasium_space, numpy_observation
from jaxenvs.registry import make

AGENTS = ("player_0", "player_1")


class PettingZooEnv(AECEnv):
    """A two-player jaxenvs env as a PettingZoo ``AECEnv`` (module docstring)."""

    metadata = {"render_modes": [], "is_parallelizable": False}

    def __init__(self, env_id: str, **params: Any):
        super().__init__()
        self.env, self.params = make(env_id, **params)
        if self.env.num_players != 2:
            raise ValueError(f"{env_id} has one player; pettingzoo_env adapts two-player envs "
                             "(num_players 2: PokeJAX2P, TCGJax2P)")
        self.metadata = {**self.metadata, "name": env_id}
        self.possible_agents = list(AGENTS)
        space = gymnasium_space(self.env.observation_space(self.params))
        rest = {k: v for k, v in space.spaces.items() if k != "action_mask"}
        self._view_space = gymnasium.spaces.Dict(rest)
        self._observation_space = gymnasium.spaces.Dict({
            "observation": self._view_space,
            "action_mask": gymnasium.spaces.Box(0, 1, space["action_mask"].shape, np.int8)})
        self._action_space = gymnasium.spaces.Discrete(self.env.num_actions)
        self._reset = jax.jit(self.env.reset)
        self._step = jax.jit(self._step_without_reset)
        self._observe = jax.jit(self.env.observe)
        self._key: jax.Array | None = None
        self._state: Any = None

    def _step_without_reset(self, key, state, action, params):
        """``env.step`` (its key split as there) without the auto-reset."""
        key_step, _ = jax.random.split(key)
        obs, state, _, terminated, info = self.env.step_env(key_step, state, action, params)
        return obs, state, terminated, self.env.is_truncated(state, params), info

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self._observation_space

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self._action_space

    def observe(self, agent: str) -> dict[str, Any]:
        view = jax.device_get(self._observe(self._state, AGENTS.index(agent)))
        mask = np.asarray(view.pop("action_mask")).astype(np.int8)
        return {"observation": numpy_observation(view, self._view_space), "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new game; ``seed`` sets the key stream (without one the first reset draws it,
        later ones go on from it)."""
        if seed is not None or self._key is None:
            self._key = jax.random.key(seed if seed is not None
                                       else int(np.random.default_rng().integers(2**31)))
        self._key, key = jax.random.split(self._key)
        obs, self._state = self._reset(key, self.params)
        self.agents = list(AGENTS)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = AGENTS[int(obs["current_player"])]

    def step(self, action: Any) -> None:
        """The selected agent's action (None once its game has ended). An action the mask
        forbids is replaced by the first legal one, as in the env, and the agent's info then
        holds ``illegal_action``."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None or not self._action_space.contains(np.int64(action)):
            raise ValueError(f"{agent}'s action must be one of 0..{self._action_space.n - 1}, "
                             f"got {action!r}")
        self._key, key = jax.random.split(self._key)
        obs, self._state, terminated, truncated, info = self._step(
            key, self._state, jnp.int32(action), self.params)
        rewards = np.asarray(info["rewards"])
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: float(rewards[i]) for i, a in enumerate(AGENTS)}
        self._accumulate_rewards()
        self.infos = {a: {} for a in self.agents}
        if bool(info["illegal_action"]):
            self.infos[agent] = {"illegal_action": True}
        self.terminations = {a: bool(terminated) for a in self.agents}
        self.truncations = {a: bool(truncated) and not bool(terminated) for a in self.agents}
        self.agent_selection = AGENTS[int(obs["current_player"])]


def pettingzoo_env(env_id: str, **params: Any) -> PettingZooEnv:
    """The two-player env ``env_id`` (``PokeJAX2P``, ``TCGJax2P``) with ``params`` as a
    PettingZoo ``AECEnv``."""
    return PettingZooEnv(env_id, **params)
