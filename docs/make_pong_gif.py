"""Regenerate ``docs/pong.gif``, the README's Pong animation: ``python docs/make_pong_gif.py``.

The agent (right, cyan) tracks the ball with a simple scripted policy, so there are rallies
against the scripted opponent (left, red); frames are rendered at half resolution.
"""

from __future__ import annotations

import functools
from pathlib import Path

import jax
import jax.numpy as jnp

import jaxenvs
from jaxenvs.pong.render import render
from jaxenvs.rendering import rollout_frames, save_gif

NUM_STEPS = 300
FRAMESKIP = 3
SCALE = 2
FPS = 60 // FRAMESKIP  # real time: C's client also shows 60 / frameskip steps per second
EXPLORE = 0.3  # probability of a random action
SEED = 1  # a rollout in which both sides score


def main() -> None:
    env, params = jaxenvs.make("Pong", frameskip=FRAMESKIP)

    def track_ball(key: jax.Array, obs: jax.Array) -> jax.Array:
        """Move the paddle's centre toward the ball's centre (action 1 is up, 2 down),
        with an occasional random action so that the agent can miss too."""
        paddle_centre = obs[1] * params.height  # obs[1] = (paddle_yr + h/2) / height
        ball_centre = obs[3] * params.height + params.ball_height / 2
        gap = ball_centre - paddle_centre
        tracked = jnp.where(gap > 4, 1, jnp.where(gap < -4, 2, 0))
        explore_key, action_key = jax.random.split(key)
        random_action = jax.random.randint(action_key, (), 0, 3)
        return jnp.where(jax.random.uniform(explore_key) < EXPLORE, random_action, tracked)

    render_fn = functools.partial(render, scale=SCALE)
    frames = rollout_frames(env, params, render_fn, jax.random.key(SEED), NUM_STEPS, track_ball)
    save_gif(frames, Path(__file__).with_name("pong.gif"), fps=FPS)


if __name__ == "__main__":
    main()
