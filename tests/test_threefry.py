"""``jaxenvs._src.cpu_kernels.threefry.UNROLLED``: the default ``threefry2x32`` stream, bit for bit."""

import jax
import jax.numpy as jnp
import numpy as np

from jaxenvs._src.cpu_kernels.threefry import fast_key, is_threefry, unrolled_on_cpu
from jaxenvs._src.keys import like
from tests.x64 import run_in_x64


def test_fast_key_gives_the_jax_stream():
    """``fast_key`` (the unrolled threefry) answers every ``jax.random`` call the game
    engines, opponents and HalfCheetah's reset make exactly as the default threefry key, for
    20,000 keys."""
    @jax.jit
    def draws(seed):
        out = []
        for key in (jax.random.key(seed), fast_key(jax.random.key(seed))):
            sub = jax.random.fold_in(key, seed % 301)
            out.append((jax.random.key_data(sub), jax.random.bernoulli(sub, 0.5),
                        jax.random.randint(sub, (), 0, 1 + seed % 20),
                        jax.random.permutation(sub, 20),
                        jax.random.key_data(jax.random.split(sub)),
                        jax.random.bits(sub, (20,), jnp.uint32),
                        jax.random.bits(sub, (20,), jnp.uint8),
                        jax.random.uniform(sub, (9,), jnp.float32, -1, 1),
                        jax.random.normal(sub, (9,), jnp.float32)))
        return out

    want, got = jax.vmap(draws)(jnp.arange(20_000, dtype=jnp.uint32))
    for a, b in zip(jax.tree.leaves(want), jax.tree.leaves(got)):
        assert np.array_equal(a, b)


def test_is_threefry_tells_the_default_key_from_others():
    assert is_threefry(jax.random.key(0))
    assert not is_threefry(fast_key(jax.random.key(0)))
    assert not is_threefry(jax.random.key(0, impl="rbg"))


def test_fast_key_gives_the_jax_stream_in_64_bits():
    """With x64 (its own process: the mode is set at start-up), 64-bit words and float64
    draws, as HalfCheetah's float64 reset makes them."""
    script = """if True:
        import jax, jax.numpy as jnp, numpy as np
        from jaxenvs._src.cpu_kernels.threefry import fast_key
        def draws(key):
            return (jax.random.bits(key, (50,), jnp.uint64),
                    jax.random.uniform(key, (50,), jnp.float64, -1, 1),
                    jax.random.normal(key, (50,), jnp.float64))
        for seed in range(20):
            want, got = draws(jax.random.key(seed)), draws(fast_key(jax.random.key(seed)))
            assert want[0].dtype == jnp.uint64 and want[1].dtype == jnp.float64
            for a, b in zip(want, got):
                assert np.array_equal(a, b), (seed, a, b)
        print("same")
    """
    assert run_in_x64(script) == "same"


def test_unrolled_on_cpu_and_like():
    """On a CPU a default threefry key becomes ``UNROLLED``'s and ``like`` turns it back;
    other keys pass unchanged; raw keys come back raw."""
    key = jax.random.key(3)
    fast = unrolled_on_cpu(key)
    assert jax.default_backend() != "cpu" or not is_threefry(fast)
    assert jax.random.key_impl(like(fast, key)) == jax.random.key_impl(key)
    assert np.array_equal(jax.random.key_data(like(fast, key)), jax.random.key_data(key))
    rbg = jax.random.key(3, impl="rbg")
    assert unrolled_on_cpu(rbg) is rbg
    raw = jax.random.PRNGKey(3)
    back = like(unrolled_on_cpu(raw), raw)
    assert back.dtype == raw.dtype and np.array_equal(back, raw)
