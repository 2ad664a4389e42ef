"""The PokeJAX env: the jaxenvs/gymnax contract, parameter checks, and that an episode is the
Showdown battle its reset seed and teams define (the opponent's choices read back from the
engine state are replayed in Showdown and must give the same winner and decision count)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxenvs
from jaxenvs.pokejax import engine
from jaxenvs.pokejax import teams as tm
from jaxenvs.pokejax.data import team_pool
from jaxenvs.pokejax.env import PokeJAX, supported_pool


@pytest.fixture(scope="module")
def env_params():
    env = PokeJAX()
    return env, env.default_params


@pytest.mark.slow  # ~1-2 min on 2 cores, almost all of it XLA compiling the batched step
def test_api_contract(env_params):
    env, params = env_params
    report = jaxenvs.api_test(env, params)
    assert report.episodes_ended > 0


def test_params_are_checked(env_params):
    env, params = env_params
    pool = team_pool()
    bad = {k: jnp.asarray(getattr(pool, k)[:4]) for k in ("species", "moves", "level", "evs",
                                                         "ivs")}
    with pytest.raises(ValueError, match="not supported"):
        env.check_params(params.replace(teams=bad))
    with pytest.raises(ValueError, match="max_steps_in_episode"):
        env.check_params(params.replace(max_steps_in_episode=0))


def test_episode_is_the_showdown_battle(env_params, showdown):
    """Episodes with random agent actions, replayed in Showdown with the seed and teams reset
    drew and the decisions ``info`` reports, agree with the engine at every decision."""
    env, params = env_params
    reset, step = jax.jit(env.reset_env), jax.jit(env.step_env)
    pool = _Pool({k: np.asarray(v) for k, v in params.teams.items()})
    rng = np.random.default_rng(3)
    for episode in range(3):
        key = jax.random.key(episode)
        obs, state = reset(key, params)
        k_teams, k_seed = jax.random.split(key)  # what reset_env draws
        pick = np.asarray(jax.random.randint(k_teams, (2,), 0, len(pool.species)))
        seed = [int(w) for w in np.asarray(jax.random.randint(k_seed, (4,), 0, 1 << 16))]
        packed = tuple(tm.pack(tm.from_arrays(pool, int(i))) for i in pick)
        choices = []
        while not bool(state.battle.ended):
            action = int(rng.choice(np.flatnonzero(np.asarray(obs["action_mask"]))))
            obs, state, reward, done, info = step(jax.random.key(1000 + len(choices)), state,
                                                  action, params)
            assert int(info["agent_action"]) == action
            opp = [int(a) for a in np.asarray(info["opponent_actions"])]
            first = {"p1": engine.action_to_choice(action)}
            if opp[0] >= 0:
                first["p2"] = engine.action_to_choice(opp[0])
            choices.append(first)
            if opp[1] >= 0:
                choices.append({"p2": engine.action_to_choice(opp[1])})
        traj = showdown.replay(seed, packed, choices)
        divergence, _ = engine.replay(traj)
        assert divergence is None, str(divergence)
        assert float(reward) == {"p1": 1.0, "p2": -1.0}.get(traj.winner, 0.0)


class _Pool:
    """A pool of team arrays with the attributes ``teams.from_arrays`` reads."""

    def __init__(self, arrays):
        self.__dict__.update(arrays)


def test_supported_pool_is_legal():
    pool = supported_pool(8, seed=1)
    for i in range(8):
        sets = tm.from_arrays(_Pool(pool), i)
        assert tm.problems(sets) == []
