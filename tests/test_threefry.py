"""``jaxenvs.threefry.UNROLLED``: the default ``threefry2x32`` stream, bit for bit."""

import jax
import jax.numpy as jnp
import numpy as np

from jaxenvs.threefry import fast_key, is_threefry


def test_fast_key_gives_the_jax_stream():
    """``fast_key`` (the unrolled threefry) answers every ``jax.random`` call the game
    engines and opponents make exactly as the default threefry key, for 20,000 keys."""
    @jax.jit
    def draws(seed):
        out = []
        for key in (jax.random.key(seed), fast_key(jax.random.key(seed))):
            sub = jax.random.fold_in(key, seed % 301)
            out.append((jax.random.key_data(sub), jax.random.bernoulli(sub, 0.5),
                        jax.random.randint(sub, (), 0, 1 + seed % 20),
                        jax.random.permutation(sub, 20),
                        jax.random.key_data(jax.random.split(sub)),
                        jax.random.bits(sub, (20,), jnp.uint32)))
        return out

    want, got = jax.vmap(draws)(jnp.arange(20_000, dtype=jnp.uint32))
    for a, b in zip(jax.tree.leaves(want), jax.tree.leaves(got)):
        assert np.array_equal(a, b)


def test_is_threefry_tells_the_default_key_from_others():
    assert is_threefry(jax.random.key(0))
    assert not is_threefry(fast_key(jax.random.key(0)))
    assert not is_threefry(jax.random.key(0, impl="rbg"))
