"""``state.put`` and ``state.add_at``: the engine's updates of one entry, written as dynamic
updates, are ``.at[index].set`` / ``.add`` for every index in range, negative ones included,
jitted, with and without a ``when``, on the state's shapes and dtypes."""

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxenvs.pokejax.state import add_at, put

SHAPES = [((2,), jnp.int32), ((2, 6), jnp.uint32), ((2, 6), jnp.bool_), ((2, 6, 4), jnp.int32)]


def _indices(shape, depth):
    return itertools.product(*[range(-n, n) for n in shape[:depth]])


@pytest.mark.parametrize("shape,dtype", SHAPES)
def test_put_and_add_at_are_the_scatters_for_indices_in_range(shape, dtype):
    rng = np.random.default_rng(0)
    array = jnp.asarray(rng.integers(0, 50, size=shape)).astype(dtype)
    for depth in range(1, len(shape) + 1):
        value = jnp.asarray(rng.integers(0, 50, size=shape[depth:])).astype(dtype)
        put_when = jax.jit(lambda a, i, v, w: put(a, i, v, w))
        put_always = jax.jit(lambda a, i, v: put(a, i, v))
        add = jax.jit(lambda a, i, v: add_at(a, i, v))
        for index in _indices(shape, depth):
            index = tuple(jnp.int32(i) for i in index)
            expected = array.at[index].set(value)
            np.testing.assert_array_equal(put_always(array, index, value), expected)
            np.testing.assert_array_equal(put_when(array, index, value, True), expected)
            np.testing.assert_array_equal(put_when(array, index, value, False), array)
            if dtype != jnp.bool_:
                np.testing.assert_array_equal(add(array, index, value),
                                              array.at[index].add(value))


def test_put_broadcasts_a_scalar_and_casts_it():
    array = jnp.zeros((2, 6, 4), jnp.int32)
    got = put(array, (jnp.int32(1), jnp.int32(3)), True)
    np.testing.assert_array_equal(got, array.at[1, 3].set(True))
    np.testing.assert_array_equal(add_at(array, (jnp.int32(0), jnp.int32(2), jnp.int32(1)),
                                         jnp.bool_(True)), array.at[0, 2, 1].add(True))
