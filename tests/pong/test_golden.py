"""Pong against the recorded C runs: every golden file, both modes, bit for bit.

Also proves the checks can fail: a perturbed recording is reported at the perturbed step
and field.
"""

import dataclasses

import numpy as np
import pytest

from jaxenvs.pong.reference import (
    STATE_FIELDS, golden_files, inject_run, load_golden, replay_run)

FILES = [path.name for path in golden_files()]
OUTPUT_FIELDS = ["obs", "reward", "terminal", *(f"post_{n}" for n in STATE_FIELDS)]
CHECKS = {"inject": (inject_run, OUTPUT_FIELDS),
          "replay": (replay_run, [*OUTPUT_FIELDS, "pre_last_obs"])}
SMALL = "pong_fs8_seed0_random.npz"


def test_golden_files_cover_both_frameskips():
    assert SMALL in FILES
    assert {load_golden(name).frameskip for name in FILES} == {1, 8}


@pytest.fixture(scope="module", params=FILES)
def run(request):
    return load_golden(request.param)


@pytest.fixture(scope="module")
def small_run():
    return load_golden(SMALL)


@pytest.mark.parametrize("mode", CHECKS)
def test_golden_run_agrees_bit_for_bit(run, mode):
    check, fields = CHECKS[mode]
    result = check(run)
    assert list(result.fields) == fields
    for field in result.fields.values():
        assert field.tolerance.exact
        assert (field.name, field.steps, field.mismatches) == (field.name, run.steps, 0)
        assert field.first_divergence is None
    assert result.ok and result.steps == run.steps


def test_serves_per_step(small_run):
    reset_serve, serves = small_run.serves()
    assert reset_serve == small_run.serve_vy[0]
    served = small_run.serve_step[1:]
    np.testing.assert_array_equal(serves[served], small_run.serve_vy[1:])
    assert np.isnan(np.delete(serves, served)).all()
    bad = dataclasses.replace(small_run, serve_step=small_run.serve_step[1:])
    with pytest.raises(ValueError, match="serve_step"):
        bad.serves()


@pytest.mark.parametrize("mode", CHECKS)
def test_a_flipped_obs_bit_is_caught_at_its_step(small_run, mode):
    step = 12_345
    obs = small_run.obs.copy()
    obs.view(np.uint32)[step, 3] ^= 1  # one ulp of ball_y / 640
    result = CHECKS[mode][0](dataclasses.replace(small_run, obs=obs))
    assert not result.ok
    assert result.divergence.step == step and result.divergence.fields == ("obs",)
    assert result.fields["obs"].mismatches == 1
    assert 0 < result.fields["obs"].max_abs_deviation < 1e-6
    if mode == "replay":  # the recording's next carried observation is the flipped one
        assert result.fields["pre_last_obs"].first_divergence == step + 1


@pytest.mark.parametrize("mode", CHECKS)
def test_a_changed_action_is_caught_at_its_step(small_run, mode):
    r = small_run
    # A step where the agent's paddle stood still mid-field and nothing was scored.
    candidates = np.flatnonzero((r.action == 0) & (r.reward == 0) & (r.pre["paddle_yr"] > 100)
                                & (r.pre["paddle_yr"] < 500))
    step = int(candidates[len(candidates) // 2])
    action = r.action.copy()
    action[step] = 1  # up: the paddle ends 8 * frameskip higher than recorded
    result = CHECKS[mode][0](dataclasses.replace(r, action=action))
    assert result.divergence.step == step
    assert "post_paddle_yr" in result.divergence.fields
    np.testing.assert_array_equal(
        result.divergence.actual["post_paddle_yr"][-1] - r.post["paddle_yr"][step],
        np.float32(8 * r.frameskip))
    if mode == "inject":  # only that step's inputs changed
        assert all(f.mismatches <= 1 for f in result.fields.values())
