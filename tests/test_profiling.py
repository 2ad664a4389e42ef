"""The profiler behind the README's speed notes: its cost analysis and its profile of a tiny
Pong rollout add up and point at Pong's own source; a function computed twice changes nothing
but the time."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

import jaxenvs
from tests.benchmark_scripts import load_benchmark_script

profiling = load_benchmark_script("profiling")


@pytest.fixture(scope="module")
def pong():
    return jaxenvs.make("Pong", frameskip=1)


def test_step_cost_is_per_env(pong):
    env, params = pong
    cost = profiling.step_cost(env, params, 4)
    state = env.reset(jax.random.key(0), params)[1]
    assert cost.state_bytes == sum(x.size * x.dtype.itemsize
                                   for x in jax.tree.leaves(state))
    assert cost.flops > 0 and cost.bytes_accessed > cost.state_bytes


def test_profile_attributes_op_time_to_kinds_and_env_source(pong):
    env, params = pong
    result = profiling.profile(env, params, 4, 8)
    assert result.env_steps == 32
    assert result.total > 0
    assert sum(result.by_kind.values()) == pytest.approx(result.total)
    assert sum(result.by_source.values()) == pytest.approx(result.total)
    assert any(line.startswith("pong/") for line in result.by_source), result.by_source
    assert any(kind.endswith("fusion") for kind in result.by_kind), result.by_kind


def test_computed_twice_returns_the_first_result_and_computes_both():
    calls = []

    def fn(x, flags):
        calls.append(1)
        return {"sum": x + 1, "flags": ~flags}

    x, flags = jnp.arange(3, dtype=jnp.int32), jnp.array([True, False])
    out = jax.jit(profiling.computed_twice(fn))(x, flags)
    assert len(calls) == 2
    assert out["sum"].tolist() == [1, 2, 3] and out["flags"].tolist() == [False, True]
    hlo = jax.jit(profiling.computed_twice(fn)).lower(x, flags).compile().as_text()
    assert hlo.count("select") >= 2  # both results are live: XLA cannot fold the flag


def test_marginal_cost_of_a_step_function(pong):
    env, params = pong
    lines = []
    [cost] = profiling.marginal_costs(env, params, ["jaxenvs.pong._src.rules.play"], 4, 4, rounds=2,
                                      progress=lines.append)
    assert cost.function == "jaxenvs.pong._src.rules.play" and len(cost.ratios) == 2
    assert all(r > 0 for r in cost.ratios) and cost.base_ns_per_env_step > 0
    assert len(lines) == 1


def test_marginal_cost_rejects_a_function_the_step_never_calls(pong):
    env, params = pong
    with pytest.raises(ValueError, match="never called"):
        profiling.marginal_costs(env, params, ["jaxenvs._src.barrier.materialize"], 4, 2, rounds=1)
    with pytest.raises(ValueError, match="no function"):
        profiling.marginal_costs(env, params, ["jaxenvs.pong._src.rules.nope"], 4, 2, rounds=1)
