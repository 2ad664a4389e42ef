"""``kernel_rewrite.rewrite``: the same results without the operations XLA:CPU's kernel
emitter lacks (scatters, sorts, the threefry hash's loop), and kernels that hold them."""

import jax
import jax.extend.core as jex
import jax.numpy as jnp
import numpy as np
import pytest

from jaxenvs._src.cpu_kernels import kernel_rewrite
from jaxenvs._src.cpu_kernels.kernel import one_kernel
from tests.x64 import run_in_x64


def _primitives(closed: jex.ClosedJaxpr) -> set[str]:
    names = set()
    for eqn in closed.jaxpr.eqns:
        names.add(eqn.primitive.name)
        for sub in kernel_rewrite._sub_jaxprs(eqn):
            names |= _primitives(sub)
    return names


def _scatters(x, i, j, v):
    """Scatters of the kinds JAX makes: one point, one row, several points with a repeat, a
    column, the other combiners, out-of-bounds points (dropped, or clipped), batched ones."""
    return (x.at[i].set(v[0]), x.at[i, j].add(v[1]), x.at[jnp.stack([i, j, i])].set(v[:3, None]),
            x.at[:, j].set(-1), x.at[i, j].max(v[2]), x.at[i, j].min(v[3]),
            x.at[i, j].multiply(3), x.at[jnp.stack([i, 9])].add(3),
            x.at[i, j].set(7, mode="clip"),
            jax.vmap(lambda row, k: row.at[k].set(5))(x, (jnp.arange(5) + i) % 4),
            jnp.zeros(6, x.dtype).at[jnp.clip(jnp.arange(3) + i, -1, 7)].add(1, mode="drop"))


@pytest.mark.parametrize("i, j", [(0, 1), (4, 3), (-1, 2), (7, 2), (2, -5), (-9, 0)])
def test_scatters_become_dynamic_updates_with_the_same_results(i, j):
    x = jnp.arange(20, dtype=jnp.int32).reshape(5, 4)
    v = jnp.array([100, 200, 300, -400], jnp.int32)
    args = (x, jnp.int32(i), jnp.int32(j), v)
    closed = jax.make_jaxpr(_scatters)(*args)
    assert kernel_rewrite.needs_rewrite(closed)
    rewritten = kernel_rewrite.rewrite(closed)
    assert not any(p.startswith("scatter") for p in _primitives(rewritten))
    want = jax.jit(_scatters)(*args)
    got = jex.jaxpr_as_fun(rewritten)(*args)
    for a, b in zip(want, got):
        np.testing.assert_array_equal(a, b)


def test_sorts_become_counting_with_the_same_order_ties_included():
    rng = np.random.default_rng(0)
    for _ in range(20):
        keys = jnp.asarray(rng.integers(0, 4, (3, 9)), jnp.int32)
        flags = jnp.asarray(rng.integers(0, 2, (3, 9)), bool)
        values = jnp.asarray(rng.integers(0, 1000, (3, 9)), jnp.int32)
        for dimension in (0, 1):
            for num_keys in (1, 2):
                want = jax.lax.sort((keys, flags, values), dimension=dimension, is_stable=True,
                                    num_keys=num_keys)
                got = kernel_rewrite.sort_by_counting(keys, flags, values, dimension=dimension,
                                                      num_keys=num_keys)
                for a, b in zip(want, got):
                    np.testing.assert_array_equal(a, b)
    argsort = jax.make_jaxpr(lambda k: (jnp.argsort(k, stable=True), jnp.sort(k)))(keys[0])
    rewritten = kernel_rewrite.rewrite(argsort)
    assert "sort" in _primitives(argsort) and "sort" not in _primitives(rewritten)
    for a, b in zip(jex.jaxpr_as_fun(argsort)(keys[0]), jex.jaxpr_as_fun(rewritten)(keys[0])):
        np.testing.assert_array_equal(a, b)


def test_a_sort_by_floats_is_refused():
    closed = jax.make_jaxpr(jnp.sort)(jnp.zeros(4))
    with pytest.raises(NotImplementedError, match="float32"):
        kernel_rewrite.rewrite(closed)


def test_threefry_draws_are_made_unrolled_with_the_same_bits():
    def draws(key, n):
        key = jax.random.fold_in(key, n)
        a, b = jax.random.split(key)
        return (jax.random.key_data(a), jax.random.randint(b, (3,), 0, 100),
                jax.random.bits(key, (4,), jnp.uint32), jax.random.bernoulli(a, 0.3, (5,)))

    args = (jax.random.key(7), jnp.uint32(3))
    closed = jax.make_jaxpr(draws)(*args)
    rewritten = kernel_rewrite.rewrite(closed)
    lowered = jax.jit(jex.jaxpr_as_fun(rewritten)).lower(*args).as_text()
    assert "while" not in lowered  # JAX's threefry on a CPU is a loop; unrolled, none is left
    for a, b in zip(jax.jit(draws)(*args), jex.jaxpr_as_fun(rewritten)(*args)):
        np.testing.assert_array_equal(a, b)


def test_threefry_draws_of_64_bit_words_are_made_unrolled_with_the_same_bits():
    """With x64 (its own process: the mode is set at start-up), draws of 64-bit words and
    float64 numbers are rewritten too, with the same bits."""
    script = """if True:
        import jax, jax.numpy as jnp, numpy as np
        import jax.extend.core as jex
        from jaxenvs._src.cpu_kernels import kernel_rewrite
        def draws(key):
            a, b = jax.random.split(jax.random.fold_in(key, 3))
            return (jax.random.key_data(a), jax.random.bits(b, (4,), jnp.uint64),
                    jax.random.uniform(a, (5,), jnp.float64), jax.random.normal(b, (3,)))
        key = jax.random.key(7)
        rewritten = kernel_rewrite.rewrite(jax.make_jaxpr(draws)(key))
        assert "while" not in jax.jit(jex.jaxpr_as_fun(rewritten)).lower(key).as_text()
        want, got = jax.jit(draws)(key), jex.jaxpr_as_fun(rewritten)(key)
        assert want[1].dtype == jnp.uint64 and want[3].dtype == jnp.float64
        for a, b in zip(want, got):
            assert a.dtype == b.dtype and np.array_equal(a, b), (a, b)
        print("same")
    """
    assert run_in_x64(script) == "same"


def test_concatenations_become_updates_with_the_same_result():
    def f(a, b):
        return (jnp.concatenate([a, b, a[:1]], axis=0), jnp.concatenate([a, b * 2], axis=1),
                jnp.concatenate([a.astype(bool), b > 2], axis=1))

    args = (jnp.arange(6).reshape(2, 3), jnp.arange(6).reshape(2, 3) % 4)
    closed = jax.make_jaxpr(f)(*args)
    rewritten = kernel_rewrite.rewrite(closed)
    assert "concatenate" in _primitives(closed) and "concatenate" not in _primitives(rewritten)
    for a, b in zip(f(*args), jex.jaxpr_as_fun(rewritten)(*args)):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)


def test_the_bodies_of_control_flow_are_rewritten():
    def f(x, i):
        def body(k, x):
            return jax.lax.cond(k % 2 == 0, lambda x: x.at[(i + k) % 5].add(k),
                                lambda x: jnp.sort(x), x)
        x = jax.lax.fori_loop(0, 4, body, x)
        return jax.lax.scan(lambda c, y: (c.at[y].set(c[y] + 1), c[0]), x, jnp.arange(3))

    args = (jnp.array([4, 1, 3, 0, 2], jnp.int32), jnp.int32(2))
    closed = jax.make_jaxpr(f)(*args)
    rewritten = kernel_rewrite.rewrite(closed)
    assert not ({"sort", "scatter", "scatter-add"} & _primitives(rewritten))
    for a, b in zip(jax.tree.leaves(jax.jit(f)(*args)), jex.jaxpr_as_fun(rewritten)(*args)):
        np.testing.assert_array_equal(a, b)


def test_a_kernel_holding_scatters_sorts_and_draws_compiles_and_agrees():
    def game_step(board, i, key):
        board = board.at[i % 9].add(1).at[(i * 5) % 9].set(-1)
        order = jnp.argsort(board, stable=True)
        return board, order, jax.random.randint(jax.random.fold_in(key, i), (), 0, 9)

    key = jax.random.key(0)
    for i in range(5):
        args = (jnp.arange(9, dtype=jnp.int32) % 4, jnp.int32(i), key)
        for a, b in zip(jax.jit(one_kernel(game_step))(*args), jax.jit(game_step)(*args)):
            np.testing.assert_array_equal(a, b)
