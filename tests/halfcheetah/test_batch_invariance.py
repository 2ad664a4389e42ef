"""A HalfCheetah trajectory does not depend on the batch it runs in, bit for bit (float32).

Episodes from ``reset`` under random actions, run by ``jit(vmap(scan(step)))`` at batch sizes
1, 2, 7 and 300 (the last 7 of the 300 also as a batch of their own) and by
``jit(scan(step))`` unbatched, must give identical observations, states, rewards and infos
for the same keys. The batches also run the constraint solver's Newton steps differently:
batches 1 and 2 in one vmapped loop, 7 and 300 in rounds of 2 and 37 states
(``rounds.while_loop``). Without
``batching.batch_invariant``, batch 1 differs from the others after a few steps on any CPU
with FMA (XLA fuses a unit batch axis differently, see ``batching``), so this can fail.
"""

import jax
import jax.numpy as jnp
import numpy as np

from jaxenvs.halfcheetah import HalfCheetah

STEPS = 40
BATCHES = (1, 2, 7, 300)


def _episode(env, params):
    def one_env(key):
        reset_key, run_key = jax.random.split(key)
        _, state = env.reset(reset_key, params)

        def body(state, t):
            action_key, step_key = jax.random.split(jax.random.fold_in(run_key, t))
            action = jax.random.uniform(action_key, (6,), minval=-1, maxval=1)
            obs, state, reward, _, _, info = env.step(step_key, state, action, params)
            return state, (obs, state, reward, info)

        return jax.lax.scan(body, state, jnp.arange(STEPS))[1]

    return one_env


def test_trajectories_are_identical_at_every_batch_size():
    env = HalfCheetah()
    params = env.default_params
    episode = _episode(env, params)
    rollout = jax.jit(jax.vmap(episode))
    keys = jax.random.split(jax.random.key(1), max(BATCHES))
    full = jax.tree.map(np.asarray, rollout(keys))
    # the episodes reach the floor and move: contacts and the solver are exercised
    assert np.abs(full[0][:, -1, 8:]).max() > 1.0
    for batch in BATCHES[:-1]:
        part = rollout(keys[:batch])
        for got, expected in zip(jax.tree.leaves(part), jax.tree.leaves(full)):
            np.testing.assert_array_equal(np.asarray(got), expected[:batch],
                                          err_msg=f"batch {batch}")
    # the last states against the same states in a batch of their own
    tail = rollout(keys[-BATCHES[-2]:])
    for got, expected in zip(jax.tree.leaves(tail), jax.tree.leaves(full)):
        np.testing.assert_array_equal(np.asarray(got), expected[-BATCHES[-2]:],
                                      err_msg="last states")
    alone = jax.jit(episode)(keys[5])
    for got, expected in zip(jax.tree.leaves(alone), jax.tree.leaves(full)):
        np.testing.assert_array_equal(np.asarray(got), expected[5], err_msg="unbatched")

