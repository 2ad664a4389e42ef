"""Where a compiled random-action rollout spends its time on XLA:CPU: the measurements behind
the speed notes in the README (``benchmarks/profile.py`` runs them).

Two views of the same compiled program (``bench.random_rollout``, the one ``jaxenvs bench``
times):

* **XLA's cost analysis** of one env step, per env: the elementwise operations XLA counts as
  flops and the bytes its operations read and write. Loop bodies count once, whatever their
  trip count, so for an env whose step holds loops these are lower bounds.
* **A profile** (``jax.profiler``) of timed steps: the time of each XLA operation on the
  threads that run them, exclusive of the operations nested in it, summed by kind (the
  fusion's name without its number: ``select_select_fusion``, ``copy``, ``wrapped_scatter``,
  ...) and by the line of the env's source each operation came from (an operation's time
  split evenly over the source lines of the instructions fused into it).

The profile is an ``XSpace`` protocol buffer; this module reads the few fields it needs with
a message layout declared here (the field numbers of XLA's ``xplane.proto``), so no
TensorFlow or TensorBoard is needed, only ``protobuf`` (which flax's checkpointing already
installs).
"""

from __future__ import annotations

import collections
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import jax

from jaxenvs import bench

#: The runtime's own event around the operations it dispatches: its exclusive time is the
#: dispatching (XLA:CPU runs a program as a graph of thunks, see ``jaxenvs.kernel``).
DISPATCH = "ThunkExecutor::Execute"


@dataclass(frozen=True)
class StepCost:
    """XLA's cost analysis of one env step, per env."""

    flops: float
    bytes_accessed: float
    state_bytes: float


@dataclass(frozen=True)
class Profile:
    """Exclusive op time (seconds) over the profiled steps, by op kind and by source line."""

    env_steps: int
    total: float
    by_kind: Mapping[str, float]
    by_source: Mapping[str, float]


def _xspace_class() -> Any:
    """The ``XSpace`` message class, declared with only the fields read here."""
    try:
        from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
    except ImportError as error:  # pragma: no cover - protobuf comes with flax
        raise ImportError("reading a profile needs protobuf: pip install protobuf") from error
    field = descriptor_pb2.FieldDescriptorProto
    file = descriptor_pb2.FileDescriptorProto(name="jaxenvs_xplane.proto", package="jaxenvs")

    def message(container, name, fields):
        """A message type of ``fields``: {number: (name, type, message type or None, repeated)}."""
        msg = container.add(name=name)
        for number, (fname, kind, type_name, repeated) in fields.items():
            f = msg.field.add(name=fname, number=number, type=kind,
                              label=field.LABEL_REPEATED if repeated else field.LABEL_OPTIONAL)
            if type_name:
                f.type_name = type_name
        return msg

    i64, string, nested = field.TYPE_INT64, field.TYPE_STRING, field.TYPE_MESSAGE
    message(file.message_type, "XEvent", {1: ("metadata_id", i64, None, False),
                                          2: ("offset_ps", i64, None, False),
                                          3: ("duration_ps", i64, None, False)})
    message(file.message_type, "XLine", {2: ("name", string, None, False),
                                         4: ("events", nested, ".jaxenvs.XEvent", True)})
    message(file.message_type, "XEventMetadata", {1: ("id", i64, None, False),
                                                  2: ("name", string, None, False)})
    plane = message(file.message_type, "XPlane", {
        2: ("name", string, None, False), 3: ("lines", nested, ".jaxenvs.XLine", True),
        4: ("event_metadata", nested, ".jaxenvs.XPlane.MetadataEntry", True)})
    entry = message(plane.nested_type, "MetadataEntry", {
        1: ("key", i64, None, False), 2: ("value", nested, ".jaxenvs.XEventMetadata", False)})
    entry.options.map_entry = True
    message(file.message_type, "XSpace", {1: ("planes", nested, ".jaxenvs.XPlane", True)})
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("jaxenvs.XSpace"))


def op_times(trace_dir: Path, ops: set[str]) -> dict[str, float]:
    """Exclusive seconds of each of the ``ops`` (the program's instruction names, and
    ``DISPATCH``) in the profile in ``trace_dir``, on whichever thread ran it (small programs
    run on the caller's): an event's time minus that of the events nested in it on its line."""
    space = _xspace_class()()
    space.ParseFromString(next(Path(trace_dir).rglob("*.xplane.pb")).read_bytes())
    times: collections.Counter = collections.Counter()
    for plane in space.planes:
        names = {k: v.name for k, v in plane.event_metadata.items()}
        for line in plane.lines:
            open_events: list[tuple[int, str]] = []  # (end, name), outermost first
            for start, duration, name in sorted(
                    (e.offset_ps, e.duration_ps, names.get(e.metadata_id, "?"))
                    for e in line.events):
                while open_events and open_events[-1][0] <= start:
                    open_events.pop()
                if open_events:
                    times[open_events[-1][1]] -= duration
                times[name] += duration
                open_events.append((start + duration, name))
    return {name: ps * 1e-12 for name, ps in times.items() if name in ops}


#: Frames that name no env's source: the bench's rollout, and ``lazy_vmap``'s call, inside
#: which (``branches``, ``rounds``) the trace of the batched form keeps no frames of its
#: own, so its operations are attributed to the line that called the branch or loop.
_NOT_ENV_SOURCE = ("jaxenvs/bench.py", "jaxenvs/lazy_vmap.py")


class _SourceMap:
    """The env source line of each instruction of a compiled program's HLO text (its
    innermost frame in ``jaxenvs`` outside ``_NOT_ENV_SOURCE``), and the instructions fused
    into each fusion."""

    def __init__(self, hlo: str):
        tables: dict[str, dict[int, str]] = collections.defaultdict(dict)
        section = None
        self.frame_of: dict[str, int] = {}
        self.calls: dict[str, str] = {}
        self.frames_in: dict[str, list[int]] = collections.defaultdict(list)
        computation = None
        for text in hlo.split("\n"):
            if text in ("FileNames", "FunctionNames", "FileLocations", "StackFrames"):
                section = text
                continue
            if section:
                if not text.strip():
                    section = None
                else:
                    number, rest = text.split(" ", 1)
                    tables[section][int(number)] = rest
                continue
            header = re.match(r"^(?:ENTRY )?%(\S+) .*\{$", text)
            if header:
                computation = header[1]
                continue
            inst = re.match(r"\s+(?:ROOT )?%(\S+) = ", text)
            if inst:
                frame = re.search(r"stack_frame_id=(\d+)", text)
                frame_id = int(frame[1]) if frame else 0
                self.frame_of[inst[1]] = frame_id
                called = re.search(r"calls=%([\w.\-]+)", text)
                if called:
                    self.calls[inst[1]] = called[1]
                if computation:
                    self.frames_in[computation].append(frame_id)
        files = {k: v.strip('"') for k, v in tables["FileNames"].items()}
        functions = {k: v.strip('"') for k, v in tables["FunctionNames"].items()}
        self.locations = {}
        for k, v in tables["FileLocations"].items():
            loc = re.match(r"\{file_name_id=(\d+) function_name_id=(\d+) line=(\d+)", v)
            self.locations[k] = (files[int(loc[1])], functions[int(loc[2])], int(loc[3]))
        self.parents = {}
        for k, v in tables["StackFrames"].items():
            frame = re.match(r"\{file_location_id=(\d+)(?: parent_frame_id=(\d+))?", v)
            self.parents[k] = (int(frame[1]), int(frame[2] or 0))

    def source(self, frame_id: int) -> str:
        seen = set()
        while frame_id in self.parents and frame_id not in seen:
            seen.add(frame_id)
            location, frame_id = self.parents[frame_id]
            file, function, line = self.locations[location]
            if "jaxenvs/" in file and not file.endswith(_NOT_ENV_SOURCE):
                return f"{file.rsplit('jaxenvs/', 1)[1]}:{line} ({function})"
        return "(no env source line)"

    def sources_of(self, op: str) -> collections.Counter:
        """The source lines of ``op``'s instructions (a fusion's: those inside it that have
        a stack frame; parameters and constants have none), with their counts."""
        frames = self.frames_in.get(self.calls[op], []) if op in self.calls else [
            self.frame_of.get(op, 0)]
        framed = [f for f in frames if f] or [0]
        return collections.Counter(self.source(f) for f in framed)


def step_cost(env, params, batch_size: int) -> StepCost:
    """XLA's cost analysis of one random-action step of ``batch_size`` envs, per env."""
    keys, states, obs = bench.random_batch(env, params, batch_size)
    compiled = bench.random_rollout(env, params, 1).lower(keys, states, obs).compile()
    cost = compiled.cost_analysis()
    cost = cost[0] if isinstance(cost, list) else cost
    state_bytes = sum(x.size * x.dtype.itemsize for x in jax.tree.leaves(states))
    return StepCost(cost.get("flops", 0.0) / batch_size,
                    cost.get("bytes accessed", 0.0) / batch_size, state_bytes / batch_size)


def profile(env, params, batch_size: int, num_steps: int) -> Profile:
    """Profile one run of ``num_steps`` random-action steps of ``batch_size`` envs (after an
    untimed run): exclusive op time by kind and by env source line."""
    batch = bench.random_batch(env, params, batch_size)
    compiled = bench.random_rollout(env, params, num_steps).lower(*batch).compile()
    jax.block_until_ready(compiled(*batch))
    with tempfile.TemporaryDirectory() as trace_dir:
        jax.profiler.start_trace(trace_dir)
        try:
            jax.block_until_ready(compiled(*batch))
        finally:
            jax.profiler.stop_trace()
        sources = _SourceMap(compiled.as_text())
        times = op_times(Path(trace_dir), set(sources.frame_of) | {DISPATCH})
    by_kind: collections.Counter = collections.Counter()
    by_source: collections.Counter = collections.Counter()
    for op, seconds in times.items():
        by_kind[re.sub(r"\.\d+$", "", op)] += seconds
        lines = sources.sources_of(op)
        for line, count in lines.items():
            by_source[line] += seconds * count / sum(lines.values())
    return Profile(batch_size * num_steps, sum(times.values()), dict(by_kind), dict(by_source))

