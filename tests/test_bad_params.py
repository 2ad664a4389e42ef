"""Bad input at the boundary: parameter values drawn at random for every scalar parameter of
every env, and team arrays, fail at ``make`` with a ``ValueError`` naming the problem, never a
silent conversion (``2.9`` to deck 2, ``inf`` to NaN observations) nor an error from inside
JAX; actions of the wrong shape or kind fail at ``step`` with a message, and actions of any
value step as each env documents."""

import dataclasses
import functools
import typing

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from gymnax.environments import spaces
from hypothesis import given, settings
from hypothesis import strategies as st

import jaxenvs


def _fields(env_id):
    env, params = jaxenvs.make(env_id)
    hints = typing.get_type_hints(type(params))
    return [(f.name, hints[f.name]) for f in dataclasses.fields(params)
            if hints[f.name] in (int, float, bool)]


FIELDS = [(env_id, name, kind) for env_id in jaxenvs.registered_envs
          for name, kind in _fields(env_id)]
#: Float parameters that are the top of a range, where +inf is a value (no bound: gymnasium's
#: default for Hopper's healthy height): they refuse only what is not a number above the
#: range's other end.
OPEN_ENDS = {("Hopper", "healthy_z_max"), ("Walker2d", "healthy_z_max")}

NOT_NUMBERS = st.one_of(st.booleans(), st.text(max_size=3), st.none(),
                        st.just([1]), st.just(np.zeros(2)))
NOT_FINITE = st.sampled_from([float("nan"), float("inf"), -float("inf"), 1e39, -1e39])
#: Values an int parameter must refuse: numbers that are not ints, ints past int32.
BAD_INTS = st.one_of(NOT_NUMBERS, NOT_FINITE,
                     st.floats(allow_nan=False, allow_infinity=False, min_value=-1e6,
                               max_value=1e6),
                     st.integers(min_value=2**31), st.integers(max_value=-2**31 - 1))
#: Values a float parameter must refuse.
BAD_FLOATS = st.one_of(NOT_NUMBERS, NOT_FINITE)
#: Values a bool parameter must refuse: anything but a bool, 0 and 1 included.
BAD_BOOLS = st.one_of(st.integers(), st.floats(), st.text(max_size=3), st.none(),
                      st.just([True]), st.just(np.zeros(2, bool)))


def test_every_env_has_scalar_parameters_checked():
    assert {env_id for env_id, _, _ in FIELDS} == set(jaxenvs.registered_envs)


@pytest.mark.parametrize("env_id,name,kind", FIELDS)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_a_bad_value_is_refused_naming_the_parameter(env_id, name, kind, data):
    bad = {int: BAD_INTS, float: BAD_FLOATS, bool: BAD_BOOLS}[kind]
    if (env_id, name) in OPEN_ENDS:
        bad = st.one_of(NOT_NUMBERS, st.sampled_from([float("nan"), -float("inf"), -1e39]))
    value = data.draw(bad)
    with pytest.raises(ValueError, match=name):
        jaxenvs.make(env_id, **{name: value})


@pytest.mark.parametrize("env_id,overrides", [
    ("TCGJax", {"opponent": 1.9}), ("TCGJax", {"deck0": 2.9}), ("Pong", {"width": np.inf}),
    ("Pong", {"max_score": 2.5}), ("PokeJAX", {"opponent": True}),
    ("HalfCheetah", {"frame_skip": 5.0})])
def test_the_values_that_once_ran_wrong_are_refused(env_id, overrides):
    with pytest.raises(ValueError, match=next(iter(overrides))):
        jaxenvs.make(env_id, **overrides)


def test_good_values_of_every_kind_of_scalar_are_accepted():
    for value in (3, np.int32(3), np.int64(3), jaxenvs.make("Pong")[1].max_score):
        assert jaxenvs.make("Pong", max_score=value)[1].max_score == value
    assert jaxenvs.make("Pong", width=np.float32(400.5))[1].width == np.float32(400.5)
    for value in (False, np.bool_(False), jnp.bool_(False)):
        assert not jaxenvs.make("TCGJax", first_turn_draw=value)[1].first_turn_draw


def _one_team(**changes):
    """The pool's first team as ``PokeJAXParams.teams`` arrays, with ``changes`` (field ->
    function of a copy of its array) applied."""
    _, params = jaxenvs.make("PokeJAX")
    teams = {name: np.array(value[:1]) for name, value in params.teams.items()}
    for name, change in changes.items():
        change(teams[name])
    return teams


@pytest.mark.parametrize("change,message", [
    ({"species": lambda a: a.__setitem__((0, 0), 200)}, "ids outside 0-151"),
    ({"moves": lambda a: a.__setitem__((0, 0, 0), 250)}, "ids outside 0-165"),
    ({"level": lambda a: a.__setitem__((0, 0), 0)}, "level 0 is outside 1-100"),
    ({"moves": lambda a: a.__setitem__((0, 1), 0)}, "has 0 moves"),
    ({"species": lambda a: a.__setitem__((0, 1), 0)}, "a Pokémon after an empty slot"),
    ({"evs": lambda a: a.__setitem__((0, 0, 4), 7)}, "Gen 1 has one Special"),
    ({"ivs": lambda a: a.__setitem__((0, 0, 0), 40)}, "IVs .* outside 0-31"),
])
def test_team_arrays_are_checked_as_strictly_as_team_text(change, message):
    with pytest.raises(ValueError, match=message):
        jaxenvs.make("PokeJAX", teams=_one_team(**change))


def test_team_arrays_of_the_wrong_shape_or_type_are_refused():
    teams = _one_team()
    for name, value, message in (("level", teams["level"][:, :5], r"\[N >= 1, 6\]"),
                                 ("level", teams["level"].astype(float), "integers"),
                                 ("species", np.zeros((0, 6), np.uint8), r"\[N >= 1, 6\]")):
        with pytest.raises(ValueError, match=message):
            jaxenvs.make("PokeJAX", teams={**teams, name: value})
    assert len(jaxenvs.make("PokeJAX", teams=teams)[1].teams["species"]) == 1


@pytest.mark.parametrize("env_id", jaxenvs.registered_envs)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_an_action_of_the_wrong_shape_or_kind_is_refused_with_a_message(env_id, data):
    env, params = jaxenvs.make(env_id)
    space = env.action_space(params)
    key = jax.random.key(0)
    state = jax.eval_shape(env.reset, key, params)[1]  # refused while tracing: no state needed
    shape = tuple(data.draw(st.lists(st.integers(1, 4), max_size=3)))
    dtype = data.draw(st.sampled_from([jnp.int32, jnp.float32, jnp.bool_, jnp.complex64]))
    integer, floating = (jnp.issubdtype(dtype, kind) for kind in (jnp.integer, jnp.floating))
    kind_ok = integer or (floating and not isinstance(space, spaces.Discrete))
    if shape == tuple(space.shape) and kind_ok:
        return  # a good action: stepped by the other tests
    action = jax.ShapeDtypeStruct(shape, dtype)
    message = "takes one env's action, of shape" if shape != tuple(space.shape) else \
        "actions are"
    with pytest.raises(ValueError, match=message):
        jax.eval_shape(env.step, key, state, action, params)


@pytest.mark.parametrize("env_id", ["PokeJAX", "PokeJAX2P", "TCGJax", "TCGJax2P"])
def test_every_env_with_a_mask_flags_a_forbidden_action_in_info(env_id):
    env, params = jaxenvs.make(env_id)
    key = jax.random.key(0)
    _, state = env.reset(key, params)
    space = env.action_space(params)
    outside = jnp.full(space.shape, space.n, jnp.int32)  # past every action: never legal
    _, _, _, _, _, info = env.step(key, state, outside, params)
    assert np.asarray(info["illegal_action"]).all()


@functools.cache
def _first_state(env_id):
    env, params = jaxenvs.make(env_id)
    return env.reset(jax.random.key(0), params)


@pytest.mark.parametrize("env_id", jaxenvs.registered_envs)
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_any_action_value_steps_as_documented(env_id, data):
    """Actions of the right shape and kind but any value: the observation stays finite and
    the step does what the env documents. A discrete action a mask forbids (or out of range)
    is replaced and flagged in ``info["illegal_action"]``; Pong's stays, as in C; a NaN in a
    continuous action is flagged in ``info["bad_action"]`` (HalfCheetah: every control 0, as
    MuJoCo; PongContinuous: the paddle stays), an infinite one clipped."""
    env, params = jaxenvs.make(env_id)
    space = env.action_space(params)
    if isinstance(space, spaces.Discrete):
        values = st.integers(-2**31, 2**31 - 1) | st.integers(-1, space.n)
        action = np.asarray(data.draw(st.lists(values, min_size=int(np.prod(space.shape)),
                                               max_size=int(np.prod(space.shape)))),
                            np.int32).reshape(space.shape)
    else:
        values = st.floats(width=32) | st.sampled_from([np.nan, np.inf, -np.inf, 0.5])
        action = np.asarray(data.draw(st.lists(values, min_size=space.shape[0],
                                               max_size=space.shape[0])), np.float32)
    obs, state = _first_state(env_id)
    key = jax.random.key(1)
    new_obs, _, _, _, _, info = env.step(key, state, action, params)
    for leaf in jax.tree.leaves(new_obs):
        assert not jnp.issubdtype(leaf.dtype, jnp.floating) or np.isfinite(leaf).all()
    if isinstance(obs, dict) and "action_mask" in obs:
        a = int(action)
        legal = 0 <= a < space.n and bool(obs["action_mask"][a])
        assert bool(info["illegal_action"]) == (not legal)
    elif isinstance(space, spaces.Discrete):  # Pong: any other integer stays
        if int(action) not in (0, 1, 2):
            stay = env.step(key, state, np.int32(0), params)[0]
            np.testing.assert_array_equal(new_obs, stay)
    else:
        assert bool(info["bad_action"]) == bool(np.isnan(action).any())
        assert not bool(info.get("bad_state", False))  # clamped controls keep it stable
