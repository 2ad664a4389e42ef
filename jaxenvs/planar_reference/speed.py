"""Speed references for ``jaxenvs bench`` of a planar body (``bodies.BODIES``): MuJoCo C, MJX
and Brax, measured live.

Each engine runs the body for a batch of envs under random actions (uniform in [-1, 1] per
motor, one action held for the ``frame_skip`` physics steps of an env step) and reports env
steps per second, timed after compilation and one warm-up call, as ``jaxenvs.bench`` times our
env:

- **MuJoCo C**: ``mujoco.rollout`` on gymnasium's XML of the ``-v5`` env (float64), one
  ``MjData`` per CPU core in its thread pool; the controls are given per physics step, each
  action repeated ``frame_skip`` times.
- **MJX** (``mujoco-mjx``): ``jit(scan(vmap(frame_skip x mjx.step)))`` on the same XML, float32.
- **Brax** generalized and positional: ``jit(scan(vmap(env.step)))`` of Brax's *own* env of
  the body (its own XML, substeps and gears), so those rows compare engines on a similar but
  not the same model. float32.

- **ours** (not a reference row, ``jaxenvs bench`` measures our env itself): the same
  ``jit(scan(vmap(step_env)))`` harness as MJX and Brax, so that all the JAX engines can be
  compared by one command each, in the same conditions.

Every measurement runs in a fresh subprocess, ``python -m jaxenvs.planar_reference.speed BODY
ENGINE BATCH STEPS [FRAME_SKIP]``, which prints one JSON line. The subprocess isolates the
engines' threads and compile caches from ours and from each other, and lets the JAX engines
start with ``XLA_FLAGS=--xla_cpu_enable_concurrency_optimized_scheduler=false``: without it, MJX at large
batches can hang on CPU with jax 0.10.2, and the flag only takes effect before jax starts. The
JAX engines get as many CPU devices as the bench (``JAX_NUM_CPU_DEVICES``) and shard their batch
as it does (``jaxenvs.bench.batch_sharding``), so all of them use the same cores.

Wall time is capped, because MJX and Brax are slow on a CPU: each call runs a compiled chunk
of about ``CHUNK_ENV_STEPS`` env steps (batch x steps), and repeats it only until
``TARGET_SECONDS`` have passed or ``num_steps`` steps are done (so a run measures fewer than
``num_steps + chunk`` steps). On a GPU or TPU the JAX engines' chunk is
the bench's whole run of ``num_steps`` steps, one compiled scan per call as for ours, so that
no engine pays a host round trip per step. A subprocess that takes more than
``TIMEOUT_SECONDS`` (compilation included) is killed and the cell is left empty (``None``, with
a warning), as is any engine whose package is missing (``pip install
jaxenvs[mujoco-bench]``). The JAX engines' compiles are long, so the four rows add minutes
per batch size to ``jaxenvs bench`` (figures: docs/halfcheetah.md, Design choices).
``register_speed_references(BODY)`` adds the four rows to ``jaxenvs bench BODY``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import warnings
from typing import Any, Callable

import numpy as np

from jaxenvs.planar_reference.bodies import BODIES

#: Env steps (batch x scan length) of one compiled chunk, per engine; at least one step of
#: the batch. Sized to each engine's speed, so that a chunk lasts well under
#: ``TARGET_SECONDS`` (figures: docs/halfcheetah.md, Design choices).
CHUNK_ENV_STEPS = {"mujoco": 32768, "ours": 8192, "mjx": 512, "brax-generalized": 512,
                   "brax-positional": 512}
#: A measurement stops repeating chunks once its timed calls have lasted this long.
TARGET_SECONDS = 3.0
#: A subprocess (imports, compilation, warm-up and timed runs) is killed after this long.
TIMEOUT_SECONDS = 300.0
#: Added to ``XLA_FLAGS`` of the JAX engines' subprocesses (see the module docstring).
XLA_FLAG = "--xla_cpu_enable_concurrency_optimized_scheduler=false"
INSTALL_HINT = "pip install jaxenvs[mujoco-bench]"


def _timed_chunks(run_chunk: Callable[[], Any], batch_size: int, chunk_steps: int,
                  num_steps: int) -> dict[str, float]:
    """Time ``run_chunk`` (one call advances every env ``chunk_steps`` steps and blocks until
    done) after one untimed warm-up call: calls are repeated until ``TARGET_SECONDS`` have
    passed or ``num_steps`` steps are done, at least once."""
    run_chunk()
    calls, start = 0, time.perf_counter()
    while True:
        run_chunk()
        calls += 1
        seconds = time.perf_counter() - start
        if seconds >= TARGET_SECONDS or calls * chunk_steps >= num_steps:
            break
    return {"sps": batch_size * chunk_steps * calls / seconds,
            "steps": chunk_steps * calls, "run_seconds": seconds}


def _chunk_steps(engine: str, batch_size: int, num_steps: int) -> int:
    """Steps per timed call: about ``CHUNK_ENV_STEPS[engine]`` env steps on a CPU, and for
    the JAX engines on an accelerator all ``num_steps`` (one scan per call, as ours)."""
    if engine != "mujoco":
        import jax
        if jax.default_backend() != "cpu":
            return num_steps
    return max(1, min(num_steps, CHUNK_ENV_STEPS[engine] // batch_size))


def _measure_mujoco(body: str, batch_size: int, num_steps: int,
                    frame_skip: int) -> dict[str, float]:
    import mujoco
    from mujoco import rollout

    model = BODIES[body].load_model()
    nthread = os.cpu_count() or 1
    datas = [mujoco.MjData(model) for _ in range(nthread)]
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    state = np.zeros((batch_size, mujoco.mj_stateSize(model, spec)))
    mujoco.mj_getState(model, datas[0], state[0], spec)
    state[:] = state[0]
    rng = np.random.default_rng(0)
    chunk = _chunk_steps("mujoco", batch_size, num_steps)
    pool = rollout.Rollout(nthread=nthread)

    def run_chunk():
        nonlocal state
        actions = rng.uniform(-1, 1, (batch_size, chunk, model.nu))
        control = np.repeat(actions, frame_skip, axis=1)
        states, _ = pool.rollout(model, datas, state, control, nstep=chunk * frame_skip)
        state = states[:, -1]

    return _timed_chunks(run_chunk, batch_size, chunk, num_steps)


def _jax_rollout(step, init_states, batch_size: int, chunk: int, num_actions: int,
                 num_steps: int) -> dict[str, float]:
    """Compile and time ``chunk`` steps of ``vmap(step)(states, actions)`` per call, the
    actions uniform in [-1, 1] from per-env keys; the states are carried from call to call.
    The batch is split over the devices as ``jaxenvs.bench`` splits it."""
    import jax

    from jaxenvs.bench import batch_sharding
    from jaxenvs.devices import per_device

    sharding = batch_sharding(batch_size)

    def body(carry, _):
        keys, states = carry
        keys, action_keys = jax.vmap(jax.random.split, out_axes=1)(keys)
        actions = jax.vmap(lambda k: jax.random.uniform(k, (num_actions,), minval=-1,
                                                        maxval=1))(action_keys)
        return (keys, jax.vmap(step)(states, actions)), None

    def run(keys, states):
        return jax.lax.scan(body, (keys, states), None, length=chunk)[0]

    # out_shardings: else XLA returns MJX's zero-size fields replicated, and the next call,
    # compiled for split inputs, refuses them
    run = jax.jit(per_device(run, sharding), out_shardings=sharding)
    carry = jax.device_put((jax.random.split(jax.random.key(1), batch_size), init_states),
                           sharding)
    start = time.perf_counter()
    compiled = run.lower(*carry).compile()
    compile_seconds = time.perf_counter() - start

    def run_chunk():
        nonlocal carry
        carry = jax.block_until_ready(compiled(*carry))

    return {"compile_seconds": compile_seconds,
            **_timed_chunks(run_chunk, batch_size, chunk, num_steps)}


def _measure_ours(body: str, batch_size: int, num_steps: int,
                  frame_skip: int) -> dict[str, float]:
    import jax

    import jaxenvs

    env, params = jaxenvs.make(body, frame_skip=frame_skip)

    def step(state, action):
        return env.step_env(jax.random.key(0), state, action, params)[1]

    keys = jax.random.split(jax.random.key(0), batch_size)
    states = jax.jit(jax.vmap(lambda key: env.reset_env(key, params)[1]))(keys)
    return _jax_rollout(step, states, batch_size, _chunk_steps("ours", batch_size, num_steps),
                        env.num_actions, num_steps)


def _measure_mjx(body: str, batch_size: int, num_steps: int,
                 frame_skip: int) -> dict[str, float]:
    import jax
    from mujoco import mjx

    model = mjx.put_model(BODIES[body].load_model())

    def step(data, action):
        data = data.replace(ctrl=action)
        return jax.lax.fori_loop(0, frame_skip, lambda _, d: mjx.step(model, d), data)

    def init(key):
        data = mjx.make_data(model)
        noise = jax.random.uniform(key, (model.nq,), minval=-0.1, maxval=0.1)
        return data.replace(qpos=data.qpos + noise)

    states = jax.jit(jax.vmap(init))(jax.random.split(jax.random.key(0), batch_size))
    return _jax_rollout(step, states, batch_size, _chunk_steps("mjx", batch_size, num_steps),
                        model.nu, num_steps)


def _measure_brax(backend: str, body: str, batch_size: int, num_steps: int,
                  frame_skip: int) -> dict[str, float]:
    import jax
    from brax import envs

    del frame_skip  # Brax's env has its own (checked by the caller)
    env = envs.get_environment(BODIES[body].brax_env, backend=backend)
    states = jax.jit(jax.vmap(env.reset))(jax.random.split(jax.random.key(0), batch_size))
    return _jax_rollout(env.step, states, batch_size,
                        _chunk_steps(f"brax-{backend}", batch_size, num_steps),
                        env.action_size, num_steps)


#: Engine name -> ``measure(body, batch_size, num_steps, frame_skip) -> {"sps", "steps",
#: "run_seconds", "compile_seconds"}`` (run in the subprocess), and the module it needs.
ENGINES: dict[str, tuple[Callable[[str, int, int, int], dict[str, float]], str]] = {
    "mujoco": (_measure_mujoco, "mujoco"),
    "ours": (_measure_ours, "jaxenvs"),
    "mjx": (_measure_mjx, "mujoco.mjx"),
    "brax-generalized": (lambda *args: _measure_brax("generalized", *args), "brax"),
    "brax-positional": (lambda *args: _measure_brax("positional", *args), "brax"),
}


def available(engine: str) -> bool:
    """Whether ``engine``'s package is installed (without importing it)."""
    import importlib.util
    try:
        return importlib.util.find_spec(ENGINES[engine][1]) is not None
    except ModuleNotFoundError:
        return False


def measure(engine: str, body: str, batch_size: int, num_steps: int,
            frame_skip: int | None = None) -> dict[str, float] | None:
    """Measure ``engine`` on ``body`` (``frame_skip``: the ``-v5`` env's by default) in a
    subprocess: its JSON record (``sps``, ``steps`` timed,
    ``run_seconds``, and for the JAX engines ``compile_seconds``), or ``None`` where its
    package is missing, or (with a warning) where the subprocess failed or ran past
    ``TIMEOUT_SECONDS``."""
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; engines: {', '.join(ENGINES)}")
    if body not in BODIES:
        raise ValueError(f"unknown body {body!r}; bodies: {', '.join(BODIES)}")
    frame_skip = BODIES[body].frame_skip if frame_skip is None else frame_skip
    if not available(engine):
        return None
    import jax

    env = dict(os.environ)
    if engine != "mujoco":
        env["JAX_NUM_CPU_DEVICES"] = str(len(jax.devices("cpu")))
        if jax.default_backend() == "cpu":  # a CPU scheduler flag: nothing to do elsewhere
            env["XLA_FLAGS"] = f"{env.get('XLA_FLAGS', '')} {XLA_FLAG}".strip()
        env.pop("JAX_ENABLE_X64", None)  # the JAX engines run in float32
    command = [sys.executable, "-m", __name__, body, engine, str(batch_size), str(num_steps),
               str(frame_skip)]
    try:
        result = subprocess.run(command, env=env, capture_output=True, text=True,
                                timeout=TIMEOUT_SECONDS, check=True)
    except subprocess.TimeoutExpired:
        warnings.warn(f"{engine} at batch {batch_size}: no figure, the measurement ran past "
                      f"{TIMEOUT_SECONDS:g} s", stacklevel=2)
        return None
    except subprocess.CalledProcessError as error:
        warnings.warn(f"{engine} at batch {batch_size}: no figure, the measurement failed:\n"
                      f"{error.stderr[-2000:]}", stacklevel=2)
        return None
    return json.loads(result.stdout.strip().splitlines()[-1])


def _reference_fn(engine: str, body: str, own_model: bool):
    """A ``jaxenvs.bench`` reference function for ``engine`` on ``body``. ``own_model``: the
    engine runs its own model with its own substeps, so it has a figure only at the ``-v5``
    env's ``frame_skip``."""
    def reference(batch_size: int, num_steps: int, params) -> float | None:
        frame_skip = int(params.frame_skip)
        if own_model and frame_skip != BODIES[body].frame_skip:
            return None
        record = measure(engine, body, batch_size, num_steps, frame_skip)
        return None if record is None else record["sps"]
    reference.__name__ = f"{engine.replace('-', '_')}_sps"
    return reference


_CAP = (f"at most the bench's steps per run, and at most ~{TARGET_SECONDS:g} s of timed calls "
        f"(chunks of ~{{chunk}} env steps on a CPU; a JAX engine on an accelerator times one "
        f"call of the whole run); empty if not installed ({INSTALL_HINT}) or "
        f"if the subprocess, compilation included, exceeds {TIMEOUT_SECONDS:g} s")

def rows(body: str) -> tuple[tuple[str, str, str], ...]:
    """``(engine, label, note)`` of each of ``body``'s rows, in the table's order."""
    xml, brax_env = BODIES[body].xml, BODIES[body].brax_env
    return (
        ("mujoco", "MuJoCo C (mujoco.rollout, all cores)",
         "mujoco 4.0 C library, `mujoco.rollout` with one MjData per CPU core, gymnasium's "
         f"{xml} ({body}-v5), float64, physics only (no observation or reward); "
         + _CAP.format(chunk=CHUNK_ENV_STEPS["mujoco"]) + "."),
        ("mjx", "MJX (jit(scan(vmap(mjx.step))))",
         "mujoco-mjx, frame_skip x `mjx.step` per env step under jit(scan(vmap)), gymnasium's "
         f"{xml}, float32, on a CPU with `XLA_FLAGS={XLA_FLAG}`; "
         + _CAP.format(chunk=CHUNK_ENV_STEPS["mjx"]) + "."),
        *((f"brax-{backend}", f"Brax {backend} (Brax's own {brax_env} model)",
           f"brax `get_environment('{brax_env}', backend='{backend}')`: Brax's own model "
           "(different XML, timestep, substeps and gears), full env.step under "
           "jit(scan(vmap)), float32; " + _CAP.format(chunk=CHUNK_ENV_STEPS[f"brax-{backend}"])
           + ".") for backend in ("generalized", "positional")),
    )


def register_speed_references(body: str) -> None:
    """Add MuJoCo C, MJX and both Brax backends as reference rows of ``jaxenvs bench
    BODY``."""
    from jaxenvs import bench

    for engine, label, note in rows(body):
        bench.register_reference(body, _reference_fn(engine, body, engine.startswith("brax")),
                                 label=label, note=note)


def main(argv: list[str]) -> None:
    """``python -m jaxenvs.planar_reference.speed BODY ENGINE BATCH STEPS [FRAME_SKIP]``:
    measure one engine here and print its record as one JSON line."""
    if len(argv) not in (4, 5) or argv[0] not in BODIES or argv[1] not in ENGINES:
        raise SystemExit(f"usage: python -m {__name__} {{{','.join(BODIES)}}} "
                         f"{{{','.join(ENGINES)}}} BATCH STEPS [FRAME_SKIP]")
    body, engine = argv[0], argv[1]
    batch_size, num_steps = int(argv[2]), int(argv[3])
    frame_skip = int(argv[4]) if len(argv) == 5 else BODIES[body].frame_skip
    if min(batch_size, num_steps, frame_skip) < 1:
        raise SystemExit("BATCH, STEPS and FRAME_SKIP must be >= 1")
    record = ENGINES[engine][0](body, batch_size, num_steps, frame_skip)
    print(json.dumps({"engine": engine, "body": body, "batch_size": batch_size, **record}))


if __name__ == "__main__":
    main(sys.argv[1:])
