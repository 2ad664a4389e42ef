"""The profiler behind the README's speed notes: its cost analysis and its profile of a tiny
Pong rollout add up and point at Pong's own source."""

from __future__ import annotations

import jax
import pytest

import jaxenvs
from jaxenvs import profiling


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
