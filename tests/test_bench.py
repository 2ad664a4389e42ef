"""The benchmark harness: a tiny run writes sane JSON and markdown results, and the random
actions it draws are legal wherever an env has an action mask."""

from __future__ import annotations

import json

import jax
import numpy as np
import pytest
from gymnax.environments import spaces

import jaxenvs
from jaxenvs import bench
from jaxenvs.cli import main


def test_bench_cli_writes_records_and_table(tmp_path, capsys):
    status = main(["bench", "Pong", "--batch-sizes", "2", "3", "--steps", "4",
                   "--repeats", "2", "--param", "frameskip=1", "--cpu-devices", "1",
                   "--out", str(tmp_path)])
    assert status == 0

    stem = bench.result_stem("Pong", {"frameskip": 1}, bench.device_tag(bench.run_context()))
    document = json.loads((tmp_path / f"{stem}.json").read_text())
    context = document["context"]
    for field in ("date_utc", "cpu_model", "cpu_cores", "memory_gib", "jax_version",
                  "jaxlib_version", "platform", "device_kind", "python_version"):
        assert context[field], field
    records = document["records"]
    assert [r["batch_size"] for r in records] == [2, 3]
    for record in records:
        assert record["env_id"] == "Pong"
        assert record["param_overrides"] == {"frameskip": 1}
        assert record["num_steps"] == 4
        assert record["devices"] == 1
        assert len(record["run_seconds"]) == 2
        assert 0 < record["sps_median"] <= record["sps_best"]
        assert record["compile_seconds"] > 0

    table = (tmp_path / f"{stem}.md").read_text()
    assert "| jaxenvs, median steps/s |" in table
    assert context["date_utc"] in table
    assert "steps/s median" in capsys.readouterr().out


def test_bench_cli_writes_outside_the_working_folder_by_default(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    (tmp_path / "clone").mkdir()
    monkeypatch.chdir(tmp_path / "clone")
    assert main(["bench", "Pong", "--batch-sizes", "2", "--steps", "2", "--repeats", "1",
                 "--cpu-devices", "1"]) == 0
    assert not any((tmp_path / "clone").iterdir())
    assert sorted(path.suffix for path in (tmp_path / "data" / "jaxenvs" / "bench").iterdir()) \
        == [".json", ".md"]


def test_result_stem_names_only_changed_params():
    assert bench.result_stem("Pong", {}, "cpu") == "pong-cpu"
    assert bench.result_stem("Pong", {"frameskip": 8}, "cpu") == "pong-cpu"
    assert bench.result_stem("Pong", {"max_score": 5, "frameskip": 1}, "gpu") == \
        "pong-frameskip1-max_score5-gpu"


def test_quoted_pong_reference_only_for_its_configuration():
    _, params = jaxenvs.make("Pong", frameskip=1)
    [reference] = bench.references_for("Pong")
    assert "quoted" in reference.label
    quoted = reference.fn
    assert quoted(1024, 10, params) == 23e6
    assert quoted(64, 10, params) is None
    assert quoted(1024, 10, params.replace(max_score=5)) is None


def test_references_select_rows_by_label():
    [quoted] = bench.references_for("Pong")
    assert bench.references_for("Pong", ["QUOTED"]) == [quoted]
    assert bench.references_for("Pong", ["no such reference"]) == []
    assert bench.references_for("Pong", []) == []


def test_bench_cli_references_option(tmp_path):
    """Pong's quoted reference has a figure at batch 1024; ``--references`` alone drops it."""
    common = ["bench", "Pong", "--batch-sizes", "1024", "--steps", "2", "--repeats", "1",
              "--param", "frameskip=1", "--cpu-devices", "1"]
    stem = bench.result_stem("Pong", {"frameskip": 1}, bench.device_tag(bench.run_context()))
    for extra, expected in (([], 1), (["--references", "quoted"], 1), (["--references"], 0)):
        assert main([*common, *extra, "--out", str(tmp_path)]) == 0
        [record] = json.loads((tmp_path / f"{stem}.json").read_text())["records"]
        assert len(record["references"]) == expected, extra


def test_paired_reference_runs_after_each_timed_run_and_ratios_pair_up(monkeypatch):
    """A paired reference's figure i is the run right after our timed run i: its ratio is the
    median of ours_i / its_i, not of the medians."""
    figures = iter([100.0, 400.0, 200.0])
    monkeypatch.setattr(bench, "_references", {"Pong": []})
    bench.register_reference("Pong", lambda *args: next(figures), label="fake one-process",
                             paired=True)
    [record] = bench.measure_sps("Pong", [2], num_steps=4, repeats=3,
                                 param_overrides={"frameskip": 1})
    [reference] = record["references"]
    assert reference["paired_sps"] == [100.0, 400.0, 200.0]
    ours = [2 * 4 / seconds for seconds in record["run_seconds"]]
    expected = [a / b for a, b in zip(ours, [100.0, 400.0, 200.0])]
    assert reference["pair_ratios"] == pytest.approx(expected)
    assert reference["ratio"] == pytest.approx(sorted(expected)[1])
    assert reference["sps"] == 200.0
    table = bench.format_table([record])
    assert f"{reference['ratio']:.2f} ({min(expected):.1f}-{max(expected):.1f})" in table
    assert "median of the pairs" in table


@pytest.mark.parametrize("env_id", ["PokeJAX", "PokeJAX2P", "TCGJax", "TCGJax2P"])
def test_one_process_references_are_paired(env_id):
    [reference] = bench.references_for(env_id)
    assert reference.paired


def test_tcg_reference_row_measures_the_env_deck_pair_and_only_seat_0():
    _, params = jaxenvs.make("TCGJax")
    [reference] = bench.references_for("TCGJax")
    assert reference.fn(1024, 10, params) > 0
    assert reference.fn(1024, 10, params.replace(agent_seat=1)) is None


def test_bench_cli_keeps_finished_batch_sizes_when_stopped(tmp_path, monkeypatch):
    time_runs = bench._time_runs

    def stop_at_batch_3(env, params, batch_size, *args, **kwargs):
        if batch_size == 3:
            raise KeyboardInterrupt
        return time_runs(env, params, batch_size, *args, **kwargs)

    monkeypatch.setattr(bench, "_time_runs", stop_at_batch_3)
    with pytest.raises(KeyboardInterrupt):
        main(["bench", "Pong", "--batch-sizes", "2", "3", "--steps", "2", "--repeats", "1",
              "--cpu-devices", "1", "--out", str(tmp_path)])
    stem = bench.result_stem("Pong", {}, bench.device_tag(bench.run_context()))
    records = json.loads((tmp_path / f"{stem}.json").read_text())["records"]
    assert [r["batch_size"] for r in records] == [2]
    assert "| batch size | 2 |" in (tmp_path / f"{stem}.md").read_text()


def test_random_actions_are_uniform_among_the_legal_ones():
    space = spaces.Discrete(5)
    mask = np.array([[False, True, False, True, True],     # one player's mask per row,
                     [True, False, False, False, False]])  # as PokeJAX2P's
    keys = jax.random.split(jax.random.key(0), 3000)
    actions = np.asarray(bench.random_actions(
        space, keys, {"action_mask": np.broadcast_to(mask, (3000, 2, 5))}))
    assert actions.shape == (3000, 2)
    counts = np.bincount(actions[:, 0], minlength=5)
    assert counts[[0, 2]].sum() == 0 and counts[[1, 3, 4]].min() > 900  # about 1000 each
    assert (actions[:, 1] == 0).all()
    # without a mask: the action space's own sample, illegal actions included
    plain = np.asarray(bench.random_actions(space, keys, np.zeros((3000, 3))))
    assert set(plain.tolist()) == set(range(5))


def test_bench_rollout_plays_only_legal_actions():
    env, params = jaxenvs.make("TCGJax2P")
    seen = []

    class Recording(type(env)):
        def step(self, key, state, action, params=None):
            out = super().step(key, state, action, params)
            jax.debug.callback(lambda a: seen.append(np.asarray(a)), out[5]["illegal_action"])
            return out

    recording = Recording()
    batch = bench.random_batch(recording, params, 4)
    jax.block_until_ready(bench.random_rollout(recording, params, 30)(*batch))
    flags = np.concatenate([np.ravel(a) for a in seen])  # per env or per batch, by backend
    assert flags.size == 30 * 4 and not flags.any()
