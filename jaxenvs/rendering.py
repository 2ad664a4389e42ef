"""Environment-independent rendering helpers: roll out an env into frames, save them as a GIF.

Any environment with the gymnax API works, given a ``render_fn(state, params) -> uint8[H, W,
3]`` that is pure JAX (e.g. ``jaxenvs.pong.render``). Saving GIFs needs Pillow, the optional
``render`` extra: ``pip install "jaxenvs[render]"``.
"""

from __future__ import annotations

import os
from typing import Any, Callable

import jax
import numpy as np

RenderFn = Callable[[Any, Any], jax.Array]
Policy = Callable[[jax.Array, jax.Array], jax.Array]


def rollout_frames(
    env: Any,
    params: Any,
    render_fn: RenderFn,
    key: jax.Array,
    num_steps: int,
    policy: Policy | None = None,
) -> np.ndarray:
    """Frames of ``num_steps`` steps of one ``env``: ``uint8[num_steps, H, W, 3]``.

    Resets ``env`` with ``key``, then runs ``num_steps`` steps of ``env.step`` (which
    auto-resets finished episodes) in one jitted ``lax.scan``. Frame ``t`` shows the state
    in which action ``t`` was taken, so frame 0 is the reset state. Actions come from
    ``policy(key, obs)``, or are sampled uniformly from ``env.action_space(params)`` when
    ``policy`` is None. The states are rendered with ``jax.vmap(render_fn, (0, None))``;
    ``params`` is closed over, not traced, so ``render_fn`` may read frame sizes from it.
    """
    if isinstance(num_steps, bool) or not isinstance(num_steps, int) or num_steps < 1:
        raise ValueError(f"num_steps must be an int >= 1, got {num_steps!r}")
    space = env.action_space(params)

    def step(carry, step_key):
        obs, state = carry
        policy_key, env_key = jax.random.split(step_key)
        action = space.sample(policy_key) if policy is None else policy(policy_key, obs)
        obs, next_state = env.step(env_key, state, action, params)[:2]
        return (obs, next_state), state

    def run(key: jax.Array) -> jax.Array:
        reset_key, steps_key = jax.random.split(key)
        carry = env.reset(reset_key, params)
        _, states = jax.lax.scan(step, carry, jax.random.split(steps_key, num_steps))
        return jax.vmap(render_fn, (0, None))(states, params)

    return np.asarray(jax.jit(run)(key))


def save_gif(frames: np.ndarray, path: str | os.PathLike, fps: float = 30) -> None:
    """Write ``frames`` (``uint8[T, H, W, 3]``, ``T >= 1``) to ``path`` as a looping GIF.

    GIF stores frame delays in hundredths of a second, so the delay ``1 / fps`` is rounded
    to the nearest one (at least 1; most viewers slow delays under 2 down, so keep ``fps`` <=
    50). Pillow merges identical consecutive frames into one longer frame. Raises
    ``ValueError`` for malformed frames or ``fps``, ``ImportError`` if Pillow is missing.
    """
    frames = np.asarray(frames)
    if frames.dtype != np.uint8:
        raise ValueError(f"frames must have dtype uint8, got {frames.dtype}")
    if frames.ndim != 4 or frames.shape[-1] != 3:
        raise ValueError(f"frames must have shape [T, H, W, 3], got {frames.shape}")
    if min(frames.shape[:3]) < 1:
        raise ValueError(f"frames must be non-empty (T, H, W >= 1), got shape {frames.shape}")
    if not fps > 0:
        raise ValueError(f"fps must be > 0, got {fps!r}")
    try:
        from PIL import Image
    except ImportError as err:
        raise ImportError(
            'save_gif needs Pillow; install it with: pip install "jaxenvs[render]"') from err
    images = [Image.fromarray(frame) for frame in frames]
    images[0].save(path, format="GIF", save_all=True, append_images=images[1:],
                   duration=10 * max(1, round(100 / fps)), loop=0)
