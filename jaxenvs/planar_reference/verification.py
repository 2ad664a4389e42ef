"""``jaxenvs verify HalfCheetah`` (``Hopper``, ``Walker2d``): a planar body against MuJoCo's C
library and gymnasium's ``-v5`` env, generated on the spot.

MuJoCo is deterministic, so the suite needs no recorded files: it draws its states and runs
MuJoCo itself, in the float dtype of the process (float64 with ``JAX_ENABLE_X64=1``).

- ``inject``: one env step from ``states`` MuJoCo states (``agreement.mujoco_states``: every
  family) on observation, reward and termination. Float64 (against MuJoCo with its solver run
  to the minimiser, ``agreement.CONVERGED_TOLERANCE``: at its default tolerance MuJoCo stops
  short on a few states): |Δobs| <= 1e-7, and each stage at the injected state within
  ``agreement.FLOAT64_STAGE_BOUND`` (as max |Δ| / (1 + |MuJoCo|)) with no count mismatch.
  Float32: |Δobs| <= 2e-3 (1 + |obs|), termination exact and, as its own check, median
  |Δobs| <= 1e-5. The reward is float32 by design: within 1e-6 (1 + |reward|) in float64
  (float32 rounding), 2e-3 (1 + |reward|) in float32.
- ``replay``: rollouts from ``seeds`` reset states under the actions of ``horizons`` must
  stay within the L3 bounds for the body's target number of env steps
  (``horizons.TARGET``): float64 1e-3, float32 5e-3.

``SuiteOptions.files`` selects nothing here (there are no files); ``make_suite`` sets the sizes
and the environment under test (tests pass a perturbed one to see the suite fail).
"""

from __future__ import annotations

from typing import Iterator

import numpy as np

from jaxenvs.planar_reference import agreement, horizons, mujoco_c
from jaxenvs.verify.compare import Tolerance, compare_trajectories
from jaxenvs.verify.suite import CheckResult, SuiteOptions

#: Reward tolerance (atol = rtol) per dtype; see the module docstring.
REWARD_TOLERANCE = {"float64": 1e-6, "float32": agreement.FLOAT32_MAX_REL_DOBS}


def _dtype() -> str:
    from jaxenvs._src.planar.locomotion import float_dtype
    return str(np.dtype(float_dtype()))


def inject_checks(env_id: str, states: int, env=None) -> Iterator[CheckResult]:
    """One env step from ``states`` MuJoCo states (see the module docstring)."""
    dtype = _dtype()
    drawn = agreement.mujoco_states(env_id, states)
    # Float64 against MuJoCo run to its minimiser (see ``agreement.CONVERGED_TOLERANCE``).
    ref = mujoco_c.Reference(env_id,
                             agreement.CONVERGED_TOLERANCE if dtype == "float64" else None)
    stages, ours, mujoco = agreement.inject(env_id, drawn, ref, env)
    if dtype == "float64":
        obs_tolerance = Tolerance.close(atol=agreement.FLOAT64_MAX_DOBS)
    else:
        limit = agreement.FLOAT32_MAX_REL_DOBS
        obs_tolerance = Tolerance.close(atol=limit, rtol=limit)
    reward = REWARD_TOLERANCE[dtype]
    tolerances = {"obs": obs_tolerance, "reward": Tolerance.close(atol=reward, rtol=reward)}
    actual, expected = dict(ours), dict(mujoco)
    if dtype == "float64":  # stage errors (relative, per state) against zero
        for name, bound in agreement.FLOAT64_STAGE_BOUND.items():
            actual[f"{name} rel. error"] = stages[name]
            expected[f"{name} rel. error"] = np.zeros(len(drawn))
            tolerances[f"{name} rel. error"] = Tolerance.close(atol=bound)
    for name in agreement.COUNTS if dtype == "float64" else ("terminated",):
        actual[f"{name} count mismatch"] = stages[name]
        expected[f"{name} count mismatch"] = np.zeros(len(drawn))
        tolerances[f"{name} count mismatch"] = Tolerance.close()
    yield CheckResult(f"state injection {states} MuJoCo states, one env step ({dtype})",
                      compare_trajectories(actual, expected, tolerances))
    if dtype == "float32":
        median = np.median(np.abs(ours["obs"] - mujoco["obs"]))
        yield CheckResult(
            f"state injection {states} MuJoCo states, median |Δobs| (float32)",
            compare_trajectories({"median |Δobs|": [median]}, {"median |Δobs|": [0.0]},
                                 Tolerance.close(atol=agreement.FLOAT32_MEDIAN_DOBS)))


def _rollouts(env, qpos: np.ndarray, qvel: np.ndarray, acts: np.ndarray) -> np.ndarray:
    """``env``'s ``horizons.state_vector`` ``[batch, steps, nq - 1 + nv]`` from states
    ``qpos``, ``qvel`` ``[batch, nq]`` under ``acts[batch, steps, nu]`` (``step_env``: no
    reset, no truncation; a terminated episode runs on)."""
    import jax
    import jax.numpy as jnp

    from jaxenvs._src.planar.locomotion import float_dtype

    params = env.default_params

    def rollout(q, v, a):
        def body(state, action):
            _, state, *_ = env.step_env(jax.random.key(0), state, action, params)
            return state, jnp.concatenate([state.qpos[1:], state.qvel])
        return jax.lax.scan(body, env.state_type(qpos=q, qvel=v, time=jnp.int32(0)), a)[1]

    dtype = float_dtype()
    run = jax.jit(jax.vmap(rollout))
    return np.asarray(run(*(jnp.asarray(x, dtype) for x in (qpos, qvel, acts))), np.float64)


def replay_checks(env_id: str, seeds: int, env=None) -> Iterator[CheckResult]:
    """Rollouts from matched resets within the L3 bounds (see the module docstring)."""
    env = env or agreement.env_under_test(env_id)
    dtype = _dtype()
    tolerance = Tolerance.close(atol=horizons.TOLERANCE[dtype])
    starts = [horizons.initial_state(env_id, s) for s in range(seeds)]
    qpos, qvel = np.array([s[0] for s in starts]), np.array([s[1] for s in starts])
    for (target_dtype, policy), steps in horizons.TARGET[env_id].items():
        if target_dtype != dtype:
            continue
        acts = np.array([horizons.actions(env_id, s, policy, steps) for s in range(seeds)])
        ours = _rollouts(env, qpos, qvel, acts)
        for seed in range(seeds):
            expected = horizons.mujoco_rollout(env_id, seed, policy, steps)
            yield CheckResult(f"replay seed {seed}, {policy} actions, {steps} steps ({dtype})",
                              compare_trajectories({"obs": ours[seed]}, {"obs": expected},
                                                   tolerance))


def make_suite(env_id: str, states: int = 1000, seeds: int = 5, env=None):
    """``env_id``'s suite over ``states`` injected states and ``seeds`` replay seeds, checking
    ``env`` (default: ``env_id``'s env)."""

    def suite(options: SuiteOptions) -> Iterator[CheckResult]:
        if "inject" in options.modes:
            yield from inject_checks(env_id, states, env)
        if "replay" in options.modes:
            yield from replay_checks(env_id, seeds, env)

    return suite


def _full_size(env_id: str, options: SuiteOptions) -> Iterator[CheckResult]:
    """``env_id``'s suite at its default sizes (``make_suite``); with ``options.full``, state
    injection at 10,000 states."""
    return (make_suite(env_id, states=10_000) if options.full else make_suite(env_id))(options)


def halfcheetah_suite(options: SuiteOptions) -> Iterator[CheckResult]:
    """``jaxenvs verify HalfCheetah``."""
    return _full_size("HalfCheetah", options)


def hopper_suite(options: SuiteOptions) -> Iterator[CheckResult]:
    """``jaxenvs verify Hopper``."""
    return _full_size("Hopper", options)


def walker2d_suite(options: SuiteOptions) -> Iterator[CheckResult]:
    """``jaxenvs verify Walker2d``."""
    return _full_size("Walker2d", options)
