"""L4: a PPO policy trained in one of our planar bodies, played in it and in gymnasium's
MuJoCo ``-v5`` env of the same body, with its returns TOSTed.

``python -m jaxenvs.planar_reference.transfer --env Hopper`` plays ``--episodes`` whole
episodes (at most 1,000 steps each) of the body's committed policy (``Body.checkpoint``) in
each engine:

* **Ours** (``jax_returns``): the episodes of ``TrainedPolicy.env_returns``, parallel envs
  from ``jax.random.key(seed)``, observations normalized with the checkpoint's frozen
  statistics inside the env.
* **MuJoCo** (``gymnasium_returns``): ``gymnasium.make("<Body>-v5")`` with the constructor
  arguments of the checkpoint's env parameters (reward weights, health ranges, reset noise),
  one env per episode reset with its own seed, stepped in lockstep; the policy sees
  ``TrainedPolicy.observe`` of gymnasium's float64 observations, exactly what our env would
  show it.

By default both play the policy's mean action (deterministic evaluation, as returns of
continuous-control policies are usually reported); ``--sampled`` draws from its Gaussian
instead (JAX's stream in ours, NumPy's in gymnasium). The two engines share no seed, so the
returns are independent samples, and ``compare`` TOSTs their means with a margin of
``MARGIN_FRACTION`` of the mean return (both engines' episodes pooled). The L4 check plays
``EPISODES`` episodes per engine (the default ``--episodes``): a policy that falls now and
then has a wide spread of returns, which a hundred episodes may not resolve within the margin.

The check runs in the process's float dtype (float64 with ``JAX_ENABLE_X64=1``). A policy
that falls now and then can fare differently in float32 physics: one Walker2d policy returned
about 4% less in float32 than in float64, in our engine and in MJX alike, from the same start
states (``docs/hopper-walker2d.md``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from pathlib import Path

import numpy as np

from jaxenvs._src.planar.locomotion import float_dtype
from jaxenvs.planar_reference.bodies import BODIES
from jaxenvs.ppo.policy import TrainedPolicy
from jaxenvs.verify.transfer import TransferResult
from jaxenvs.verify.tost import tost

#: Equivalence margin: this fraction of the mean return.
MARGIN_FRACTION = 0.05
#: Episodes per engine of the L4 check.
EPISODES = 300


def load(env_id: str, checkpoint: str | Path | None = None) -> TrainedPolicy:
    """The policy of a ``jaxenvs train <env_id>`` checkpoint (default: the committed one)."""
    checkpoint = checkpoint or BODIES[env_id].checkpoint()
    if checkpoint is None:
        raise FileNotFoundError(f"{env_id} has no committed policy; pass a checkpoint")
    return TrainedPolicy.load(checkpoint, env_id)


def _gymnasium_kwargs(policy: TrainedPolicy) -> dict[str, float | bool | tuple[float, float]]:
    """The ``-v5`` env's constructor arguments matching the checkpoint's env parameters: the
    same names, each ``healthy_*_min``/``_max`` pair as gymnasium's ``healthy_*_range``."""
    kwargs: dict = {"frame_skip": int(policy.env_params.frame_skip),
                    "max_episode_steps": int(policy.env_params.max_steps_in_episode)}
    for field in dataclasses.fields(policy.env_params):
        name, value = field.name, getattr(policy.env_params, field.name)
        if name in kwargs or name == "max_steps_in_episode":
            continue
        if name.endswith("_min"):
            maximum = getattr(policy.env_params, name[:-4] + "_max")
            kwargs[name[:-4] + "_range"] = (float(value), float(maximum))
        elif isinstance(value, bool) or name.startswith("terminate"):
            kwargs[name] = bool(value)
        elif not name.endswith("_max"):
            kwargs[name] = float(value)
    return kwargs


def jax_returns(policy: TrainedPolicy, episodes: int, seed: int, greedy: bool = True
                ) -> np.ndarray:
    """float[episodes]: returns of ``episodes`` whole episodes in our env."""
    returns = policy.env_returns(episodes, seed, int(policy.env_params.max_steps_in_episode),
                                 greedy)
    assert np.all(np.isfinite(returns)), "an episode outlasted its time limit"
    return returns


def gymnasium_returns(policy: TrainedPolicy, episodes: int, seed: int, greedy: bool = True
                      ) -> np.ndarray:
    """float[episodes]: returns of ``episodes`` whole episodes of gymnasium's ``-v5`` env of
    the policy's body (episode ``i`` reset with seed ``seed * 10**6 + i``), played in
    lockstep so the policy runs once per step for all of them."""
    try:
        import gymnasium
    except ImportError as error:  # pragma: no cover - depends on the installation
        raise ImportError("the planar bodies' reference needs MuJoCo and gymnasium: "
                          "pip install jaxenvs[mujoco]") from error
    kwargs = _gymnasium_kwargs(policy)
    gymnasium_id = BODIES[policy.env_id].gymnasium_id
    envs = [gymnasium.make(gymnasium_id, **kwargs) for _ in range(episodes)]
    obs = np.stack([env.reset(seed=seed * 10**6 + i)[0] for i, env in enumerate(envs)])
    rng = np.random.default_rng((seed, episodes))
    returns = np.zeros(episodes)
    running = np.ones(episodes, bool)
    while running.any():
        actions = policy.act(obs, rng, greedy)
        for i in np.flatnonzero(running):
            obs[i], reward, terminated, truncated, _ = envs[i].step(actions[i])
            returns[i] += reward
            running[i] = not (terminated or truncated)
    for env in envs:
        env.close()
    return returns


def compare(policy: TrainedPolicy, episodes: int, seed: int = 0, greedy: bool = True,
            margin_fraction: float = MARGIN_FRACTION) -> TransferResult:
    """Play ``episodes`` episodes in each engine (seeds ``seed`` and ``seed + 1``) and TOST
    their mean returns with a margin of ``margin_fraction`` of the pooled mean return."""
    start = time.perf_counter()
    ours = jax_returns(policy, episodes, seed, greedy)
    mid = time.perf_counter()
    theirs = gymnasium_returns(policy, episodes, seed + 1, greedy)
    end = time.perf_counter()
    margin = margin_fraction * abs(float(np.concatenate([ours, theirs]).mean()))
    kwargs = {name: [v if np.isfinite(v) else str(v) for v in value]  # strict JSON
              if isinstance(value, tuple) else value
              for name, value in _gymnasium_kwargs(policy).items()}
    setting = {"env": policy.env_id, "reference": BODIES[policy.env_id].gymnasium_id,
               "dtype": str(np.dtype(float_dtype())), **kwargs,
               "margin": margin, "margin_fraction": margin_fraction}
    return TransferResult(setting, "episode return", greedy, episodes, float(ours.mean()),
                          float(theirs.mean()), tost(ours, theirs, margin),
                          mid - start, end - mid,
                          {"jax_std": float(ours.std(ddof=1)),
                           "reference_std": float(theirs.std(ddof=1)),
                           "jax_returns": ours.tolist(), "reference_returns": theirs.tolist()})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", choices=sorted(BODIES), required=True)
    parser.add_argument("--checkpoint", type=Path, default=None,
                        help="a jaxenvs train run folder (default: the committed policy)")
    parser.add_argument("--episodes", type=int, default=EPISODES, help="episodes per engine")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sampled", action="store_true",
                        help="sample from the policy's Gaussian instead of its mean")
    parser.add_argument("--json", type=Path, default=None, help="write the result here")
    args = parser.parse_args()
    if args.episodes < 2:
        parser.error("--episodes must be at least 2 (the TOST needs a variance)")
    result = compare(load(args.env, args.checkpoint), args.episodes, args.seed,
                     not args.sampled)
    import mujoco

    reference = result.setting["reference"]
    print(f"{args.env} ({result.setting['dtype']}) against {reference} (MuJoCo "
          f"{mujoco.__version__}), margin "
          f"{result.setting['margin']:.1f} ({MARGIN_FRACTION:.0%} of the mean return)")
    print(result.summary(reference))
    print(f"return std: JAX {result.extra['jax_std']:.1f}, {reference} "
          f"{result.extra['reference_std']:.1f}")
    if args.json is not None:
        args.json.write_text(json.dumps(result.to_json(), indent=2) + "\n")


if __name__ == "__main__":
    main()
