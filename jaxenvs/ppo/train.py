"""``make_train``: the whole of PPO (rollouts, GAE, minibatch epochs) as one pure function.

``train = make_train(config, env, env_params)`` returns ``train(key)``, which can be jitted
and ``vmap``ped over seeds. ``make_train_parts`` gives the same run in pieces, ``start(key)``
and ``run_updates(carry, indices)``, for a caller that checkpoints between them (``jaxenvs
train``). Two points where it departs from PureJaxRL, on purpose:

* **Truncation is not termination.** When an episode is cut by a time limit, the return is
  bootstrapped from the value of ``info["final_observation"]`` (the observation before the
  auto-reset): the reward becomes ``r + gamma * V(final_obs)``. At a real termination nothing
  is bootstrapped.
* **Action masks.** If the observation carries a boolean ``action_mask``, illegal actions get
  a large negative logit, so they are never sampled and the loss stays finite.

Observation normalization and reward scaling, when the config asks for them, are the
wrappers of ``jaxenvs.wrappers``, applied by ``training_env`` with their statistics shared
across the env batch (the batch is ``vmap``ped with ``axis_name=ENV_AXIS``).

Continuous actions are sampled from a Gaussian and clipped to the action space before they
reach the environment (the log-probability is that of the unclipped sample).

The env batch is sharded over a device mesh (all visible devices by default; see
``sharding.py``), so the same ``jit(train)`` runs data-parallel on many devices.
"""

from __future__ import annotations

from typing import Any, Callable

import jax
import jax.numpy as jnp
import optax
from flax import struct
from flax.training.train_state import TrainState
from gymnax.environments import spaces
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from jaxenvs.devices import per_device
from jaxenvs.ppo.config import PPOConfig
from jaxenvs.ppo.networks import ActorCritic, policy_distribution
from jaxenvs.ppo.sharding import BATCH_AXIS, check_divisible, make_mesh, replicate, shard_envs
from jaxenvs.wrappers import NormalizeObservation, ScaleReward

#: ``vmap`` axis name of the env batch, over which the wrappers share their statistics.
ENV_AXIS = "envs"


@struct.dataclass
class Transition:
    """One step of one environment, as the update needs it."""

    obs: Any
    action: jax.Array
    log_prob: jax.Array
    value: jax.Array
    reward: jax.Array
    """The env's reward, plus ``gamma * V(final_obs)`` on a truncating step."""
    done: jax.Array
    """Terminated or truncated: the next observation starts a new episode."""


@struct.dataclass
class EpisodeStats:
    """Running return and length per env, and the totals of episodes finished in a rollout."""

    episode_return: jax.Array
    episode_length: jax.Array


@struct.dataclass
class TrainCarry:
    """The whole state of a run between two updates: all a checkpoint needs to continue it."""

    train_state: TrainState
    """Parameters, optimizer state and step count (replicated)."""
    env_state: Any
    """The env batch's states (sharded over the mesh)."""
    obs: Any
    """The batch's current observations."""
    stats: EpisodeStats
    """Return and length so far of each env's running episode."""
    key: jax.Array
    """The run's key for the next update."""


def make_network(config: PPOConfig, env, env_params) -> ActorCritic:
    """The actor-critic for ``env``'s action space."""
    space = env.action_space(env_params)
    continuous = isinstance(space, spaces.Box)
    action_dim = int(space.shape[0]) if continuous else int(space.n)
    return ActorCritic(action_dim, continuous, tuple(config.hidden_sizes), config.activation,
                       config.log_std_init)


def batched_env(env, env_params, mesh: Mesh) -> tuple[Callable, Callable]:
    """``reset(keys)`` and ``step(keys, states, actions)`` of a batch of ``env``s, vmapped over
    the env axis (named ``ENV_AXIS``), each device of ``mesh`` stepping its own share of the
    batch in its own program (``devices.per_device``)."""
    split = NamedSharding(mesh, PartitionSpec(BATCH_AXIS))
    reset = per_device(lambda keys: jax.vmap(
        env.reset, in_axes=(0, None), axis_name=ENV_AXIS)(keys, env_params), split)
    step = per_device(lambda keys, states, actions: jax.vmap(
        env.step, in_axes=(0, 0, 0, None), axis_name=ENV_AXIS)(keys, states, actions, env_params),
        split)
    return reset, step


def training_env(config: PPOConfig, env, axis_name: str | tuple[str, ...] = ENV_AXIS):
    """``env`` wrapped as ``config`` asks: rewards scaled first, observations normalized last
    (outermost, so a trained run's ``env_state.obs_stats`` holds the observation statistics).
    The wrappers share their statistics over ``axis_name``: the vmapped env axis, and the
    mesh axis too when each device steps its own share of the batch."""
    if config.scale_rewards:
        env = ScaleReward(env, config.gamma, axis_name=axis_name)
    if config.normalize_observations:
        env = NormalizeObservation(env, axis_name=axis_name)
    return env


def gae(traj: Transition, last_value: jax.Array, gamma: float, lam: float):
    """Generalized advantage estimates and value targets, over the time axis of ``traj``."""

    def body(carry, t: Transition):
        advantage, next_value = carry
        not_done = 1.0 - t.done.astype(jnp.float32)
        delta = t.reward + gamma * next_value * not_done - t.value
        advantage = delta + gamma * lam * not_done * advantage
        return (advantage, t.value), advantage

    _, advantages = jax.lax.scan(body, (jnp.zeros_like(last_value), last_value), traj,
                                 reverse=True)
    return advantages, advantages + traj.value


def make_train(config: PPOConfig, env, env_params,
               on_update: Callable[[jax.Array, dict[str, jax.Array]], None] | None = None,
               mesh: Mesh | None = None,
               ) -> Callable[[jax.Array], dict[str, Any]]:
    """A pure ``train(key) -> {"train_state", "env_state", "metrics"}`` running all of PPO
    (``make_train_parts``, every update in one scan)."""
    start, run_updates = make_train_parts(config, env, env_params, on_update, mesh)

    def train(key: jax.Array) -> dict[str, Any]:
        carry, metrics = run_updates(start(key), jnp.arange(config.num_updates))
        return {"train_state": carry.train_state, "env_state": carry.env_state,
                "metrics": metrics}

    return train


def make_train_parts(config: PPOConfig, env, env_params,
                     on_update: Callable[[jax.Array, dict[str, jax.Array]], None] | None = None,
                     mesh: Mesh | None = None,
                     ) -> tuple[Callable[[jax.Array], TrainCarry],
                                Callable[[TrainCarry, jax.Array], tuple[TrainCarry, Any]]]:
    """``(start, run_updates)``, two pure functions that run PPO in pieces:
    ``start(key)`` is the run's ``TrainCarry`` before its first update, and
    ``run_updates(carry, indices)`` runs an update for each of ``indices`` (``int32[n]``,
    the numbers ``on_update`` reports) and returns the carry after them and their
    ``metrics``, stacked. A negative index is skipped (the carry passes on, its metrics NaN,
    ``episodes`` 0), so that one compiled ``run_updates`` also runs a shorter last chunk.
    The learning rate's annealing counts the optimizer's steps, which the carry holds.

    The env batch is split over ``mesh``'s ``"batch"`` axis (default: ``make_mesh()``, all
    visible devices; a no-op with one), parameters and optimizer state are replicated; raises
    ``ValueError`` unless the number of devices divides ``config.num_envs``. ``env_state``
    holds the final env states, left sharded.

    ``on_update(update_index, metrics)``, if given, is called on the host after every
    update (through ``jax.debug.callback``), for progress output while the run stays one
    compiled program.

    ``metrics`` holds, per update: ``episode_return`` and ``episode_length`` (means over the
    episodes that ended in that update's rollout; NaN if none did), ``episodes`` (their
    number) and ``loss``, ``value_loss``, ``policy_loss``, ``entropy`` (means over the
    update's minibatches).
    """
    mesh = make_mesh() if mesh is None else mesh
    check_divisible(config.num_envs, mesh)
    network = make_network(config, env, env_params)
    # Each device steps its own envs (``batched_env``); the wrappers' statistics still span all.
    env = training_env(config, env, ENV_AXIS if mesh.size == 1 else (BATCH_AXIS, ENV_AXIS))
    space = env.action_space(env_params)
    reset_envs, step_envs = batched_env(env, env_params, mesh)
    batch_apply = jax.vmap(network.apply, in_axes=(None, 0))

    def apply(params, obs):
        head, value = batch_apply(params, obs)
        return policy_distribution(head), value
    updates_per_rollout = config.update_epochs * config.num_minibatches

    def learning_rate(count):
        done_fraction = (count // updates_per_rollout) / config.num_updates
        return config.learning_rate * (1.0 - done_fraction)

    tx = optax.chain(
        optax.clip_by_global_norm(config.max_grad_norm),
        optax.adam(learning_rate if config.anneal_lr else config.learning_rate, eps=1e-5),
    )

    def env_action(action):
        if network.continuous:
            return jnp.clip(action, space.low, space.high)
        return action

    def rollout_step(carry, _):
        train_state, env_state, obs, stats, key = carry
        key, action_key, step_key = jax.random.split(key, 3)
        policy, value = apply(train_state.params, obs)
        action = policy.sample(seed=action_key)
        log_prob = policy.log_prob(action)
        next_obs, env_state, reward, terminated, truncated, info = step_envs(
            shard_envs(jax.random.split(step_key, config.num_envs), mesh), env_state,
            shard_envs(env_action(action), mesh))
        _, final_value = apply(train_state.params, info["final_observation"])
        bootstrap = truncated & ~terminated
        done = terminated | truncated
        transition = Transition(
            obs=obs, action=action, log_prob=log_prob, value=value,
            reward=reward + config.gamma * final_value * bootstrap, done=done)
        episode_return = stats.episode_return + info.get("unscaled_reward", reward)
        episode_length = stats.episode_length + 1
        finished = (jnp.where(done, episode_return, 0.0), jnp.where(done, episode_length, 0),
                    done)
        stats = EpisodeStats(jnp.where(done, 0.0, episode_return),
                             jnp.where(done, 0, episode_length))
        env_state, next_obs, stats, transition, finished = shard_envs(
            (env_state, next_obs, stats, transition, finished), mesh)
        return (train_state, env_state, next_obs, stats, key), (transition, finished)

    def loss_fn(params, batch: Transition, advantages, targets):
        policy, value = apply(params, batch.obs)
        log_prob = policy.log_prob(batch.action)
        value_loss = jnp.square(value - targets)
        if config.clip_value:
            value_clipped = batch.value + jnp.clip(value - batch.value, -config.clip_eps,
                                                   config.clip_eps)
            value_loss = jnp.maximum(value_loss, jnp.square(value_clipped - targets))
        value_loss = 0.5 * value_loss.mean()
        ratio = jnp.exp(log_prob - batch.log_prob)
        advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
        policy_loss = -jnp.minimum(
            ratio * advantages,
            jnp.clip(ratio, 1.0 - config.clip_eps, 1.0 + config.clip_eps) * advantages).mean()
        entropy = policy.entropy().mean()
        loss = policy_loss + config.vf_coef * value_loss - config.ent_coef * entropy
        return loss, (value_loss, policy_loss, entropy)

    def update_minibatch(train_state, minibatch):
        batch, advantages, targets = minibatch
        (loss, (value_loss, policy_loss, entropy)), grads = jax.value_and_grad(
            loss_fn, has_aux=True)(train_state.params, batch, advantages, targets)
        return replicate(train_state.apply_gradients(grads=grads), mesh), jnp.stack(
            [loss, value_loss, policy_loss, entropy])

    def update_epoch(carry, _):
        train_state, data, key = carry
        key, perm_key = jax.random.split(key)
        permutation = jax.random.permutation(perm_key, config.batch_size)
        minibatches = shard_envs(jax.tree.map(
            lambda x: jnp.take(x, permutation, axis=0).reshape(
                (config.num_minibatches, -1) + x.shape[1:]), data), mesh, env_axis=1)
        train_state, losses = jax.lax.scan(update_minibatch, train_state, minibatches)
        return (train_state, data, key), losses

    def update(carry: TrainCarry, index):
        carry = (carry.train_state, carry.env_state, carry.obs, carry.stats, carry.key)
        carry, (traj, finished) = jax.lax.scan(rollout_step, carry, None, config.num_steps)
        train_state, env_state, obs, stats, key = carry
        _, last_value = apply(train_state.params, obs)
        advantages, targets = shard_envs(
            gae(traj, last_value, config.gamma, config.gae_lambda), mesh, env_axis=1)
        data = jax.tree.map(lambda x: x.reshape((config.batch_size,) + x.shape[2:]),
                            (traj, advantages, targets))
        key, epoch_key = jax.random.split(key)
        (train_state, _, _), losses = jax.lax.scan(
            update_epoch, (train_state, data, epoch_key), None, config.update_epochs)
        returns, lengths, done = finished
        episodes = done.sum().astype(jnp.int32)
        losses = losses.reshape(-1, 4).mean(axis=0)
        means = {
            "episode_return": returns.sum() / jnp.where(episodes > 0, episodes, jnp.nan),
            "episode_length": lengths.sum() / jnp.where(episodes > 0, episodes, jnp.nan),
            "loss": losses[0], "value_loss": losses[1], "policy_loss": losses[2],
            "entropy": losses[3]}
        metrics = replicate({name: value.astype(jnp.float32) for name, value in means.items()}
                            | {"episodes": episodes}, mesh)
        if on_update is not None:
            jax.debug.callback(on_update, index, metrics)
        return TrainCarry(train_state, env_state, obs, stats, key), metrics

    def start(key: jax.Array) -> TrainCarry:
        key, init_key, reset_key = jax.random.split(key, 3)
        reset_keys = shard_envs(jax.random.split(reset_key, config.num_envs), mesh)
        obs, env_state = reset_envs(reset_keys)
        params = network.init(init_key, jax.tree.map(lambda x: x[0], obs))
        train_state = replicate(
            TrainState.create(apply_fn=network.apply, params=params, tx=tx), mesh)
        stats = EpisodeStats(jnp.zeros(config.num_envs), jnp.zeros(config.num_envs, jnp.int32))
        return TrainCarry(train_state, *shard_envs((env_state, obs, stats), mesh), key)

    def skip(carry: TrainCarry, index):
        nan = jnp.float32(jnp.nan)
        return carry, replicate({
            "episode_return": nan, "episode_length": nan, "loss": nan, "value_loss": nan,
            "policy_loss": nan, "entropy": nan, "episodes": jnp.int32(0)}, mesh)

    def run_updates(carry: TrainCarry, indices: jax.Array) -> tuple[TrainCarry, Any]:
        return jax.lax.scan(lambda carry, index: jax.lax.cond(index >= 0, update, skip, carry,
                                                              index), carry, indices)

    return start, run_updates
