"""L3: rollouts from the same state under the same actions stay close to MuJoCo C's.

Per seed, a HalfCheetah-v5 reset state and an action sequence (``horizons``) drive MuJoCo's C
library and our physics; the max |obs difference| after each env step must stay within the
issue's bounds: float32 5e-3 for the first 10 env steps of random actions; float64 1e-3 for
the first 40 env steps of random actions and for all 1000 of zero actions. MuJoCo against
itself nudged by 1e-12 leaves 1e-3 after 46-103 random-action steps, so 40 has little slack to
give. Fast tests use a few seeds; the slow ones use the 20 of the horizons report and, for
float32, a thousand (where chaos alone ends some rollouts' agreement early, MuJoCo's own too).

The float64 tests need x64 from the process start: ``test_float64.py`` runs them in a
subprocess.
"""

import jax
import pytest

pytest.importorskip("mujoco")

from jaxenvs.planar_reference import horizons  # noqa: E402

requires_x64 = pytest.mark.skipif(not jax.config.jax_enable_x64,
                                  reason="float64 check: run with JAX_ENABLE_X64=1")


@pytest.mark.skipif(jax.config.jax_enable_x64, reason="float32 check: run without x64")
def test_random_actions_float32_within_5e_3_for_10_steps():
    dev = horizons.deviations("HalfCheetah", "ours", "float32", range(5), 10, policies=("random",))["random"]
    assert dev.max() <= 5e-3, dev.max(axis=1)


@requires_x64
def test_random_actions_float64_within_1e_3_for_40_steps():
    dev = horizons.deviations("HalfCheetah", "ours", "float64", range(5), 40, policies=("random",))["random"]
    assert dev.max() <= 1e-3, dev.max(axis=1)


@requires_x64
def test_zero_actions_float64_within_1e_3_for_1000_steps():
    dev = horizons.deviations("HalfCheetah", "ours", "float64", [3], 1000, policies=("zero",))["zero"]
    assert dev.max() <= 1e-3, dev.max()


@pytest.mark.slow
@requires_x64
def test_float64_horizons_on_20_seeds():
    """Zero actions: within 1e-3 for all 1000 steps; random: for at least 40, every seed."""
    dev = horizons.deviations("HalfCheetah", "ours", "float64", range(20), 1000)
    assert dev["zero"].max() <= 1e-3, dev["zero"].max(axis=1)
    assert dev["random"][:, :40].max() <= 1e-3, dev["random"][:, :40].max(axis=1)


@pytest.mark.slow
@pytest.mark.skipif(jax.config.jax_enable_x64, reason="float32 check: run without x64")
def test_float32_random_actions_on_1000_seeds_as_often_as_mujoco_nudged():
    """Within 5e-3 for 10 random-action steps on every seed is not a property any float32
    engine has: over 1000 seeds, MuJoCo C against itself with ``qpos`` nudged by 1e-7
    (float32's resolution) leaves 5e-3 earlier on some, as MJX does (``horizons --seeds 1000
    --steps 60``). So ours may leave it early on no more seeds than MuJoCo nudged does (on
    the 20 seeds of the horizons report, on one: seed 19, at step 9, as MJX's)."""
    seeds = range(1000)
    ours = horizons.deviations("HalfCheetah", "ours", "float32", seeds, 10, policies=("random",))["random"]
    nudged = horizons.deviations("HalfCheetah", "mujoco-nudged", "float32", seeds, 10,
                                 policies=("random",))["random"]
    early_ours = [s for s in seeds if ours[s].max() > 5e-3]
    early_nudged = [s for s in seeds if nudged[s].max() > 5e-3]
    assert len(early_ours) <= len(early_nudged), (early_ours, early_nudged)
