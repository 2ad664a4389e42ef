"""L2 at scale for Hopper and Walker2d: one env step from 10,000 MuJoCo states
(``agreement.measure``: random, sine-gait, zero-action and trained-policy rollouts; resting,
flipped, deep-penetration and beyond-joint-limit states) against MuJoCo and gymnasium's ``-v5`` env.

Float64, against MuJoCo run to its minimiser: every bound of ``agreement.check`` (max |Δobs|
<= 1e-7, each stage, no count or termination mismatch). Float32: the median bound, and the
max bound (|Δobs| / (1 + |obs|) <= 2e-3) on every family but those in ``FLOAT32_BEYOND``,
which break it on some states, as MuJoCo's own float32 port, MJX, does on as many states of
the same families (Hopper's beyond-joint-limit states; Walker2d's contacts within rounding of
zero distance: docs/hopper-walker2d.md). Those families keep a looser bound, so that a change
is seen.
"""

import jax
import pytest

from tests.x64 import run_tests_in_x64

pytest.importorskip("mujoco")

from jaxenvs.planar_reference import agreement  # noqa: E402

STATES = 10_000
#: Float32 families whose max relative |Δobs| is beyond 2e-3, with the bound they keep.
FLOAT32_BEYOND = {"Hopper": {"joint_limit": 3.0}, "Walker2d": {"zero": 0.05, "trained": 0.01}}
x64 = jax.config.jax_enable_x64


@pytest.mark.skipif(x64, reason="float32 check: run without x64")
@pytest.mark.parametrize("env_id", list(FLOAT32_BEYOND))
def test_10000_states_float32(env_id):
    record = agreement.measure(env_id, STATES)
    summary = record["summary"]
    assert summary["all"]["dobs"]["median"] <= agreement.FLOAT32_MEDIAN_DOBS
    assert summary["all"]["terminated"]["max"] == 0
    for family, figures in summary.items():
        limit = FLOAT32_BEYOND[env_id].get(family, agreement.FLOAT32_MAX_REL_DOBS)
        if family != "all":
            assert figures["max_rel_dobs"]["max"] <= limit, (family, figures["max_rel_dobs"])


@pytest.mark.skipif(not x64, reason="float64 check: run with x64")
@pytest.mark.parametrize("env_id", list(FLOAT32_BEYOND))
def test_10000_states_float64(env_id):
    record = agreement.measure(env_id, STATES)
    assert not record["failures_converged"], record["failures_converged"]


@pytest.mark.skipif(x64, reason="runs without x64")
def test_10000_states_in_float64():
    run_tests_in_x64([f"{__file__}::test_10000_states_float64"], timeout=1800)
