"""Where a compiled random-action rollout spends its time on XLA:CPU: the measurements behind
the speed notes in the README (``benchmarks/profile.py`` runs them).

Three views of the same compiled program (``bench.random_rollout``, the one ``jaxenvs bench``
times):

* **XLA's cost analysis** of one env step, per env: the elementwise operations XLA counts as
  flops and the bytes its operations read and write. Loop bodies count once, whatever their
  trip count, so for an env whose step holds loops these are lower bounds.
* **A profile** (``jax.profiler``) of timed steps: the time of each XLA operation on the
  threads that run them, exclusive of the operations nested in it, summed by kind (the
  fusion's name without its number: ``select_select_fusion``, ``copy``, ``wrapped_scatter``,
  ...) and by the line of the env's source each operation came from (an operation's time
  split evenly over the source lines of the instructions fused into it).
* **The marginal cost of a function** of the step, for what those two cannot see into: an
  env that steps env by env on a CPU (``Environment.loop_on_cpu``) runs its whole step as one
  XLA:CPU kernel, one op to the profile and one symbol to ``perf``. The rollout is compiled
  again with the function computed twice, the second time on arguments that XLA cannot
  prove equal to the first's (``computed_twice``), and the time that adds, timed in
  alternation with the unchanged rollout, is the function's cost.

The profile is an ``XSpace`` protocol buffer; this module reads the few fields it needs with
a message layout declared here (the field numbers of XLA's ``xplane.proto``), so no
TensorFlow or TensorBoard is needed, only ``protobuf`` (which flax's checkpointing already
installs).
"""

from __future__ import annotations

import collections
import importlib
import re
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from jaxenvs import bench
from jaxenvs._src.cpu_kernels import kernel, kernel_rewrite

#: The runtime's own event around the operations it dispatches: its exclusive time is the
#: dispatching (XLA:CPU runs a program as a graph of thunks, see ``jaxenvs._src.cpu_kernels.kernel``).
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


@dataclass(frozen=True)
class MarginalCost:
    """What computing ``function`` a second time adds to a rollout (``marginal_costs``)."""

    function: str
    ratios: tuple[float, ...]
    """Each round's rollout time with the function twice over the unchanged rollout's."""
    ns_per_env_step: float
    """The median added time per env step, in nanoseconds of the one device's time."""
    base_ns_per_env_step: float
    """The unchanged rollout's median time per env step, likewise."""


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
_NOT_ENV_SOURCE = ("jaxenvs/bench.py", "jaxenvs/_src/cpu_kernels/lazy_vmap.py")


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


def computed_twice(fn: Callable) -> Callable:
    """``fn`` computed twice, its first result returned: the second call's array arguments
    are replaced where a flag holds (integers plus one, floats plus one, booleans negated)
    and its result is selected where that flag holds, so XLA must compute both calls. The
    flag is a test of the first argument leaf's first element that is false for any value a
    game state holds (an integer equal to its type's minimum, a float that is NaN) and that
    XLA cannot decide at compile time. Key arrays pass unchanged."""
    def flag_of(leaves):
        for x in leaves:
            if isinstance(x, jax.Array) and x.size and not jnp.issubdtype(
                    x.dtype, jax.dtypes.prng_key) and x.dtype != jnp.bool_:
                first = jnp.ravel(x)[0]
                if jnp.issubdtype(x.dtype, jnp.integer):
                    return first == jnp.iinfo(x.dtype).min
                return jnp.isnan(first)
        raise ValueError(f"{fn.__name__} has no integer or float argument to flag")

    def changed(flag, x):
        if not isinstance(x, jax.Array) or jnp.issubdtype(x.dtype, jax.dtypes.prng_key):
            return x
        if x.dtype == jnp.bool_:
            return x ^ flag
        return jnp.where(flag, x + 1, x).astype(x.dtype)

    def twice(*args, **kwargs):
        flag = flag_of(jax.tree.leaves((args, kwargs)))
        first = fn(*args, **kwargs)
        second = fn(*jax.tree.map(lambda x: changed(flag, x), args),
                    **jax.tree.map(lambda x: changed(flag, x), kwargs))
        return jax.tree.map(
            lambda a, b: a if jnp.issubdtype(jnp.asarray(a).dtype, jax.dtypes.prng_key)
            else jnp.where(flag, b, a), first, second)

    return twice


def _resolve(path: str) -> tuple[Any, str]:
    """``(module, name)`` of a dotted function path, e.g. ``jaxenvs.tcgjax._src.engine.step``."""
    module_name, _, name = path.rpartition(".")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise ValueError(f"{path!r}: cannot import module {module_name!r} ({error})") from None
    if not callable(getattr(module, name, None)):
        raise ValueError(f"{path!r}: {module_name} has no function {name!r}")
    return module, name


def _compiled_rollout(env, params, num_steps: int, batch, function: str | None = None):
    """The bench's rollout compiled, with ``function`` (a dotted path) computed twice: it is
    replaced in its module while the rollout is traced, so the env must call it through its
    module (``engine.step(...)``, not a name imported with ``from``). JAX's and the kernels'
    trace caches are cleared first, so nothing traced before is reused."""
    jax.clear_caches()
    kernel_rewrite.rewrite.cache_clear()
    kernel._reading_only.cache_clear()
    if function is None:
        return bench.random_rollout(env, params, num_steps).lower(*batch).compile()
    module, name = _resolve(function)
    original = getattr(module, name)
    twice = computed_twice(original)
    calls = []

    def counted(*args, **kwargs):
        calls.append(1)
        return twice(*args, **kwargs)

    setattr(module, name, counted)
    try:
        compiled = bench.random_rollout(env, params, num_steps).lower(*batch).compile()
    finally:
        setattr(module, name, original)
    if not calls:
        raise ValueError(f"{function} is never called through its module in "
                         f"{env.name}'s step")
    return compiled


def marginal_costs(env, params, functions: Sequence[str], batch_size: int, num_steps: int,
                   rounds: int = 10,
                   progress: Callable[[str], None] = lambda line: None) -> list[MarginalCost]:
    """The time each of ``functions`` (dotted paths) adds to ``num_steps`` random-action steps
    of ``batch_size`` envs when computed twice (module docstring): each variant compiled once,
    then ``rounds`` rounds that time the unchanged rollout and every variant in turn, so that
    a machine whose speed drifts slows all alike. Each variant's final carry must equal the
    unchanged rollout's, bit for bit: the second call changes nothing but the time.
    ``progress`` gets a line per compiled variant."""
    batch = bench.random_batch(env, params, batch_size)
    compiled = {None: _compiled_rollout(env, params, num_steps, batch)}
    expected = jax.tree.leaves(_comparable(compiled[None](*batch)))
    for function in functions:
        start = time.perf_counter()
        compiled[function] = _compiled_rollout(env, params, num_steps, batch, function)
        got = jax.tree.leaves(_comparable(compiled[function](*batch)))
        if not all(np.array_equal(a, b) for a, b in zip(expected, got)):
            raise RuntimeError(f"{function} computed twice changed the rollout")
        progress(f"compiled {function} twice in {time.perf_counter() - start:.1f} s")
    seconds: dict[str | None, list[float]] = {k: [] for k in compiled}
    for _ in range(rounds):
        for variant, run in compiled.items():
            start = time.perf_counter()
            jax.block_until_ready(run(*batch))
            seconds[variant].append(time.perf_counter() - start)
    base = seconds[None]

    def per_env_step(seconds):
        return statistics.median(seconds) / (batch_size * num_steps) * 1e9

    return [MarginalCost(function, tuple(t / b for t, b in zip(seconds[function], base)),
                         per_env_step(seconds[function]) - per_env_step(base),
                         per_env_step(base)) for function in functions]


def _comparable(tree):
    """``tree`` with key arrays as their key data, as numpy arrays."""
    return jax.tree.map(lambda x: np.asarray(jax.random.key_data(x) if jnp.issubdtype(
        x.dtype, jax.dtypes.prng_key) else x), tree)
