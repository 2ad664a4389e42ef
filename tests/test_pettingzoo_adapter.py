"""``jaxenvs.pettingzoo_env``: the two-player envs pass PettingZoo's own ``api_test``, play the
env's game with its per-player rewards, and refuse what they cannot take."""

import warnings

import jax
import numpy as np
import pytest
from pettingzoo.test import api_test

import jaxenvs

TWO_PLAYER = ["PokeJAX2P", "TCGJax2P"]


@pytest.mark.parametrize("env_id", TWO_PLAYER)
def test_two_player_envs_pass_pettingzoos_api_test(env_id):
    env = jaxenvs.pettingzoo_env(env_id)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env, num_cycles=300)
    # The games' observations are dicts of arrays, which PettingZoo only hints against.
    expected = ("Observation is not a NumPy array", "Observation space for each agent",
                "Environment has not defined a render() method")
    assert [str(w.message) for w in caught if not str(w.message).startswith(expected)] == []


@pytest.mark.parametrize("env_id", TWO_PLAYER)
def test_a_game_is_the_envs_with_its_rewards_and_masks(env_id):
    """Seeded random play through the adapter is the env's game step by step (the same
    observations from the same keys), the selected agent is ``current_player``, the other's
    mask allows nothing, and the agents' rewards add up to the env's at the end."""
    zoo = jaxenvs.pettingzoo_env(env_id, max_steps_in_episode=400)
    env, params = zoo.env, zoo.params
    zoo.reset(seed=3)
    key = jax.random.key(3)
    key, reset_key = jax.random.split(key)
    obs, state = env.reset(reset_key, params)
    rng = np.random.default_rng(0)
    totals = {a: 0.0 for a in zoo.possible_agents}
    steps = 0
    for agent in zoo.agent_iter():
        seen, reward, terminated, truncated, _ = zoo.last()
        totals[agent] += reward
        if terminated or truncated:
            zoo.step(None)
            continue
        player = zoo.possible_agents.index(agent)
        assert player == int(obs["current_player"])
        np.testing.assert_array_equal(seen["action_mask"], np.asarray(obs["action_mask"]))
        for name, value in seen["observation"].items():
            np.testing.assert_array_equal(value, np.asarray(obs[name]))
        other = zoo.observe(zoo.possible_agents[1 - player])
        assert not other["action_mask"].any()
        action = int(rng.choice(np.flatnonzero(seen["action_mask"])))
        zoo.step(action)
        key, step_key = jax.random.split(key)
        obs, state, _, _, _, info = env.step(step_key, state, action, params)
        steps += 1
    assert not zoo.agents and steps > 2
    assert bool(info["terminated"]) or bool(info["truncated"])
    np.testing.assert_array_equal([totals[a] for a in zoo.possible_agents], info["rewards"])


def test_what_the_adapter_refuses():
    with pytest.raises(ValueError, match="Pong has one player"):
        jaxenvs.pettingzoo_env("Pong")
    zoo = jaxenvs.pettingzoo_env("TCGJax2P")
    zoo.reset(seed=0)
    with pytest.raises(ValueError, match=r"action must be one of 0\.\.67, got 68"):
        zoo.step(68)
