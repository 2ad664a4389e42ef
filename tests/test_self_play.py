"""The two-player convention (``docs/self-play.md``) holds alike for PokeJAX2P and TCGJax2P:
``current_player`` chooses, ``reward`` is its reward, ``info["rewards"]`` both players',
``observe`` either player's view, under ``vmap`` and ``scan`` as the doc's example runs them."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxenvs

BATCH, STEPS = 8, 150


@pytest.mark.parametrize("env_id", ["PokeJAX2P", "TCGJax2P"])
def test_the_two_player_convention(env_id):
    env, params = jaxenvs.make(env_id, max_steps_in_episode=120)
    assert env.num_players == 2 and jaxenvs.make("Pong")[0].num_players == 1

    def one_step(carry, key):
        obs, state = carry
        k_act, k_step = jax.random.split(key)
        action = jax.random.categorical(k_act, jnp.where(obs["action_mask"], 0.0, -jnp.inf))
        player = obs["current_player"]
        views = [env.observe(state, p) for p in (0, 1)]
        obs, state, reward, terminated, truncated, info = env.step(k_step, state, action,
                                                                   params)
        return (obs, state), (player, views, reward, info["rewards"], terminated | truncated,
                              info["illegal_action"])

    def rollout(key):
        k_reset, k_steps = jax.random.split(key)
        obs, state = env.reset(k_reset, params)
        _, out = jax.lax.scan(one_step, (obs, state), jax.random.split(k_steps, STEPS))
        return (obs, out)

    first, (player, views, reward, rewards, done, illegal) = jax.jit(jax.vmap(rollout))(
        jax.random.split(jax.random.key(0), BATCH))
    player, reward, rewards, done = map(np.asarray, (player, reward, rewards, done))
    assert set(np.unique(player)) == {0, 1} and done.any() and not np.asarray(illegal).any()
    # the chooser's own view is the observation it chose from; the other's mask allows nothing
    chooser_view = {k: np.where(_expand(player == 0, v[0]), v[0], v[1])
                    for k, v in ((k, (np.asarray(views[0][k]), np.asarray(views[1][k])))
                                 for k in views[0])}
    other_mask = np.where(player[..., None] == 0, views[1]["action_mask"],
                          views[0]["action_mask"])
    assert chooser_view["action_mask"].any(axis=-1).all() and not other_mask.any()
    np.testing.assert_array_equal(chooser_view["current_player"], player)
    for name in ("action_mask", "current_player"):  # the observation the first step chose from
        np.testing.assert_array_equal(chooser_view[name][:, 0], np.asarray(first[name]))
    # per-player rewards: zero-sum, at the episode's end only, ``reward`` the chooser's
    np.testing.assert_array_equal(rewards.sum(-1), 0.0)
    assert not rewards[~done].any() and np.abs(rewards[done]).sum() > 0
    np.testing.assert_array_equal(reward, np.take_along_axis(rewards, player[..., None],
                                                             -1)[..., 0])


def _expand(mask, like):
    return mask.reshape(mask.shape + (1,) * (like.ndim - mask.ndim))
