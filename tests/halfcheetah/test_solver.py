"""The constraint solver's batched paths: on a CPU a batch takes its Newton steps in rounds over
the states still iterating (``rounds.while_loop``), on an accelerator it runs the plain
vmapped loop. Both must reach each state's minimiser, the one a state gets alone.

States: 185 from ``agreement.mujoco_states`` (rollouts, resting, flipped, deep-penetration and
beyond-joint-limit states), so that some take no Newton step, most one or two, a few many.
"""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

pytest.importorskip("mujoco")

from jaxenvs._src.planar import integrator, solver  # noqa: E402
from jaxenvs.halfcheetah._src.model import HALF_CHEETAH  # noqa: E402
from jaxenvs.planar_reference import agreement  # noqa: E402

pytestmark = pytest.mark.skipif(jax.config.jax_enable_x64, reason="float32 check")


def _problems():
    """``(M, qacc_smooth, rows)`` of each state, as ``integrator.forward`` hands them over."""
    s = agreement.mujoco_states("HalfCheetah", 185)
    qpos, qvel, ctrl = (jnp.asarray(x, jnp.float32) for x in (s.qpos, s.qvel, s.ctrl))
    fwd = jax.vmap(functools.partial(integrator.forward, HALF_CHEETAH))(qpos, qvel, ctrl)
    return fwd.mass_matrix, fwd.qacc_smooth, fwd.rows


def test_rounds_and_plain_loop_reach_each_states_minimiser(monkeypatch):
    M, qacc_smooth, rows = _problems()
    # the states need different numbers of Newton steps: some none, some several
    no_step = np.asarray(jax.vmap(lambda M, a, r: solver._start(
        solver._problem(HALF_CHEETAH, M, a, r)).done)(
        M, qacc_smooth, rows))
    assert no_step.any() and not no_step.all()

    solve = functools.partial(solver.solve, HALF_CHEETAH)
    rounds = jax.jit(jax.vmap(solve))(M, qacc_smooth, rows)
    solve_alone = jax.jit(solve)  # unbatched: one while_loop
    alone = [solve_alone(M[i], qacc_smooth[i], jax.tree.map(lambda x: x[i], rows))
             for i in range(M.shape[0])]
    monkeypatch.setattr(jax, "default_backend", lambda: "gpu")
    plain = jax.jit(jax.vmap(solve))(M, qacc_smooth, rows)

    qacc_alone = np.stack([np.asarray(a[0]) for a in alone])
    force_alone = np.stack([np.asarray(a[1]) for a in alone])
    for name, (qacc, force) in (("rounds", rounds), ("plain", plain)):
        # Batched and alone differ by float32 rounding (XLA fuses a lone state differently),
        # amplified by the conditioning of deep-penetration states: measured max 5.2e-5 for
        # qacc and 1.5e-4 for the forces, median 0.
        qacc_error = np.abs(np.asarray(qacc) - qacc_alone) / (1 + np.abs(qacc_alone))
        force_error = np.abs(np.asarray(force) - force_alone) / (1 + np.abs(force_alone))
        assert qacc_error.max() < 2e-4, name
        assert np.median(qacc_error) < 1e-7, name
        assert force_error.max() < 1e-3, name
