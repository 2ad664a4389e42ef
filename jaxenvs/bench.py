"""``jaxenvs bench ENV``: random-action steps per second, next to the env's reference simulator.

Method. ``batch_size`` copies of the environment run under ``vmap`` (on a CPU, an env with
``loop_on_cpu`` runs them one after another in one kernel); every step each copy
splits its own key, draws a random action (``random_actions``: uniform among the legal ones
where the observation has an ``action_mask``, as the references' random players choose, else
uniform over ``env.action_space(params)``) and calls the full gymnax ``env.step`` (auto-reset
included). The whole rollout of ``num_steps``
steps is one ``lax.scan`` inside one ``jit``, so the measurement is the compiled env and no
Python dispatch. Each step's transition (observation, reward, terminated, truncated) is
carried to the next, so XLA must compute it, as a training loop consuming it would (and as a
C env writes it into its output buffers). The parameters are closed over as constants, as in
the usual ``make_train`` pattern. The batch is split over all devices when their number
divides it, each stepping its share in its own program (``devices.per_device``;
``--cpu-devices`` splits a CPU host into several), else it runs on one; each record says
how many it used. Compilation is timed on its own; then ``repeats`` runs are timed with
``block_until_ready`` and reported as the median and best of ``batch * steps / seconds``.
Unless given, ``num_steps`` is chosen per batch size from a short calibration run so that one
timed run lasts about ``TARGET_RUN_SECONDS``.

References. ``register_reference`` adds a row for a reference implementation of an env (for
example its C original), measured in the same run right after ours at each batch size, or a
quoted figure where the reference cannot be built here (Pong's, see
``jaxenvs/pong/reference.py``). A reference registered ``paired`` (one that does not batch and
runs one process, such as Showdown in Node or the TCG reference in Python) is measured after
each of our timed runs instead, and its ratio is the median over those pairs of our run's
speed over the reference's run right after it: a machine whose speed drifts within minutes
(``benchmarks/README.md``) then moves both halves of a pair alike, where one reference figure
per run could be taken at another speed than ours. Each env registers its reference in the
``reference`` module beside it, imported on demand. The table shows ours/reference wherever
it has a number.
``--references PATTERN ...`` keeps only the rows whose label contains one of the patterns
(``--references`` alone: none), e.g. to time MJX alone on a GPU.

Output. One progress line per batch size, then a markdown table; the records and the run's
context (date, machine, jax, device) go to ``<out>/<stem>.json`` and the table to
``<out>/<stem>.md`` (``--out``: by default ``jaxenvs bench`` writes into the user's data folder,
``benchmarks/sps.py`` into ``benchmarks/results/``), where ``<stem>`` is given by
``result_stem`` (e.g. ``pong-cpu``, ``pong-frameskip1-cpu``). Both files are rewritten after
every batch size, so a long sweep that is stopped keeps the batch sizes it finished.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import math
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import jax
import jax.numpy as jnp
import jaxlib
from jax.sharding import Mesh, NamedSharding, PartitionSpec

import jaxenvs
from jaxenvs._src import legal_draw
from jaxenvs._src.keys import like, unrolled_on_cpu
from jaxenvs._src.user_dirs import data_dir
from jaxenvs.devices import add_cpu_devices_option, per_device
from jaxenvs.registry import import_reference_adapter

DEFAULT_BATCH_SIZES = (1, 64, 1024, 4096)
DEFAULT_REPEATS = 5
#: Wall time one timed run aims at when ``num_steps`` is chosen automatically: long enough to
#: hide timer and launch noise, short enough to keep a whole sweep near a minute.
TARGET_RUN_SECONDS = 1.0
#: Env steps (batch * steps) of the calibration run that sizes ``num_steps``.
CALIBRATION_ENV_STEPS = 2**17
#: Fewest scan steps of any run, so a large batch still loops enough to time the loop.
MIN_STEPS = 16

ReferenceFn = Callable[[int, int, Any], float | None]
"""``fn(batch_size, num_steps, params) -> steps per second``, or ``None`` where the reference
has no figure for that batch size or those parameters."""


@dataclasses.dataclass(frozen=True)
class Reference:
    """A reference implementation's row in an env's benchmark table."""

    label: str
    """Row label; says how the number was obtained if it was not measured in this run."""
    fn: ReferenceFn
    note: str = ""
    """Where the figures come from, printed under the table."""
    paired: bool = False
    """Measured after each of our timed runs, its ratio the median over the pairs (module
    docstring), rather than once per batch size."""


_references: dict[str, list[Reference]] = {}


def register_reference(env_id: str, fn: ReferenceFn, *, label: str, note: str = "",
                       paired: bool = False) -> None:
    """Add a reference row to ``env_id``'s benchmark; ``fn`` is called once per batch size,
    or with ``paired`` once after each of our timed runs (module docstring).

    ``fn(batch_size, num_steps, params)`` runs the reference simulator for ``num_steps`` steps
    of ``batch_size`` envs configured like ``params`` (the env's full parameters, overrides
    applied) and returns its steps per second, or ``None`` where it cannot (that cell stays
    empty). A paired ``fn`` should take a second or a few, so that each of its figures is
    from the same moment as the run of ours before it.
    """
    _references.setdefault(env_id, []).append(Reference(label, fn, note, paired))


def references_for(env_id: str, patterns: Sequence[str] | None = None) -> list[Reference]:
    """The reference rows registered for ``env_id`` (importing its reference adapter); with
    ``patterns``, only those whose label contains one of them (case-insensitive)."""
    import_reference_adapter(env_id)
    rows = _references.get(env_id, [])
    if patterns is None:
        return rows
    return [row for row in rows if any(p.lower() in row.label.lower() for p in patterns)]


def run_context() -> dict[str, Any]:
    """What the numbers depend on besides the code: date, machine, software, load.

    The machine is described by CPU model, core count and memory only (no host name).
    ``cpu_affinity`` lists the cores this process may run on (``taskset``): XLA sizes its
    CPU thread pool by it, which changes the speed a lot on small machines.
    """
    device = jax.devices()[0]
    return {
        "date_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "cpu_model": _cpu_model(),
        "cpu_cores": os.cpu_count(),
        "cpu_affinity": sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
        else None,
        "memory_gib": _memory_gib(),
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
        "os": f"{platform.system()} {platform.release()}",
        "python_version": platform.python_version(),
        "jax_version": jax.__version__,
        "jaxlib_version": jaxlib.__version__,
        "jaxenvs_version": jaxenvs.__version__,
        "platform": device.platform,
        "device_kind": device.device_kind,
        "device_count": jax.device_count(),
    }


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _memory_gib() -> float | None:
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemTotal:"):
                    return round(int(line.split()[1]) / 2**20, 1)
    except OSError:
        pass
    return None


def random_actions(space, keys: jax.Array, obs) -> jax.Array:
    """The batch's random actions, one per key (``keys`` and ``obs`` have the envs on their
    leading axis). Where ``obs`` is a dict with a boolean ``action_mask`` (one entry per action;
    ``[players, actions]`` per env for a two-player env), uniform among the legal actions: what
    the references' random players do (Showdown's random-vs-random battles, the TCG
    reference's random games), so that a step of ours and of the reference are steps of the
    same game (a uniform action over the whole space, which such an env replaces by its first
    legal one when illegal, plays another: ``benchmarks/README.md``); each mask row draws two
    random words from its env's key and picks with them in whole-batch vector operations
    (``legal_draw.uniform_legal``). Elsewhere, ``space.sample`` of each key."""
    if not (isinstance(obs, Mapping) and "action_mask" in obs):
        return jax.vmap(space.sample)(keys)
    mask = obs["action_mask"]
    rows = mask.shape[1:-1]
    words = jax.vmap(lambda key: jax.random.bits(key, rows + (2,), jnp.uint32))(keys)
    actions = legal_draw.uniform_legal(words.reshape(-1, 2), mask.reshape(-1, mask.shape[-1]))
    return actions.reshape(mask.shape[:-1])


def random_rollout(env, params, num_steps: int, sharding: NamedSharding | None = None):
    """A jitted ``(keys, states, obs) -> final carry``: ``num_steps`` random-action steps
    (``random_actions``) of the batch of envs whose per-env keys, states and observations it
    is given (``random_batch``), run by ``per_device`` over ``sharding`` if given."""
    space = env.action_space(params)

    def batch_step(keys, states, obs):
        # The harness's own draws unrolled on a CPU (the same bits, a shorter compile); the
        # keys it keeps and hands on are of the kind it was given.
        next_keys, action_keys, step_keys = jax.vmap(
            lambda key: jax.random.split(unrolled_on_cpu(key), 3), out_axes=1)(keys)
        actions = random_actions(space, action_keys, obs)
        obs, states, reward, terminated, truncated, _ = jax.vmap(
            env.step, in_axes=(0, 0, 0, None))(like(step_keys, keys), states, actions,
                                               params)
        return like(next_keys, keys), states, (obs, reward, terminated, truncated)

    def body(carry, _):
        keys, states, (obs, *_) = carry
        return batch_step(keys, states, obs), None

    def rollout(keys, states, obs):
        transition_shape = jax.eval_shape(batch_step, keys, states, obs)[2]
        transition = (obs, *(jnp.zeros(s.shape, s.dtype) for s in transition_shape[1:]))
        return jax.lax.scan(body, (keys, states, transition), None, length=num_steps)[0]

    return jax.jit(rollout if sharding is None else per_device(rollout, sharding))


def random_batch(env, params, batch_size: int):
    """``(keys, states, obs)`` of ``batch_size`` envs just reset, as ``random_rollout`` takes
    them (the same for every measurement: seed 0)."""
    reset_key, rollout_key = jax.random.split(jax.random.key(0))
    obs, states = jax.vmap(env.reset, in_axes=(0, None))(
        jax.random.split(reset_key, batch_size), params)
    return jax.random.split(rollout_key, batch_size), states, obs


def batch_sharding(batch_size: int) -> NamedSharding:
    """Where a batch of ``batch_size`` envs lives: split over all devices when their number
    divides it, else on the first device alone."""
    devices = jax.devices()
    if batch_size % len(devices):
        devices = devices[:1]
    return NamedSharding(Mesh(devices, ("batch",)), PartitionSpec("batch"))


def _time_runs(env, params, batch_size: int, num_steps: int, repeats: int,
               after_each: Callable[[], None] = lambda: None) -> tuple[float, list[float]]:
    """Compile the rollout and time it: ``(compile_seconds, [seconds per timed run])``,
    calling ``after_each`` (untimed) after each timed run.

    One untimed run precedes the timed ones, so first-execution costs (allocation, thread
    start-up) are not counted.
    """
    sharding = batch_sharding(batch_size)
    batch = jax.device_put(random_batch(env, params, batch_size), sharding)
    start = time.perf_counter()
    compiled = random_rollout(env, params, num_steps, sharding).lower(*batch).compile()
    compile_seconds = time.perf_counter() - start
    jax.block_until_ready(compiled(*batch))
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        jax.block_until_ready(compiled(*batch))
        seconds.append(time.perf_counter() - start)
        after_each()
    return compile_seconds, seconds


def _calibrated_num_steps(env, params, batch_size: int) -> int:
    """Steps for one run of ``batch_size`` envs to last about ``TARGET_RUN_SECONDS``.

    Rounded to two significant digits, so the tables show plain numbers.
    """
    probe_steps = max(MIN_STEPS, CALIBRATION_ENV_STEPS // batch_size)
    _, seconds = _time_runs(env, params, batch_size, probe_steps, repeats=2)
    steps = max(MIN_STEPS, round(probe_steps * TARGET_RUN_SECONDS / min(seconds)))
    scale = 10 ** max(0, int(math.log10(steps)) - 1)
    return round(steps / scale) * scale


def measure_sps(
    env_id: str,
    batch_sizes: Sequence[int] = DEFAULT_BATCH_SIZES,
    num_steps: int | None = None,
    repeats: int = DEFAULT_REPEATS,
    param_overrides: Mapping[str, Any] | None = None,
    progress: Callable[[dict[str, Any]], None] | None = None,
    reference_patterns: Sequence[str] | None = None,
) -> list[dict[str, Any]]:
    """Measure ``env_id``'s random-action steps per second at each batch size.

    ``num_steps`` is the scan length of every run (``None``: calibrated per batch size to
    last about ``TARGET_RUN_SECONDS``); ``param_overrides`` go to ``jaxenvs.make``. Returns
    one record per batch size, in order, each also passed to ``progress`` when it is done:
    ``env_id``, ``param_overrides``, ``batch_size``, ``devices`` (how many the batch was
    split over), ``num_steps``, ``repeats``, ``sps_median``,
    ``sps_best``, ``compile_seconds``, ``run_seconds`` (each timed run), ``load_average``
    (1, 5 and 15 min, just before the measurement), ``references`` (``label``, ``note``,
    ``sps`` and ``ratio`` = our median / ``sps``, for each registered reference with a figure
    here; for a paired one, ``sps`` is the median of its runs, ``ratio`` the median of the
    pairs' ratios, and ``paired_sps`` and ``pair_ratios`` hold each) and ``context``
    (``run_context()``, the same for every record).
    ``reference_patterns`` selects the reference rows (``references_for``; ``None``: all).

    Raises ``ValueError`` for an unknown env id or invalid parameters, and for batch sizes,
    steps or repeats below 1.
    """
    overrides = dict(param_overrides or {})
    env, params = jaxenvs.make(env_id, **overrides)
    if (min(batch_sizes, default=0) < 1 or repeats < 1
            or (num_steps is not None and num_steps < 1)):
        raise ValueError("batch sizes, steps and repeats must be >= 1 "
                         f"(got {list(batch_sizes)}, {num_steps}, {repeats})")
    context = run_context()
    records = []
    for batch_size in batch_sizes:
        load_average = [round(x, 2) for x in os.getloadavg()]
        steps = num_steps if num_steps is not None else _calibrated_num_steps(
            env, params, batch_size)
        rows = references_for(env_id, reference_patterns)
        paired_runs: dict[str, list[float | None]] = {row.label: [] for row in rows
                                                       if row.paired}

        def measure_paired_references() -> None:
            for row in rows:
                if row.paired:
                    paired_runs[row.label].append(row.fn(batch_size, steps, params))

        compile_seconds, seconds = _time_runs(env, params, batch_size, steps, repeats,
                                              measure_paired_references)
        sps_median = batch_size * steps / statistics.median(seconds)
        references = []
        for row in rows:
            if row.paired:
                figures = _paired_figures([batch_size * steps / s for s in seconds],
                                          paired_runs[row.label])
            else:
                sps = row.fn(batch_size, steps, params)
                figures = None if sps is None else {"sps": sps, "ratio": sps_median / sps}
            if figures is not None:
                references.append({"label": row.label, "note": row.note, **figures})
        record = {
            "env_id": env_id,
            "param_overrides": overrides,
            "batch_size": batch_size,
            "devices": batch_sharding(batch_size).num_devices,
            "num_steps": steps,
            "repeats": repeats,
            "sps_median": sps_median,
            "sps_best": batch_size * steps / min(seconds),
            "compile_seconds": compile_seconds,
            "run_seconds": seconds,
            "load_average": load_average,
            "references": references,
            "context": context,
        }
        records.append(record)
        if progress is not None:
            progress(record)
    return records


def _paired_figures(ours: Sequence[float], theirs: Sequence[float | None],
                    ) -> dict[str, Any] | None:
    """A paired reference's figures from our timed runs' steps per second and its runs' right
    after each (``None`` if it has none): its median, the median of the pairs' ratios, and
    each run and ratio."""
    if not theirs or any(sps is None for sps in theirs):
        return None
    ratios = [a / b for a, b in zip(ours, theirs)]
    return {"sps": statistics.median(theirs), "ratio": statistics.median(ratios),
            "paired_sps": list(theirs), "pair_ratios": ratios}


def device_tag(context: Mapping[str, Any]) -> str:
    """The device part of a result's name: the platform (``cpu``, ``gpu``, ``tpu``), and for
    a CPU run restricted to fewer cores than the machine has, ``-<n>core`` (``cpu-1core``)."""
    affinity = context["cpu_affinity"]
    if context["platform"] == "cpu" and affinity and len(affinity) < context["cpu_cores"]:
        return f"cpu-{len(affinity)}core"
    return context["platform"]


def result_stem(env_id: str, param_overrides: Mapping[str, Any], device: str) -> str:
    """The results' file name without suffix: ``<env>[-<name><value>...]-<device>``.

    Lower case; the overrides that change a default appear sorted by name, and ``device`` is
    ``device_tag(context)``, so each configuration has exactly one file and runs of
    different configurations never overwrite each other: ``pong-cpu``,
    ``pong-frameskip1-cpu``, ``pong-frameskip1-cpu-1core``, ``pong-max_score5-gpu``.
    """
    _, defaults = jaxenvs.make(env_id)
    parts = [env_id.lower()]
    for name in sorted(param_overrides):
        value = param_overrides[name]
        if value != getattr(defaults, name):
            text = str(value).lower()
            parts.append(name.lower() + "".join(c if c.isalnum() or c in "._" else "_"
                                                for c in text))
    parts.append(device.lower())
    return "-".join(parts)


def format_sps(sps: float) -> str:
    for scale, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if sps >= scale:
            return f"{sps / scale:.3g}{suffix}"
    return f"{sps:.3g}"


def format_table(records: Sequence[dict[str, Any]]) -> str:
    """The markdown report of one ``measure_sps`` run: title, table, reference notes, context.

    Columns are batch sizes; rows are our median and best steps per second, steps per timed
    run, compile time, then each reference's figure and our ratio to it.
    """
    first = records[0]
    context = first["context"]
    overrides = ", ".join(f"{k}={v}" for k, v in sorted(first["param_overrides"].items()))
    title = f"# {first['env_id']}{f' ({overrides})' if overrides else ''}: steps per second"

    def row(label: str, cells: Sequence[str]) -> str:
        return f"| {label} | " + " | ".join(cells) + " |"

    lines = [
        title, "",
        f"Random actions (uniform among the legal ones where the observation has an "
        f"`action_mask`, else over the action space), full `env.step` with auto-reset, "
        f"`vmap` over the batch (which an env with `loop_on_cpu` runs on a CPU as a loop "
        f"over the batch in one kernel, `jaxenvs._src.loop_vmap`), one `lax.scan` under `jit`; "
        f"median and best of {first['repeats']} timed runs.", "",
        row("batch size", [str(r["batch_size"]) for r in records]),
        row("---", ["--:"] * len(records)),
        row("jaxenvs, median steps/s", [format_sps(r["sps_median"]) for r in records]),
        row("jaxenvs, best steps/s", [format_sps(r["sps_best"]) for r in records]),
        row("devices the batch is split over", [str(r.get("devices", 1)) for r in records]),
        row("steps per timed run", [f"{r['num_steps']:,}" for r in records]),
        row("compile time (s)", [f"{r['compile_seconds']:.2f}" for r in records]),
    ]
    notes = {x["label"]: x["note"] for r in records for x in r["references"]}
    for label in notes:
        found = [next((x for x in r["references"] if x["label"] == label), None)
                 for r in records]
        paired = any(x and "pair_ratios" in x for x in found)
        lines.append(row(label + (", median of its runs" if paired else ""),
                         [format_sps(x["sps"]) if x else "" for x in found]))
        lines.append(row(f"jaxenvs / {label}, median of the pairs (range)" if paired
                         else f"jaxenvs median / {label}",
                         [_ratio_cell(x) if x else "" for x in found]))
    lines.append("")
    lines += [f"- {label}: {note}" for label, note in notes.items() if note]
    if any("pair_ratios" in x for r in records for x in r["references"]):
        lines.append("- A reference measured in pairs ran after each of our timed runs; the "
                     "ratio is the median over the pairs of our run's steps/s over the "
                     "reference run's after it, so the machine's drift moves both alike "
                     "(`jaxenvs.bench`).")
    load = [r["load_average"][0] for r in records]
    lines += [
        *context_lines(context),
        "- Load average (1 min) before each batch size (from the second on it includes "
        "this run's own process, about 1): "
        + ", ".join(f"{x:.2f}" for x in load),
    ]
    return "\n".join(lines) + "\n"


def fresh_process_notes(command: str, context: Mapping[str, Any]) -> list[str]:
    """The notes of a table measured in fresh processes (``benchmarks/compile_time.py``,
    ``first_step.py``): the command, ``context_lines`` and the load when it started."""
    return [f"- Produced by `{command}`; each process's figures are in the .json beside this "
            "file.",
            *context_lines(context),
            f"- Load average (1 min) at the start: {context['load_average_at_start'][0]}"]


def context_lines(context: Mapping[str, Any]) -> list[str]:
    """A results table's notes on when, where and with what it was measured
    (``run_context``): date, machine, device and software, as Markdown list items."""
    return [
        f"- Date (UTC): {context['date_utc']}",
        f"- Machine: {context['cpu_model']}, {context['cpu_cores']} cores, "
        f"{context['memory_gib']} GiB memory; {context['os']}; cores this process may "
        f"use (affinity): {context['cpu_affinity']}",
        f"- Device: {context['platform']} ({context['device_kind']}) x "
        f"{context['device_count']}",
        f"- Software: jax {context['jax_version']}, jaxlib {context['jaxlib_version']}, "
        f"Python {context['python_version']}, jaxenvs {context['jaxenvs_version']}",
    ]


def _ratio_cell(reference: Mapping[str, Any]) -> str:
    """``ratio``, and for a paired reference the range of its pairs' ratios."""
    if "pair_ratios" not in reference:
        return f"{reference['ratio']:.2f}"
    ratios = reference["pair_ratios"]
    return f"{reference['ratio']:.2f} ({min(ratios):.1f}-{max(ratios):.1f})"


def write_results(records: Sequence[dict[str, Any]], out_dir: Path) -> tuple[Path, Path]:
    """Write ``<stem>.json`` (context + records) and ``<stem>.md`` (``format_table``).

    Returns the two paths. The JSON holds the context once, beside records without it.
    """
    first = records[0]
    context = first["context"]
    stem = result_stem(first["env_id"], first["param_overrides"], device_tag(context))
    out_dir.mkdir(parents=True, exist_ok=True)
    json_path, md_path = out_dir / f"{stem}.json", out_dir / f"{stem}.md"
    document = {"context": context,
                "records": [{k: v for k, v in r.items() if k != "context"} for r in records]}
    json_path.write_text(json.dumps(document, indent=2) + "\n")
    md_path.write_text(format_table(records))
    return json_path, md_path


def parse_param(text: str) -> tuple[str, Any]:
    """``NAME=VALUE`` -> ``(NAME, value)``, the value a bool (true/false), int, float or str."""
    name, sep, raw = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    if raw.lower() in ("true", "false"):
        return name, raw.lower() == "true"
    for convert in (int, float):
        try:
            return name, convert(raw)
        except ValueError:
            pass
    return name, raw


def add_measurement_options(parser: argparse.ArgumentParser) -> None:
    """Every option except the env selector (``jaxenvs bench`` and ``benchmarks/sps.py``)."""
    parser.add_argument("--batch-sizes", metavar="N", type=int, nargs="+",
                        default=list(DEFAULT_BATCH_SIZES),
                        help="numbers of vmapped envs (default: %(default)s)")
    parser.add_argument("--steps", metavar="N", type=int, default=None,
                        help="scan steps per run (default: sized so a run lasts about "
                             f"{TARGET_RUN_SECONDS:g} s)")
    parser.add_argument("--repeats", metavar="R", type=int, default=DEFAULT_REPEATS,
                        help="timed runs per batch size (default: %(default)s)")
    parser.add_argument("--param", metavar="NAME=VALUE", type=parse_param, action="append",
                        default=[], help="override an env parameter, e.g. frameskip=1 "
                                         "(repeatable)")
    parser.add_argument("--references", metavar="PATTERN", nargs="*", default=None,
                        help="measure only the reference rows whose label contains one of "
                             "these (case-insensitive), e.g. MJX; given alone: none "
                             "(default: all)")
    parser.add_argument("--out", metavar="DIR", type=Path, default=data_dir() / "bench",
                        help="directory for the .json and .md results (default: %(default)s, "
                             "outside any checkout, so the committed tables stay as they are)")
    add_cpu_devices_option(parser, default="auto")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("env", metavar="ENV", help="environment id, e.g. Pong")
    add_measurement_options(parser)


def run(args: argparse.Namespace) -> int:
    """Measure, print progress and the table, write the results (after every batch size).
    Exit status 2 on bad input."""
    done: list[dict[str, Any]] = []
    paths: tuple[Path, Path] | None = None

    def progress(record: dict[str, Any]) -> None:
        nonlocal paths
        references = "".join(f"; {x['label']}: {format_sps(x['sps'])} (ours/ref "
                             f"{_ratio_cell(x)})" for x in record["references"])
        print(f"{record['env_id']} batch {record['batch_size']:>6}: "
              f"{format_sps(record['sps_median'])} steps/s median, "
              f"{format_sps(record['sps_best'])} best ({record['repeats']} x "
              f"{record['num_steps']:,} steps; compile {record['compile_seconds']:.2f} s; "
              f"load {record['load_average'][0]:.2f}; {record['devices']} device(s))"
              f"{references}", flush=True)
        done.append(record)
        paths = write_results(done, args.out)

    try:
        records = measure_sps(args.env, args.batch_sizes, args.steps, args.repeats,
                              dict(args.param), progress, args.references)
    except ValueError as error:
        print(f"jaxenvs bench: {error}", file=sys.stderr)
        return 2
    json_path, md_path = paths
    print()
    print(format_table(records))
    print(f"wrote {json_path} and {md_path}")
    return 0
