"""make / register / registered_envs: ids, parameter overrides and their errors."""

import logging

import jax
import numpy as np
import pytest

import jaxenvs
from jaxenvs.pong import Pong, PongParams


def test_every_registered_env_makes_with_default_params():
    assert {"Pong", "PongContinuous"} <= set(jaxenvs.registered_envs)
    for env_id in jaxenvs.registered_envs:
        env, params = jaxenvs.make(env_id)
        assert isinstance(env, jaxenvs.Environment)
        defaults = env.default_params  # params may hold arrays (PokeJAX's team pool)
        assert jax.tree.structure(params) == jax.tree.structure(defaults)
        assert all(np.array_equal(a, b) for a, b in
                   zip(jax.tree.leaves(params), jax.tree.leaves(defaults))), env_id


def test_unknown_id_lists_registered_ids_and_closest_match():
    with pytest.raises(ValueError) as error:
        jaxenvs.make("pong")
    message = str(error.value)
    assert "Unknown environment id 'pong'" in message
    assert "Did you mean 'Pong'?" in message
    for env_id in jaxenvs.registered_envs:
        assert env_id in message


def test_param_overrides_are_applied():
    env, params = jaxenvs.make("Pong", frameskip=1, max_score=5)
    assert (params.frameskip, params.max_score) == (1, 5)
    assert params.width == PongParams().width


def test_unknown_param_names_the_valid_ones():
    with pytest.raises(ValueError, match=r"no parameter\(s\) frame_skip.*frameskip"):
        jaxenvs.make("Pong", frame_skip=1)


@pytest.mark.parametrize("overrides, field", [
    ({"frameskip": 0}, "frameskip"),
    ({"frameskip": 2.5}, "frameskip"),
    ({"max_score": 0}, "max_score"),
    ({"paddle_speed": -1.0}, "paddle_speed"),
    ({"width": 0.0}, "width"),
    ({"max_steps_in_episode": 0}, "max_steps_in_episode"),
    ({"ball_height": 700.0}, "smaller than the field"),
])
def test_invalid_params_fail_at_construction(overrides, field):
    with pytest.raises(ValueError, match=field):
        jaxenvs.make("Pong", **overrides)


def test_register_refuses_duplicates_and_accepts_new_ids():
    with pytest.raises(ValueError, match="already registered"):
        jaxenvs.register("Pong", Pong)
    jaxenvs.register("PongTest", Pong, env_kwargs={"continuous": True})
    try:
        env, _ = jaxenvs.make("PongTest")
        assert env.continuous
        assert "PongTest" in jaxenvs.registered_envs
        jaxenvs.register("PongTest", Pong, overwrite=True)
        replaced, _ = jaxenvs.make("PongTest")
        assert not replaced.continuous and jaxenvs.make("PongTest")[0] is replaced
    finally:
        jaxenvs.registry._constructors.pop("PongTest")
        jaxenvs.registry._instances.pop("PongTest", None)
        jaxenvs.registered_envs.remove("PongTest")


def test_make_returns_one_env_per_id_so_its_compiled_step_is_reused():
    env, params = jaxenvs.make("Pong", frameskip=2)
    again, other_params = jaxenvs.make("Pong")
    assert again is env and params.frameskip == 2 and other_params.frameskip != 2
    key = jax.random.key(0)
    _, state = env.reset(key, params)
    env.step(key, state, 0, params)
    records = []
    handler = logging.Handler()
    handler.emit = records.append
    logging.getLogger("jax").addHandler(handler)
    try:
        with jax.log_compiles():
            env, params = jaxenvs.make("Pong", frameskip=2)
            _, state = env.reset(key, params)
            env.step(key, state, 0, params)
    finally:
        logging.getLogger("jax").removeHandler(handler)
    assert not [r for r in records if "Compiling" in r.getMessage()]


def test_register_validates_its_arguments():
    with pytest.raises(ValueError):
        jaxenvs.register("", Pong)
    with pytest.raises(TypeError):
        jaxenvs.register("NotCallable", 42)
