"""L4: a PPO policy trained in our HalfCheetah, played in it and in gymnasium's MuJoCo
HalfCheetah-v5, with its returns TOSTed.

``python -m jaxenvs.halfcheetah.reference.transfer --checkpoint jaxenvs/halfcheetah/data/policy``
plays ``--episodes`` whole episodes (1,000 steps each) in each engine:

* **Ours** (``jax_returns``): the episodes of ``TrainedPolicy.env_returns``, parallel envs
  from ``jax.random.key(seed)``, observations normalized with the checkpoint's frozen
  statistics inside the env.
* **MuJoCo** (``gymnasium_returns``): ``gymnasium.make("HalfCheetah-v5")`` with the same
  constructor arguments (reward weights, reset noise), one env per episode reset with its
  own seed, stepped in lockstep; the policy sees ``TrainedPolicy.observe`` of gymnasium's
  float64 observations, exactly what our env would show it.

By default both play the policy's mean action (deterministic evaluation, as returns of
continuous-control policies are usually reported); ``--sampled`` draws from its Gaussian
instead (JAX's stream in ours, NumPy's in gymnasium). The two engines share no seed, so the
returns are independent samples, and ``compare`` TOSTs their means with a margin of
``MARGIN_FRACTION`` of the mean return (both engines' episodes pooled). The L4 check plays at
least 100 episodes per engine (the default ``--episodes``).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from jaxenvs.ppo.policy import TrainedPolicy
from jaxenvs.verify.transfer import TransferResult
from jaxenvs.verify.tost import tost

ENV_ID = "HalfCheetah"
#: The reference env: gymnasium's id (MuJoCo's C library underneath).
GYMNASIUM_ID = "HalfCheetah-v5"
#: Equivalence margin: this fraction of the mean return.
MARGIN_FRACTION = 0.05
#: The committed policy (``jaxenvs train HalfCheetah``, ``DEFAULT_CONFIGS["HalfCheetah"]``).
CHECKPOINT = Path(__file__).parents[1] / "data" / "policy"


def load(checkpoint: str | Path = CHECKPOINT) -> TrainedPolicy:
    """The policy of a ``jaxenvs train HalfCheetah`` checkpoint."""
    return TrainedPolicy.load(checkpoint, ENV_ID)


def _gymnasium_kwargs(policy: TrainedPolicy) -> dict[str, float]:
    """HalfCheetah-v5's constructor arguments matching the checkpoint's env parameters."""
    p = policy.env_params
    if int(p.frame_skip) != 5:
        raise ValueError(f"frame_skip {p.frame_skip}: {GYMNASIUM_ID} steps 5 frames")
    return {"forward_reward_weight": float(p.forward_reward_weight),
            "ctrl_cost_weight": float(p.ctrl_cost_weight),
            "reset_noise_scale": float(p.reset_noise_scale),
            "max_episode_steps": int(p.max_steps_in_episode)}


def jax_returns(policy: TrainedPolicy, episodes: int, seed: int, greedy: bool = True
                ) -> np.ndarray:
    """float[episodes]: returns of ``episodes`` whole episodes in our env."""
    returns = policy.env_returns(episodes, seed, int(policy.env_params.max_steps_in_episode),
                                 greedy)
    assert np.all(np.isfinite(returns)), "an episode did not reach its time limit"
    return returns


def gymnasium_returns(policy: TrainedPolicy, episodes: int, seed: int, greedy: bool = True
                      ) -> np.ndarray:
    """float[episodes]: returns of ``episodes`` whole episodes of gymnasium's HalfCheetah-v5
    (episode ``i`` reset with seed ``seed * 10**6 + i``), played in lockstep so the policy
    runs once per step for all of them."""
    try:
        import gymnasium
    except ImportError as error:  # pragma: no cover - depends on the installation
        raise ImportError("the HalfCheetah reference needs MuJoCo and gymnasium: "
                          "pip install jaxenvs[halfcheetah]") from error
    kwargs = _gymnasium_kwargs(policy)
    envs = [gymnasium.make(GYMNASIUM_ID, **kwargs) for _ in range(episodes)]
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
    setting = {"env": ENV_ID, "reference": GYMNASIUM_ID, **_gymnasium_kwargs(policy),
               "margin": margin, "margin_fraction": margin_fraction}
    return TransferResult(setting, "episode return", greedy, episodes, float(ours.mean()),
                          float(theirs.mean()), tost(ours, theirs, margin),
                          mid - start, end - mid,
                          {"jax_std": float(ours.std(ddof=1)),
                           "reference_std": float(theirs.std(ddof=1)),
                           "jax_returns": ours.tolist(), "reference_returns": theirs.tolist()})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", type=Path, default=CHECKPOINT)
    parser.add_argument("--episodes", type=int, default=100, help="episodes per engine")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sampled", action="store_true",
                        help="sample from the policy's Gaussian instead of its mean")
    parser.add_argument("--json", type=Path, default=None, help="write the result here")
    args = parser.parse_args()
    if args.episodes < 2:
        parser.error("--episodes must be at least 2 (the TOST needs a variance)")
    result = compare(load(args.checkpoint), args.episodes, args.seed, not args.sampled)
    import mujoco

    print(f"{ENV_ID} against {GYMNASIUM_ID} (MuJoCo {mujoco.__version__}), margin "
          f"{result.setting['margin']:.1f} ({MARGIN_FRACTION:.0%} of the mean return)")
    print(result.summary(GYMNASIUM_ID))
    print(f"return std: JAX {result.extra['jax_std']:.1f}, {GYMNASIUM_ID} "
          f"{result.extra['reference_std']:.1f}")
    if args.json is not None:
        args.json.write_text(json.dumps(result.to_json(), indent=2) + "\n")


if __name__ == "__main__":
    main()
