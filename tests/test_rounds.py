"""``rounds.while_loop``: batched in rounds on a CPU, its result is each element's own loop.

The loop under test counts Collatz steps (up to a per-element limit), an integer loop whose
trip counts differ widely between elements, so a batch runs many rounds with few elements
left in the last ones; the results must equal a plain Python loop per element exactly.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxenvs._src import gate
from jaxenvs._src import rounds as gated
from jaxenvs._src.cpu_kernels import rounds


def _going(operands, carry):
    limit, _ = operands
    n, steps = carry
    return (n != 1) & (steps < limit)


def _collatz(operands, carry):
    _, stride = operands
    n, steps = carry
    return jnp.where(n % 2 == 0, n // 2, 3 * n + stride), steps + 1


def _loop(limit, stride, start, steps0, kernel=False, module=rounds):
    return module.while_loop(_going, _collatz, (limit, stride), (start, steps0), fraction=8,
                             kernel=kernel)


def _expected(limit, stride, start, steps0):
    n, steps = int(start), int(steps0)
    while n != 1 and steps < limit:
        n, steps = (n // 2 if n % 2 == 0 else 3 * n + stride), steps + 1
    return n, steps


def _inputs(batch):
    rng = np.random.default_rng(batch)
    start = rng.integers(1, 500, batch).astype(np.int32)
    start[0] = 1  # an element that runs no iteration
    limit = rng.integers(0, 120, batch).astype(np.int32)
    return jnp.asarray(limit), jnp.asarray(start)


@pytest.mark.parametrize("batch", [1, 2, 3, 17, 300])
@pytest.mark.parametrize("backend", ["cpu", "gpu"])
@pytest.mark.parametrize("kernel", [False, True])
def test_batched_loop_gives_each_elements_own_result(batch, backend, kernel, monkeypatch):
    """Rounds (CPU, batches above one round) and the plain vmapped loop (an accelerator, or a
    batch of one round; with ``kernel``, one XLA:CPU kernel on a CPU) both give every element
    what a loop of its own gives; the stride is shared by the batch (unbatched operand) and
    the step count starts unbatched."""
    monkeypatch.setattr(jax, "default_backend", lambda: backend)
    limit, start = _inputs(batch)
    loop = lambda *args: _loop(*args, kernel=kernel)  # noqa: E731
    n, steps = jax.jit(jax.vmap(loop, (0, None, 0, None)))(limit, 1, start, jnp.int32(0))
    expected = [_expected(limit[i], 1, start[i], 0) for i in range(batch)]
    np.testing.assert_array_equal(np.asarray(n), [e[0] for e in expected])
    np.testing.assert_array_equal(np.asarray(steps), [e[1] for e in expected])
    assert int(np.max(steps)) > 3 * int(np.median(steps)) or batch < 17  # uneven trip counts


@pytest.mark.parametrize("kernel", [False, True])
def test_unbatched_call_is_one_loop(kernel):
    loop = jax.jit(lambda *args: _loop(*args, kernel=kernel))
    n, steps = loop(jnp.int32(200), 1, jnp.int32(27), jnp.int32(0))
    assert (int(n), int(steps)) == _expected(200, 1, 27, 0) == (1, 111)
    kernels = loop.lower(jnp.int32(200), 1, jnp.int32(27), jnp.int32(0)).compile().as_text()
    assert ('xla_cpu_small_call="true",inlineable="false"' in kernels
            or 'inlineable="false",xla_cpu_small_call="true"' in kernels) == kernel


def test_rounds_only_on_a_cpu_and_above_one_round(monkeypatch):
    """The batched form gathers and scatters (rounds) exactly where the module says it does:
    a CPU batch larger than one round (``round_size``: 300 // 8 = 37, at least 2); through
    the gate, only where the fast path runs."""
    def uses_rounds(batch, module=rounds):
        limit, start = _inputs(batch)
        loop = lambda *args: _loop(*args, module=module)
        jaxpr = jax.make_jaxpr(jax.vmap(loop, (0, None, 0, None)))(limit, 1, start,
                                                                   jnp.int32(0))
        return "scatter" in str(jaxpr)

    assert rounds.round_size(300, 8) == 37 and rounds.round_size(9, 8) == 2
    assert uses_rounds(300) and uses_rounds(3)
    assert not uses_rounds(2) and not uses_rounds(1)
    assert uses_rounds(300, gated) == gate.enabled()  # JAXENVS_CPU_KERNELS=0: plain loop
    monkeypatch.setattr(jax, "default_backend", lambda: "gpu")
    assert not uses_rounds(300, gated)
