"""L1 property tests for Pong (hypothesis): ranges, score monotonicity, termination at 21."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
from hypothesis import given, settings, strategies as st

import jaxenvs
from jaxenvs.api_test import _space_contains

NUM_ENVS, NUM_STEPS = 8, 600


@functools.lru_cache(maxsize=None)
def _runner(frameskip: int):
    """A compiled rollout: NUM_ENVS envs, NUM_STEPS steps, actions from a biased policy."""
    env, params = jaxenvs.make("Pong", frameskip=frameskip)
    state_space = env.state_space(params)
    obs_space = env.observation_space(params)

    def one(key, p_up, p_down):
        _, state = env.reset(key, params)

        def body(state, k):
            ka, ks = jax.random.split(k)
            u = jax.random.uniform(ka)
            action = jnp.where(u < p_up, 1, jnp.where(u < p_up + p_down, 2, 0))
            obs, next_state, reward, terminated, truncated, _ = env.step(ks, state, action,
                                                                         params)
            return next_state, dict(pre=state, post=next_state, obs=obs, reward=reward,
                                    terminated=terminated, truncated=truncated,
                                    in_space=_space_contains(state_space, next_state),
                                    obs_in_space=_space_contains(obs_space, obs))

        _, traj = jax.lax.scan(body, state, jax.random.split(key, NUM_STEPS))
        return traj

    return jax.jit(jax.vmap(one, in_axes=(0, None, None))), params


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), p_up=st.floats(0, 1), frameskip=st.sampled_from([1, 8]))
def test_pong_invariants(seed, p_up, frameskip):
    run, params = _runner(frameskip)
    traj = jax.device_get(run(jax.random.split(jax.random.key(seed), NUM_ENVS),
                              jnp.float32(p_up), jnp.float32((1 - p_up) / 2)))
    pre, post = traj["pre"], traj["post"]

    # Ranges: every state and observation in the documented spaces.
    assert traj["in_space"].all() and traj["obs_in_space"].all()
    assert (post.paddle_yl >= -35).all() and (post.paddle_yl <= 605).all()
    assert (post.paddle_yr >= -35).all() and (post.paddle_yr <= 605).all()
    assert np.isin(post.ball_vx, [-10, 10]).all()
    assert (np.abs(post.ball_vy) <= 13).all()

    # Rewards take C's four values only.
    assert np.isin(traj["reward"], np.float32([0, 0.1, 1, -1])).all()
    assert not traj["truncated"].any()

    # Scores: within an episode each step adds at most one point, to the side the reward says.
    ended = traj["terminated"]
    d_left = post.score_l - pre.score_l
    d_right = post.score_r - pre.score_r
    go_on = ~ended
    assert ((d_left[go_on] == 1) == (traj["reward"][go_on] == -1)).all()
    assert ((d_right[go_on] == 1) == (traj["reward"][go_on] == 1)).all()
    assert (d_left[go_on] >= 0).all() and (d_right[go_on] >= 0).all()
    assert (d_left[go_on] + d_right[go_on] <= 1).all()

    # Termination exactly at 21: a side at 20 scores, and the game restarts at 0-0.
    winner_at_20 = np.where(traj["reward"] == 1, pre.score_r, pre.score_l)
    scored = np.abs(traj["reward"]) == 1
    assert (ended == (scored & (winner_at_20 == params.max_score - 1))).all()
    assert (post.score_l[ended] == 0).all() and (post.score_r[ended] == 0).all()
    assert (post.score_l < 21).all() and (post.score_r < 21).all()
    if frameskip == 8:  # 600 steps of 8 frames hold several whole games per env
        assert ended.sum() >= NUM_ENVS
