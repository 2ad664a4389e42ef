"""The speed references of ``jaxenvs bench`` for the planar bodies: each installed engine
measures a positive speed, a missing one leaves its cells empty. No timings are asserted.

MuJoCo C runs always (CI installs mujoco); MJX and Brax only where installed
(``jaxenvs[mujoco-bench]``), and they are slow (each compiles for 20-60 s)."""

from __future__ import annotations

import pytest

from jaxenvs import bench
from jaxenvs.halfcheetah.types import HalfCheetahParams
from jaxenvs.planar_reference import speed
from jaxenvs.walker2d.types import Walker2dParams


@pytest.fixture
def rows(monkeypatch) -> dict[str, bench.Reference]:
    """The rows ``register_speed_references`` adds, by engine, in a fresh registry."""
    monkeypatch.setattr(bench, "_references", {})
    speed.register_speed_references("HalfCheetah")
    registered = bench._references["HalfCheetah"]
    assert [r.label for r in registered] == [label for _, label, _ in speed.rows("HalfCheetah")]
    assert all(r.note for r in registered)
    return {engine: row for (engine, _, _), row in zip(speed.rows("HalfCheetah"), registered)}


def test_mujoco_c_measures_a_positive_speed(rows):
    pytest.importorskip("mujoco")
    assert rows["mujoco"].fn(4, 10, HalfCheetahParams(frame_skip=2)) > 0


def test_walker2d_has_the_same_rows_on_its_own_model(monkeypatch):
    pytest.importorskip("mujoco")
    monkeypatch.setattr(bench, "_references", {})
    speed.register_speed_references("Walker2d")
    registered = bench._references["Walker2d"]
    assert "walker2d_v5.xml" in registered[0].note and "'walker2d'" in registered[2].note
    assert registered[0].fn(4, 10, Walker2dParams()) > 0


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["mjx", "brax-generalized", "brax-positional"])
def test_jax_engine_measures_a_positive_speed(rows, engine):
    pytest.importorskip(speed.ENGINES[engine][1])
    assert rows[engine].fn(4, 8, HalfCheetahParams()) > 0


@pytest.mark.slow
def test_ours_measures_a_positive_speed_with_the_same_harness():
    """``speed``'s own engine (our env under the MJX/Brax harness) is not a reference row."""
    assert "ours" not in [engine for engine, _, _ in speed.ROWS]
    record = speed.measure("ours", "HalfCheetah", 2, 4)
    assert record["sps"] > 0 and record["compile_seconds"] > 0


def test_missing_engines_and_other_models_have_no_figure(rows, monkeypatch):
    """Brax's cheetah has its own substeps, so it has no figure at another frame_skip; an
    engine whose package is missing has none at all."""
    other = HalfCheetahParams(frame_skip=3)
    assert rows["brax-generalized"].fn(4, 8, other) is None
    assert rows["brax-positional"].fn(4, 8, other) is None
    monkeypatch.setattr(speed, "available", lambda engine: False)
    for engine, row in rows.items():
        assert speed.measure(engine, "HalfCheetah", 4, 8) is None
        assert row.fn(4, 8, HalfCheetahParams()) is None
    assert "pip install jaxenvs[mujoco-bench]" in rows["mjx"].note


def test_unknown_engines_and_bodies_are_errors():
    with pytest.raises(ValueError, match="unknown engine"):
        speed.measure("bullet", "HalfCheetah", 4, 8)
    with pytest.raises(ValueError, match="unknown body"):
        speed.measure("mujoco", "Ant", 4, 8)
