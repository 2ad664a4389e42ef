"""Pong against its reference: the recorded runs of PufferLib's C Pong in ``golden/``.

``golden/README.md`` describes the files. Two checks per file, both bit for bit on the step's
outputs (``obs``, ``reward``, ``terminal``) and the C state after it (``post_*``):

* **state injection** (``inject_run``): every recorded pre-state, with the previous step's
  observation as ``last_obs``, goes through one vmapped ``step_deterministic``;
* **replay** (``replay_run``): ``reset_state`` followed by a ``lax.scan`` of
  ``step_deterministic`` over the recorded actions. Here the state carried into each step is
  also compared (field ``pre_last_obs``: at step 0 C's reset observation ``init_obs``).

Both run with the default parameters and the file's frameskip (1 or 8; ``GoldenRun.params``).
C draws serves from ``rand()``; both checks inject the recorded serve values instead. Steps
in which C drew no serve get NaN, so a port that served where C did not would carry NaN into
its state and fail.

Importing this module registers the ``"Pong"`` verification suite (``jaxenvs verify Pong``)
and Pong's row of reference figures in ``jaxenvs bench Pong``.
"""

from __future__ import annotations

import fnmatch
import functools
import hashlib
import importlib.resources
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import jax
import jax.numpy as jnp
import numpy as np

import jaxenvs
from jaxenvs import bench
from jaxenvs.pong._src.rules import reset_state, step_deterministic
from jaxenvs.pong.types import PongParams, PongState
from jaxenvs.verify.compare import Comparison, compare_trajectories
from jaxenvs.verify.suite import CheckResult, ReferenceInfo, SuiteOptions, register_suite

#: The C state fields, in the files as ``pre_<name>`` and ``post_<name>``.
STATE_FIELDS = ("paddle_yl", "paddle_yr", "ball_x", "ball_y", "ball_vx", "ball_vy",
                "score_l", "score_r")


def golden_dir() -> Path:
    """The folder holding the golden ``.npz`` files (installed as package data)."""
    return Path(str(importlib.resources.files("jaxenvs.pong") / "golden"))


def golden_files(pattern: str | None = None) -> list[Path]:
    """The golden files whose names match the glob ``pattern`` (all if None), sorted."""
    files = sorted(golden_dir().glob("*.npz"))
    if pattern is not None:
        files = [f for f in files if fnmatch.fnmatch(f.name, pattern)]
    return files


@dataclass(frozen=True)
class GoldenRun:
    """One recorded C run: the inputs to feed a port and the outputs it must reproduce."""

    name: str
    """File name, e.g. ``pong_fs8_seed0_random.npz``."""
    frameskip: int
    action: np.ndarray
    """int32[T]: the action of each step."""
    init_obs: np.ndarray
    """float32[8]: the observation ``reset`` returned."""
    obs: np.ndarray
    """float32[T, 8]: the observation each step returned."""
    reward: np.ndarray
    """float32[T]."""
    terminal: np.ndarray
    """bool[T]."""
    pre: dict[str, np.ndarray]
    """State field -> [T]: C's state before each step."""
    post: dict[str, np.ndarray]
    """State field -> [T]: C's state after each step."""
    serve_step: np.ndarray
    """int32[S]: the step in which each serve was drawn (-1: inside ``reset``)."""
    serve_vy: np.ndarray
    """float32[S]: the ``ball_vy`` each serve set."""

    @property
    def steps(self) -> int:
        return len(self.action)

    @property
    def params(self) -> PongParams:
        """The default parameters with this run's frameskip, as the C env ran."""
        return jaxenvs.make("Pong", frameskip=self.frameskip)[1]

    def serves(self) -> tuple[np.float32, np.ndarray]:
        """``(reset serve, float32[T] serve of each step)``, NaN where C drew none.

        Serve ``i`` belongs to step ``serve_step[i]``; serve 0 is the reset's.
        """
        steps = self.serve_step
        if len(steps) == 0 or steps[0] != -1 or np.any(np.diff(steps) <= 0) \
                or steps[-1] >= self.steps:
            raise ValueError(f"{self.name}: serve_step must start at -1 and increase "
                             f"strictly within [0, {self.steps})")
        per_step = np.full(self.steps, np.nan, np.float32)
        per_step[steps[1:]] = self.serve_vy[1:]
        return self.serve_vy[0], per_step

    def last_obs(self) -> np.ndarray:
        """float32[T, 8]: the observation carried into each step (``init_obs`` at step 0)."""
        return np.concatenate([self.init_obs[None], self.obs[:-1]])

    def expected_outputs(self) -> dict[str, np.ndarray]:
        """What every step must reproduce: ``obs``, ``reward``, ``terminal``, ``post_*``."""
        return {"obs": self.obs, "reward": self.reward, "terminal": self.terminal,
                **{f"post_{n}": self.post[n] for n in STATE_FIELDS}}


def load_golden(path: str | Path) -> GoldenRun:
    """Load a golden ``.npz`` file; a bare file name is looked up in ``golden_dir()``."""
    path = Path(path)
    if not path.exists() and path.parent == Path("."):
        path = golden_dir() / path
    with np.load(path) as data:
        return GoldenRun(
            name=path.name,
            frameskip=int(data["frameskip"]),
            action=data["action"],
            init_obs=data["init_obs"],
            obs=data["obs"],
            reward=data["reward"],
            terminal=data["terminal"],
            pre={n: data[f"pre_{n}"] for n in STATE_FIELDS},
            post={n: data[f"post_{n}"] for n in STATE_FIELDS},
            serve_step=data["serve_step"],
            serve_vy=data["serve_vy"],
        )


def _outputs(obs, state: PongState, reward, terminal) -> dict[str, jax.Array]:
    """``step_deterministic``'s results, named as ``GoldenRun.expected_outputs`` names them."""
    return {"obs": obs, "reward": reward, "terminal": terminal,
            **{f"post_{n}": getattr(state, n) for n in STATE_FIELDS}}


@jax.jit
def _inject(state: PongState, action, serve_vy, params: PongParams):
    """One ``step_deterministic`` from each of a batch of states."""
    step = jax.vmap(step_deterministic, in_axes=(0, 0, 0, None))
    return _outputs(*step(state, action, serve_vy, params))


@functools.partial(jax.jit, static_argnames="params")
def _replay(reset_serve_vy, actions, serves_vy, params: PongParams):
    """Reset, then step through ``actions``: per step the outputs and the carried ``last_obs``.

    ``params`` is static (compile-time constants) here, while ``_inject`` traces it, so the
    golden checks cover both ways XLA can compile the float32 arithmetic (with constants it
    may fold or rewrite divisions; see ``core.exact_div``).
    """

    def body(state: PongState, inputs):
        action, serve_vy = inputs
        obs, next_state, reward, terminal = step_deterministic(state, action, serve_vy, params)
        return next_state, {**_outputs(obs, next_state, reward, terminal),
                            "pre_last_obs": state.last_obs}

    return jax.lax.scan(body, reset_state(reset_serve_vy, params), (actions, serves_vy))[1]


def _compare(run: GoldenRun, actual: dict[str, jax.Array],
             extra_expected: dict[str, np.ndarray] | None = None) -> Comparison:
    """Compare a port's outputs for ``run`` with the recorded ones, bit for bit."""
    expected = {**run.expected_outputs(), **(extra_expected or {})}
    return compare_trajectories(jax.device_get(actual), expected)


def inject_run(run: GoldenRun) -> Comparison:
    """Step once from every recorded pre-state of ``run`` and compare each step's results."""
    _, serves = run.serves()
    state = PongState(
        **{n: jnp.asarray(run.pre[n]) for n in STATE_FIELDS},
        last_obs=jnp.asarray(run.last_obs()),
        time=jnp.zeros(run.steps, jnp.int32),
    )
    return _compare(run, _inject(state, jnp.asarray(run.action), jnp.asarray(serves),
                                 run.params))


def replay_run(run: GoldenRun) -> Comparison:
    """Play ``run``'s actions from reset and compare every step, and each carried ``last_obs``."""
    reset_serve, serves = run.serves()
    actual = _replay(reset_serve, jnp.asarray(run.action), jnp.asarray(serves), run.params)
    return _compare(run, actual, {"pre_last_obs": run.last_obs()})


#: Check-name prefix and function of each verification mode.
_MODE_CHECKS = {"inject": ("state injection", inject_run), "replay": ("replay", replay_run)}


def pong_suite(options: SuiteOptions) -> Iterator[CheckResult]:
    """The ``"Pong"`` suite: the selected modes on every golden file matching ``options.files``
    (already the whole golden set, so ``options.full`` changes nothing)."""
    files = golden_files(options.files)
    if not files:
        names = ", ".join(f.name for f in golden_files())
        raise ValueError(f"no golden Pong file matches {options.files!r}; files: {names}")
    for path in files:
        run = load_golden(path)
        for mode in options.modes:
            label, check = _MODE_CHECKS[mode]
            yield CheckResult(f"{label} {run.name}", check(run))


def golden_versions() -> dict[str, str]:
    """The golden data as the certificate names it: its source, files and manifest digest."""
    manifest = hashlib.sha256((golden_dir() / "manifest.json").read_bytes()).hexdigest()
    return {"PufferLib": f"3.0.0 Ocean Pong (C) golden data, {len(golden_files())} runs, "
                         f"manifest sha256 {manifest[:12]}"}


register_suite("Pong", pong_suite, reference=ReferenceInfo(
    "PufferLib's C Pong, recorded runs (golden/)", golden_versions))


#: PufferLib 3.0.0 Ocean Pong (C), frameskip -> steps per second, as quoted in the project
#: issue: one process, 1024 envs, on the 2-core benchmark machines. Quoted because its build
#: downloads raylib, which these machines cannot. Valid only for the default parameters apart
#: from frameskip, at batch ``PUFFERLIB_PONG_QUOTED_BATCH``.
PUFFERLIB_PONG_QUOTED_SPS: dict[int, float] = {8: 6.5e6, 1: 23e6}
PUFFERLIB_PONG_QUOTED_BATCH = 1024


def _pufferlib_pong_quoted(batch_size: int, num_steps: int, params: PongParams) -> float | None:
    del num_steps
    if batch_size != PUFFERLIB_PONG_QUOTED_BATCH or params != PongParams(
            frameskip=params.frameskip):
        return None
    return PUFFERLIB_PONG_QUOTED_SPS.get(params.frameskip)


bench.register_reference(
    "Pong", _pufferlib_pong_quoted, label="PufferLib C (quoted, not measured in this run)",
    note="PufferLib 3.0.0 C Pong, single process, 1024 envs, 2-core machine, as quoted in the "
         "project issue (its build downloads raylib, so it cannot be built here).")
