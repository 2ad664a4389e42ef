"""``kernel.one_kernel``: the same results as the function itself, compiled on a CPU as one
marked call that XLA keeps, and a clear error for what a kernel cannot hold."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxenvs._src import kernel as gated
from jaxenvs._src.cpu_kernels.kernel import ATTRIBUTES, one_kernel


def _damped(x, rate):
    """A loop of small elementwise steps, with functions JAX jits itself (``where``, ``clip``)."""
    def body(_, x):
        return jnp.clip(jnp.where(x > 0, x * rate, jnp.sin(x)), -2.0, 2.0) + 0.1 * x[::-1]
    return jax.lax.fori_loop(0, 20, body, x)


def _kernel_calls(compiled_text: str) -> list[str]:
    marked = f'xla_cpu_small_call="{ATTRIBUTES["xla_cpu_small_call"]}"'
    return [line for line in compiled_text.splitlines()
            if " call(" in line and marked in line and 'inlineable="false"' in line]


def test_same_results_unbatched_vmapped_and_in_a_scan():
    x = jnp.linspace(-3.0, 3.0, 24).reshape(4, 6)
    kernel = one_kernel(_damped)
    for i in range(4):
        np.testing.assert_array_equal(jax.jit(kernel)(x[i], 0.9), jax.jit(_damped)(x[i], 0.9))
    np.testing.assert_array_equal(jax.jit(jax.vmap(kernel, (0, None)))(x, 0.9),
                                  jax.jit(jax.vmap(_damped, (0, None)))(x, 0.9))

    def scanned(f):
        return jax.jit(lambda x: jax.lax.scan(lambda c, _: (f(c, 0.9), c.sum()), x, None, 5))
    np.testing.assert_array_equal(scanned(kernel)(x)[1], scanned(_damped)(x)[1])


def test_compiled_as_one_marked_call_on_a_cpu(monkeypatch):
    """XLA keeps exactly the one marked call (the functions JAX jits inside it are inlined,
    unmarked); through the gate, on another backend, nothing is marked."""
    x = jnp.linspace(-3.0, 3.0, 6)
    text = jax.jit(one_kernel(_damped)).lower(x, 0.9).compile().as_text()
    assert len(_kernel_calls(text)) == 1
    assert text.count('inlineable="false"') == 1
    monkeypatch.setattr(jax, "default_backend", lambda: "gpu")
    lowered = jax.jit(gated.one_kernel(_damped)).lower(x, 0.9).as_text()
    assert "xla_cpu_small_call" not in lowered


def test_a_batched_scatter_in_a_kernel_is_refused():
    """XLA's whole-computation emitter has no scatter: the compile fails, it does not run
    something else."""
    def scatter(x, i):
        return x.at[i].set(1.0) * 2

    with pytest.raises(jax.errors.JaxRuntimeError, match="scatter"):
        jax.jit(jax.vmap(one_kernel(scatter)))(jnp.zeros((64, 5)), jnp.arange(64) % 5)


def _step_ignoring_scale(x, scale, count):
    """A loop step that does not read ``scale``."""
    return jnp.sin(x) + 0.5 * x, count + 1


def _parameters_of_kernel(compiled_text: str) -> int:
    """The number of parameters of the one marked call's computation."""
    [call] = _kernel_calls(compiled_text)
    name = call.split("to_apply=")[1].split(",")[0]
    body = compiled_text.split(f"\n{name} (")[1].split("\n}")[0]
    return body.count(" parameter(")


def test_an_argument_the_kernel_does_not_read_is_left_out():
    """XLA's emitter aborted the process on a kernel parameter that nothing inside reads
    (``tests/test_rounds.py``'s kernel loops, whose step does not read the limit, did);
    ``one_kernel`` passes the kernel only what the function reads, with the same results."""
    kernel = one_kernel(_step_ignoring_scale)

    def loop(step):
        def run(x, scale, start):
            def body(carry):
                y, count = step(carry[0], scale, carry[1])
                return jnp.cos(y), count
            return jax.lax.while_loop(lambda c: c[1] < 7, body, (x, start))[0]
        return jax.jit(jax.vmap(run, (0, 0, None)))

    args = (jnp.linspace(-2.0, 2.0, 40).reshape(8, 5), jnp.linspace(1.0, 2.0, 8),
            jnp.int32(0))
    np.testing.assert_array_equal(loop(kernel)(*args), loop(_step_ignoring_scale)(*args))
    assert _parameters_of_kernel(loop(kernel).lower(*args).compile().as_text()) == 2
