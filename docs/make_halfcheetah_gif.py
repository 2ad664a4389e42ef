"""Regenerate ``docs/halfcheetah.gif``: ``python docs/make_halfcheetah_gif.py``.

The cheetah runs an open-loop sine gait (motor ``i`` at env step ``t``: ``sin(2 pi t / PERIOD +
PHASES[i])``, phases picked by a small random search for a run that goes forward without
flipping the torso) from a reset state, for ``NUM_STEPS`` env steps of
0.05 s, shown in real time by ``jaxenvs.halfcheetah.render``'s side view with the camera
following the torso (the floor's stripes are 0.5 m wide). The contact dynamics are chaotic, so
other hardware (other rounding) may give another run; the script prints how far it got and the
largest torso pitch.
"""

from __future__ import annotations

from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from jaxenvs.halfcheetah import HalfCheetah
from jaxenvs.halfcheetah.render import render
from jaxenvs.rendering import save_gif

NUM_STEPS = 100
#: Gait period in env steps, and each motor's phase (bthigh, bshin, bfoot, fthigh, fshin,
#: ffoot) in radians.
PERIOD = 10
PHASES = np.array([0.54, 1.6, 3.9, 2.42, 2.81, 5.06])
FPS = 20  # 1 / env dt: real time
SEED = 0


def gait(t: jax.Array) -> jax.Array:
    """The action at env step ``t``."""
    return jnp.sin(2 * jnp.pi * t / PERIOD + jnp.asarray(PHASES, jnp.float32))


@jax.jit
def rollout(key: jax.Array):
    """Reset with ``key``, then ``NUM_STEPS`` steps of the gait: the states in which each
    action was taken (the reset state first), and the frames of those states."""
    env = HalfCheetah()
    params = env.default_params
    reset_key, step_key = jax.random.split(key)
    _, state = env.reset(reset_key, params)

    def step(state, t):
        _, next_state, *_ = env.step(step_key, state, gait(t), params)
        return next_state, state

    _, states = jax.lax.scan(step, state, jnp.arange(NUM_STEPS))
    return states, jax.vmap(render, (0, None))(states, params)


def main() -> None:
    states, frames = rollout(jax.random.key(SEED))
    save_gif(np.asarray(frames), Path(__file__).with_name("halfcheetah.gif"), fps=FPS)
    print(f"rootx {float(states.qpos[-1, 0]):.2f} m after {NUM_STEPS - 1} steps; largest torso "
          f"pitch {float(np.abs(states.qpos[:, 2]).max()):.2f} rad")


if __name__ == "__main__":
    main()
