"""``jaxenvs._src.cpu_kernels.lazy_vmap.custom_vmap``: unbatched calls run the function, batched ones the rule,
and the function is traced only where a call is compiled unbatched."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxenvs._src.cpu_kernels import lazy_vmap


def _counted():
    """A ``custom_vmap`` of ``(x, y) -> {"sum": x + y, "y": y}`` whose rule adds 100 (so the
    two forms can be told apart), and the lists recording each trace of the function and
    each call of the rule (its axis size and ``in_batched``)."""
    traced, ruled = [], []

    def fun(x, y):
        traced.append(jnp.shape(x))
        return {"sum": x + y, "y": y}

    def rule(axis_size, in_batched, x, y):
        ruled.append((axis_size, in_batched))
        x_batched, y_batched = in_batched
        return {"sum": x + y + 100, "y": y}, {"sum": x_batched or y_batched, "y": y_batched}

    def out_shapes(x, y):  # without tracing ``fun``
        return {"sum": jax.ShapeDtypeStruct(jnp.shape(x), x.dtype),
                "y": jax.ShapeDtypeStruct(jnp.shape(y), y.dtype)}

    return lazy_vmap.custom_vmap(fun, rule, out_shapes), traced, ruled


def test_an_unbatched_call_runs_the_function_eagerly_and_under_jit():
    call, _, ruled = _counted()
    x, y = jnp.arange(3.0), jnp.ones(3)
    for result in (call(x, y), jax.jit(call)(x, y)):
        np.testing.assert_array_equal(result["sum"], x + y)
        np.testing.assert_array_equal(result["y"], y)
    assert ruled == []


def test_a_batched_call_runs_the_rule_and_never_traces_the_function():
    call, traced, ruled = _counted()
    xs, y = jnp.arange(12.0).reshape(4, 3), jnp.ones(3)
    out = jax.jit(jax.vmap(call, in_axes=(0, None)))(xs, y)
    np.testing.assert_array_equal(out["sum"], xs + y + 100)
    np.testing.assert_array_equal(out["y"], jnp.broadcast_to(y, (4, 3)))  # unbatched result
    assert ruled == [(4, (True, False))]
    assert traced == []  # jax.custom_batching.custom_vmap traces it at every call


def test_the_batch_axis_reaches_the_rule_first_and_jitted_and_nested_calls_batch():
    call, _, ruled = _counted()
    xs = jnp.arange(12.0).reshape(3, 4)  # batch along axis 1
    out = jax.vmap(jax.jit(call), in_axes=(1, 1))(xs, xs)
    np.testing.assert_array_equal(out["sum"], (2 * xs + 100).T)
    assert ruled == [(4, (True, True))]

    def scanned(carry, x):
        return carry, call(x, x)["sum"]

    _, out = jax.lax.scan(scanned, 0, xs)
    np.testing.assert_array_equal(out, 2 * xs)  # unbatched inside the scan
    nested = jax.vmap(jax.vmap(call))(xs[None], xs[None])
    np.testing.assert_array_equal(nested["sum"], 2 * xs[None] + 100)


def test_results_that_do_not_match_out_shapes_raise():
    bad = lazy_vmap.custom_vmap(lambda x: (x, x), lambda n, b, x: (x, b),
                                lambda x: jax.eval_shape(lambda: x))
    with pytest.raises(ValueError, match="out_shapes"):
        jax.jit(bad)(jnp.ones(2))
    with pytest.raises(ValueError, match="out_shapes"):
        jax.vmap(lazy_vmap.custom_vmap(lambda x: x, lambda n, b, x: ((x, x), (b, b)),
                                       lambda x: jax.eval_shape(lambda: x)))(jnp.ones((2, 2)))


def test_an_unbatched_function_closing_over_a_tracer_raises_a_clear_error():
    @jax.jit
    def shifted(x, y):
        call = lazy_vmap.custom_vmap(lambda a: a + y, lambda n, b, a: (a + y, b[0]),
                                     lambda a: jax.typeof(a))
        return call(x)

    with pytest.raises(TypeError, match="closure over a tracer"):
        shifted(jnp.ones(2), 2.0)
