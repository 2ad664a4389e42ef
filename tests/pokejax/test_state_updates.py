"""``state.get``, ``state.put`` and ``state.add_at``: the engine's reads and updates of one
entry, written as dynamic slices and updates, are ``array[index]``, ``.at[index].set`` /
``.add`` for every index in range (non-negative, as the state's are), jitted, with and without a
``when``, on the state's shapes and dtypes; and ``state.draw``, a branch on the PRNG stream, is
``prng.random`` where it draws and nothing where it does not."""

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxenvs
from jaxenvs.pokejax._src import prng
from jaxenvs.pokejax._src.state import add_at, draw, get, put

SHAPES = [((2,), jnp.int32), ((2, 6), jnp.uint32), ((2, 6), jnp.bool_), ((2, 6, 4), jnp.int32)]


def _indices(shape, depth):
    return itertools.product(*[range(n) for n in shape[:depth]])


@pytest.mark.parametrize("shape,dtype", SHAPES)
def test_get_put_and_add_at_are_the_reads_and_scatters_for_indices_in_range(shape, dtype):
    rng = np.random.default_rng(0)
    array = jnp.asarray(rng.integers(0, 50, size=shape)).astype(dtype)
    for depth in range(1, len(shape) + 1):
        value = jnp.asarray(rng.integers(0, 50, size=shape[depth:])).astype(dtype)
        put_when = jax.jit(lambda a, i, v, w: put(a, i, v, w))
        put_always = jax.jit(lambda a, i, v: put(a, i, v))
        add = jax.jit(lambda a, i, v: add_at(a, i, v))
        read = jax.jit(get)
        for index in _indices(shape, depth):
            np.testing.assert_array_equal(get(array, index), array[index])
            index = tuple(jnp.int32(i) for i in index)
            np.testing.assert_array_equal(read(array, index), array[index])
            expected = array.at[index].set(value)
            np.testing.assert_array_equal(put_always(array, index, value), expected)
            np.testing.assert_array_equal(put_when(array, index, value, True), expected)
            np.testing.assert_array_equal(put_when(array, index, value, False), array)
            if dtype != jnp.bool_:
                np.testing.assert_array_equal(add(array, index, value),
                                              array.at[index].add(value))


def test_a_negative_index_is_refused():
    array = jnp.zeros((2, 6), jnp.int32)
    for update in (lambda: get(array, (0, -1)), lambda: put(array, (-1, 0), 1),
                   lambda: add_at(array, -1, 1)):
        with pytest.raises(ValueError, match="out of bounds"):
            update()


def test_get_of_both_sides_indexes_as_numpy_does():
    array = jnp.arange(12).reshape(2, 6)
    sides, slots = jnp.arange(2), jnp.asarray([4, 1])
    np.testing.assert_array_equal(get(array, (sides, slots)), array[sides, slots])


def test_put_broadcasts_a_scalar_and_casts_it():
    array = jnp.zeros((2, 6, 4), jnp.int32)
    got = put(array, (jnp.int32(1), jnp.int32(3)), True)
    np.testing.assert_array_equal(got, array.at[1, 3].set(True))
    np.testing.assert_array_equal(add_at(array, (jnp.int32(0), jnp.int32(2), jnp.int32(1)),
                                         jnp.bool_(True)), array.at[0, 2, 1].add(True))


@pytest.mark.parametrize("bounds", [(256,), (2, 4), (1, 9)])
@pytest.mark.parametrize("traced", [False, True])
def test_draw_is_the_lcg_step_when_drawn_and_nothing_otherwise(bounds, traced):
    """``draw`` (a branch on ``when``, a traced or a Python bool): drawn, the stream and the
    value are ``prng.random``'s and the call count goes up by one; not drawn, the state is
    unchanged, jitted and under ``vmap`` alike, for static and traced bounds."""
    env, params = jaxenvs.make("PokeJAX2P")
    battles = jax.vmap(lambda k: env.reset(k, params)[1].battle)(
        jax.random.split(jax.random.key(3), 8))

    def one(battle, when, *args):
        return draw(battle, when, *(args if traced else bounds))

    args = tuple(jnp.int32(b) for b in bounds) if traced else ()
    whens = jnp.arange(8) % 3 == 0
    drawn = jax.jit(jax.vmap(one, in_axes=(0, 0) + (None,) * len(args)))(battles, whens, *args)
    for i in range(8):
        battle = jax.tree.map(lambda x: x[i], battles)
        state, r = jax.tree.map(lambda x: x[i], drawn)
        alone_state, alone_r = jax.jit(one)(battle, whens[i], *args)
        forced_state, forced_r = draw(battle, True, *bounds)
        rng, expected = prng.random(battle.rng, *bounds)
        for got_state, got_r in ((state, r), (alone_state, alone_r)):
            if whens[i]:
                np.testing.assert_array_equal(got_state.rng, rng)
                assert int(got_r) == int(expected)
                assert int(got_state.rng_calls) == int(battle.rng_calls) + 1
            else:
                for a, b in zip(jax.tree.leaves(got_state), jax.tree.leaves(battle)):
                    np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(forced_state.rng, rng)
        assert int(forced_r) == int(expected)
