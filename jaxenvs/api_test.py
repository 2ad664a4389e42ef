"""``api_test``: the public conformance check every jaxenvs environment passes.

Any environment author can run ``jaxenvs.api_test(env, params)``. It drives a small batch of
environments with random (mask-respecting) actions under ``jit``, ``vmap`` and ``lax.scan``
and checks the gymnax 1.0 contract together with the properties our users rely on:

* ``reset`` and ``step`` jit and vmap; ``step`` is traced once however often it is called
  (``chex.assert_max_traces``), so a rollout never recompiles;
* reset and step outputs have identical tree structure, shapes, dtypes and weak types;
  reward is a float32 scalar, terminated and truncated are bool scalars;
* auto-reset: on a step that ends an episode the returned observation and state are those of
  ``env.reset(key_reset)`` with gymnax's ``key_reset = jax.random.split(key)[1]``, and
  ``info["final_observation"]`` is the pre-reset observation; elsewhere it equals the
  returned observation;
* determinism: the same keys give the same trajectory, bit for bit;
* batch invariance: an environment's trajectory does not depend on the batch it runs in;
* the observation and action spaces contain everything the env emits and samples;
* action masks (an ``action_mask`` entry of the observation): boolean, one per action, at
  least one legal action in every observation.

It raises ``ApiTestError`` naming the first check that failed, and returns an
``ApiTestReport`` when all pass.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Mapping
from typing import Any

import chex
import jax
import jax.numpy as jnp
import numpy as np
from gymnax.environments import spaces

_unique_names = itertools.count()


class ApiTestError(AssertionError):
    """An environment broke the jaxenvs/gymnax contract; the message names the check."""


@dataclasses.dataclass(frozen=True)
class ApiTestReport:
    """What ``api_test`` ran: the checks that passed and how much it exercised them."""

    env_name: str
    checks: tuple[str, ...]
    num_envs: int
    num_steps: int
    episodes_ended: int


def _fail(check: str, message: str) -> None:
    raise ApiTestError(f"api_test [{check}]: {message}")


def _action_mask(obs: Any) -> jax.Array | None:
    if isinstance(obs, Mapping):
        return obs.get("action_mask")
    return getattr(obs, "action_mask", None)


def _sample_action(key: jax.Array, obs: Any, env, params) -> jax.Array:
    """A uniformly random action, legal under the observation's action mask if it has one."""
    space = env.action_space(params)
    mask = _action_mask(obs)
    if mask is None:
        return space.sample(key)
    logits = jnp.where(mask, 0.0, -jnp.inf)
    return jax.random.categorical(key, logits).astype(space.dtype)


def _space_contains(space: spaces.Space, x: Any) -> jax.Array:
    """Whether ``x`` lies in ``space`` (gymnax's Dict only reads attributes; this reads both)."""
    if isinstance(space, spaces.Dict):
        get = (lambda k: x[k]) if isinstance(x, Mapping) else (lambda k: getattr(x, k))
        return jnp.all(jnp.stack([_space_contains(s, get(k)) for k, s in space.spaces.items()]))
    if isinstance(space, spaces.Tuple):
        return jnp.all(jnp.stack([_space_contains(s, xi) for s, xi in zip(space.spaces, x)]))
    return jnp.asarray(space.contains(x), bool)


def _signature(tree: Any) -> Any:
    """Tree structure with (shape, dtype, weak_type) leaves, to compare outputs exactly."""
    return jax.tree.map(
        lambda x: (jnp.shape(x), jnp.result_type(x), jax.typeof(x).weak_type), tree)


def _make_rollout(env, num_steps: int):
    """A jitted ``rollout(params, env_keys)``: reset and step each env of the batch.

    Env i uses only ``env_keys[i]``. Returns the reset outputs and, stacked over steps,
    everything the checks need. ``params`` is an argument, so changing its values does not
    recompile.
    """

    def one_env(params, env_key):
        reset_key, run_key = jax.random.split(env_key)
        obs, state = env.reset(reset_key, params)

        def body(carry, t):
            obs, state = carry
            action_key, step_key = jax.random.split(jax.random.fold_in(run_key, t))
            action = _sample_action(action_key, obs, env, params)
            next_obs, next_state, reward, terminated, truncated, info = env.step(
                step_key, state, action, params)
            reset_obs, reset_state = env.reset(jax.random.split(step_key)[1], params)
            out = dict(obs=next_obs, state=next_state, reward=reward, terminated=terminated,
                       truncated=truncated, info=info, action=action,
                       reset_obs=reset_obs, reset_state=reset_state)
            return (next_obs, next_state), out

        _, traj = jax.lax.scan(body, (obs, state), jnp.arange(num_steps))
        return obs, state, traj

    return jax.jit(jax.vmap(one_env, in_axes=(None, 0)))


def _tree_equal(a: Any, b: Any) -> bool:
    return all(jax.tree.leaves(jax.tree.map(
        lambda x, y: bool(np.array_equal(np.asarray(x), np.asarray(y), equal_nan=True)), a, b)))


def _select_rows(tree: Any, rows: np.ndarray) -> Any:
    return jax.tree.map(lambda x: np.asarray(x)[rows], tree)


def api_test(env, params=None, *, num_envs: int = 4, num_steps: int = 64,
             seed: int = 0) -> ApiTestReport:
    """Check ``env`` (with ``params``, default ``env.default_params``) against the contract.

    ``num_envs`` environments run ``num_steps`` random steps each (small by default: the check
    is meant for unit tests). At least one episode must end within the run so that auto-reset
    is exercised; if the env's params have ``max_steps_in_episode`` the check also runs with a
    short time limit, which guarantees it.
    """
    params = env.default_params if params is None else params
    checks: list[str] = []
    key = jax.random.key(seed)

    # -- jit, vmap, single trace ------------------------------------------------------------
    def step_once(key, state, action, params):
        return env.step(key, state, action, params)

    step_once.__name__ = f"api_test_step_{next(_unique_names)}"
    counted_step = jax.jit(jax.vmap(chex.assert_max_traces(step_once, n=1),
                                    in_axes=(0, 0, 0, None)))
    reset = jax.jit(jax.vmap(env.reset, in_axes=(0, None)))
    keys = jax.random.split(key, num_envs)
    try:
        obs, state = reset(keys, params)
    except Exception as error:  # noqa: BLE001 - reported with its cause
        _fail("jit and vmap", f"jit(vmap(reset)) raised {type(error).__name__}: {error}")
    reset_signature = _signature((obs, state))
    sample = jax.jit(jax.vmap(lambda k, o: _sample_action(k, o, env, params)))
    try:
        for t in range(3):
            action = sample(jax.random.split(jax.random.fold_in(key, t), num_envs), obs)
            obs, state, reward, terminated, truncated, info = counted_step(
                jax.random.split(jax.random.fold_in(key, 100 + t), num_envs), state, action,
                params)
            if _signature((obs, state)) != reset_signature:
                _fail("output signature",
                      "reset and step return different structures, shapes or dtypes:\n"
                      f"reset: {reset_signature}\nstep:  {_signature((obs, state))}")
    except ApiTestError:
        raise
    except AssertionError as error:
        _fail("single trace", f"step was traced more than once: {error}")
    except Exception as error:  # noqa: BLE001 - reported with its cause
        _fail("jit and vmap", f"jit(vmap(step)) raised {type(error).__name__}: {error}")
    checks += ["jit and vmap", "single trace", "output signature"]

    for name, value, dtype in (("reward", reward, jnp.float32),
                               ("terminated", terminated, jnp.bool_),
                               ("truncated", truncated, jnp.bool_)):
        if value.shape != (num_envs,) or value.dtype != dtype:
            _fail("output types", f"{name} must be a {jnp.dtype(dtype).name} scalar per env, "
                                  f"got {value.dtype}{list(value.shape[1:])}")
    if "final_observation" not in info:
        _fail("final observation", 'info has no "final_observation" entry')
    checks.append("output types")

    # -- rollouts: determinism, batch invariance, auto-reset, spaces, masks -----------------
    runs = [(params, "given params")]
    if hasattr(params, "max_steps_in_episode"):
        limit = max(1, num_steps // 4)
        if int(params.max_steps_in_episode) > limit:
            runs.append((params.replace(max_steps_in_episode=limit), f"time limit {limit}"))
    episodes_ended = 0
    rollout = _make_rollout(env, num_steps)
    for run_params, label in runs:
        env_keys = jax.random.split(jax.random.fold_in(key, 7), num_envs)
        first = rollout(run_params, env_keys)
        if not _tree_equal(first, rollout(run_params, env_keys)):
            _fail("determinism", f"({label}) the same keys gave different trajectories")
        for i in sorted({0, num_envs - 1}):
            alone = rollout(run_params, env_keys[i:i + 1])
            if not _tree_equal(_select_rows(first, np.array([i])), alone):
                _fail("batch invariance",
                      f"({label}) env {i}'s trajectory differs when run alone")
        _check_trajectory(env, run_params, first, label)
        _, _, traj = first
        episodes_ended += int(np.sum(np.asarray(traj["terminated"] | traj["truncated"])))
    checks += ["determinism", "batch invariance", "auto-reset", "final observation",
               "observation space", "action space", "action masks"]
    if episodes_ended == 0:
        _fail("auto-reset", f"no episode ended in {num_steps} steps of {num_envs} envs; "
                            "raise num_steps or pass params with shorter episodes")
    return ApiTestReport(env.name, tuple(checks), num_envs, num_steps, episodes_ended)


def _check_trajectory(env, params, rollout, label: str) -> None:
    """Auto-reset, final observation, spaces and masks over one batched rollout."""
    reset_obs, _, traj = rollout
    done = np.asarray(traj["terminated"] | traj["truncated"])
    final_obs = traj["info"]["final_observation"]

    if _signature(jax.tree.map(lambda x: x[0, 0], final_obs)) != \
            _signature(jax.tree.map(lambda x: x[0, 0], traj["obs"])):
        _fail("final observation", f"({label}) final_observation and obs differ in structure")
    fresh = (traj["reset_obs"], traj["reset_state"])
    returned = (traj["obs"], traj["state"])
    if done.any() and not _tree_equal(_select_rows(fresh, done), _select_rows(returned, done)):
        _fail("auto-reset", f"({label}) after an episode ended, obs/state are not "
                            "env.reset(jax.random.split(key)[1])")
    if (~done).any() and not _tree_equal(_select_rows(final_obs, ~done),
                                         _select_rows(traj["obs"], ~done)):
        _fail("final observation",
              f"({label}) on steps that end no episode final_observation != obs")

    obs_space, action_space = env.observation_space(params), env.action_space(params)
    in_space = jax.vmap(jax.vmap(lambda x: _space_contains(obs_space, x)))
    for name, tree in (("reset obs", reset_obs), ("obs", traj["obs"]),
                       ("final_observation", final_obs)):
        if name == "reset obs":
            ok = jax.vmap(lambda x: _space_contains(obs_space, x))(tree)
        else:
            ok = in_space(tree)
        if not bool(jnp.all(ok)):
            _fail("observation space", f"({label}) a {name} lies outside {obs_space}")
        for leaf, space_dtype in _leaf_dtypes(tree, obs_space):
            if leaf.dtype != space_dtype:
                _fail("observation space",
                      f"({label}) {name} has dtype {leaf.dtype}, the space says {space_dtype}")
    if not bool(jnp.all(jax.vmap(jax.vmap(lambda a: _space_contains(action_space, a)))(
            traj["action"]))):
        _fail("action space", f"({label}) a sampled action lies outside {action_space}")

    mask = _action_mask(traj["obs"])
    if mask is not None:
        num_actions = getattr(action_space, "n", None)
        if mask.dtype != jnp.bool_ or mask.shape[-1:] != (num_actions,):
            _fail("action masks", f"({label}) action_mask must be bool[{num_actions}], got "
                                  f"{mask.dtype}{list(mask.shape[2:])}")
        if not bool(jnp.all(jnp.any(mask, axis=-1))):
            _fail("action masks", f"({label}) an observation has no legal action")


def _leaf_dtypes(tree: Any, space: spaces.Space):
    """(leaf, space dtype) pairs for the Box/Discrete leaves of an observation."""
    if isinstance(space, spaces.Dict):
        for k, sub in space.spaces.items():
            yield from _leaf_dtypes(tree[k] if isinstance(tree, Mapping) else getattr(tree, k),
                                    sub)
    elif isinstance(space, spaces.Tuple):
        for sub, x in zip(space.spaces, tree):
            yield from _leaf_dtypes(x, sub)
    else:
        yield tree, jnp.dtype(space.dtype)
