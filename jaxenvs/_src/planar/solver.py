"""The constraint solver: MuJoCo's primal problem, solved by Newton's method with an exact line
search.

MuJoCo's constraint forces minimise, over accelerations ``a``, the convex cost

    c(a) = 1/2 (a - a0)' M (a - a0) + sum_i w_i D_i / 2 * min(J_i a - aref_i, 0)^2

(``a0`` the unconstrained acceleration ``qacc_smooth``; every row here is an inequality, a
joint limit or a pyramid edge; ``w_i`` the row's multiplicity). Its minimiser is unique (M is
positive definite), so any solver that converges gives MuJoCo's ``qacc``, whatever its path;
the force of row i is ``-D_i min(J_i a - aref_i, 0)``.

Each Newton step solves with the Hessian ``M + J' diag(w D [active]) J`` (Cholesky, nv x nv) and
then minimises the cost exactly along the step: along a line the cost is a convex piecewise
quadratic whose pieces join where a row's ``J_i a - aref_i`` crosses 0, so the derivative is
evaluated at every such breakpoint, the piece holding the minimum is picked, and its quadratic
is minimised in closed form. Once the active set is right a step lands on the minimiser
exactly, so a few iterations converge (at most ``ITERATIONS``: checked against MuJoCo to
float64 rounding by the tests).

The iterations start from ``qacc_smooth`` and stop once a step leaves the set of pushing rows
unchanged (it then landed on the minimiser) or is at rounding level (``CONVERGED``); a state
where no row pushes at ``qacc_smooth`` takes none. Most states take none or one, and a vmapped
loop would run every state as long as the slowest, so on a CPU a batch takes its steps in
rounds over the states still iterating (``rounds.while_loop``). Either way each state's steps
are the same operations as alone, so its result does not depend on the batch it runs in. On
a CPU the iterations compile as XLA:CPU kernels (``jaxenvs._src.cpu_kernels.kernel``), with no
dispatch per fused operation: the whole loop where a batch fits one round, else each round's
Newton step. Hence the step's reductions are elementwise chains (``linalg.ordered_reduce``):
XLA:CPU can hand a reduction such as ``jnp.max`` to a library (YNNPACK), which a kernel
cannot hold.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from jaxenvs._src import rounds
from jaxenvs._src.planar import linalg
from jaxenvs._src.planar.constraint import Rows, row_weight
from jaxenvs._src.planar.model import PlanarModel, const

#: Most Newton iterations per physics step (starting from ``qacc_smooth``, no warm start):
#: deep-penetration states need this many to reach MuJoCo's ``qacc`` on the 10,000 states of
#: ``agreement`` (``tests/halfcheetah/test_agreement.py``; figures: docs/halfcheetah.md,
#: Design choices).
ITERATIONS = 8
#: A Newton step no larger than this many machine epsilons of ``1 + max|qacc|`` ends the
#: iterations (MuJoCo stops at its own tolerance, 1e-8, on the cost's improvement). Small
#: enough that float32 reaches MuJoCo's minimiser to its rounding; a much larger value stops
#: early on flipped states (figures: docs/halfcheetah.md, Design choices).
CONVERGED = 10
#: A batch's Newton rounds take ``1 / ROUND_FRACTION`` of its states at a time
#: (``rounds.while_loop``); 8 ran best across batch sizes of the fractions measured (figures:
#: docs/halfcheetah.md, Design choices).
ROUND_FRACTION = 8


def _line_search(direction, M, resid_smooth, jar, w, J):
    """The exact minimiser ``alpha >= 0`` of the cost along ``qacc + alpha direction``.

    ``resid_smooth = qacc - a0``, ``jar = J qacc - aref``, ``w = weight * D`` (0 when inactive).
    """
    Md = linalg.matvec(M, direction)
    g0 = linalg.dot(Md, resid_smooth)  # derivative of the Gauss term at alpha = 0
    h0 = linalg.dot(Md, direction)     # its curvature
    jd = linalg.matvec(J, direction)
    moves = (w > 0) & (jd != 0)
    safe_jd = jnp.where(moves, jd, 1)
    breaks = jnp.where(moves, -jar / safe_jd, -1)
    breaks = jnp.where(breaks > 0, breaks, jnp.inf)  # only breakpoints ahead matter

    wjd = w * jd

    def slope(alpha):
        """The cost's derivative at each ``alpha[K]`` (row by row, as ``K``-vectors): row i
        adds ``w_i jd_i r_i`` where its residual ``r_i = jar_i + alpha jd_i`` is negative."""
        return g0 + alpha * h0 + linalg.ordered_sum(
            wjd[i] * jnp.minimum(jar[i] + alpha * jd[i], 0) for i in range(jar.shape[0]))

    finite = jnp.isfinite(breaks)
    at_breaks = slope(jnp.where(finite, breaks, 0))
    # The slope only grows along the line, so the breakpoints where it is negative are the
    # ones before the minimum: the last of them and the first breakpoint after it bracket it.
    # (``hi`` is taken from ``lo`` rather than from the slopes again, so that XLA evaluates the
    # slopes, the line search's main cost, once.)
    lo = linalg.ordered_reduce(jnp.maximum, jnp.where(finite & (at_breaks < 0), breaks, 0))
    hi = linalg.ordered_reduce(jnp.minimum, jnp.where(breaks > lo, breaks, jnp.inf))
    mid = jnp.where(jnp.isfinite(hi), 0.5 * (lo + hi), lo + 1)
    on = (jar + mid * jd) < 0
    num = g0 + linalg.ordered_sum(jnp.where(on, w * jd * jar, 0))
    den = h0 + linalg.ordered_sum(jnp.where(on, w * jd * jd, 0))
    alpha = jnp.where(den > 0, -num / jnp.where(den > 0, den, 1), 0)
    return jnp.clip(alpha, lo, hi)


@struct.dataclass
class Problem:
    """One state's constraint problem: what the Newton iterations read."""

    M: jax.Array
    """[nv, nv] mass matrix."""
    qacc_smooth: jax.Array
    """[nv] unconstrained acceleration."""
    J: jax.Array
    """[nrow, nv] constraint rows."""
    aref: jax.Array
    """[nrow] reference accelerations."""
    w: jax.Array
    """[nrow] ``weight * D``: each row's stiffness in the cost (0 for rows that do not exist)."""


@struct.dataclass
class Iterate:
    """Where one state's Newton iterations stand."""

    qacc: jax.Array
    """[nv] current acceleration."""
    jar: jax.Array
    """[nrow] ``J qacc - aref``."""
    pushing: jax.Array
    """[nrow] bool: the rows that push at ``qacc`` (exist and ``jar < 0``)."""
    count: jax.Array
    """Newton steps taken."""
    done: jax.Array
    """bool: ``qacc`` is the minimiser (or ``ITERATIONS`` steps were taken)."""


def _problem(m: PlanarModel, M: jax.Array, qacc_smooth: jax.Array, rows: Rows) -> Problem:
    return Problem(M=M, qacc_smooth=qacc_smooth, J=rows.J, aref=rows.aref,
                   w=const(row_weight(m), M.dtype) * rows.D)


def _violated(p: Problem, qacc: jax.Array) -> tuple[jax.Array, jax.Array]:
    """``(J qacc - aref, which rows push)``: the residual and the active set at ``qacc``."""
    jar = linalg.matvec(p.J, qacc) - p.aref
    return jar, (p.w > 0) & (jar < 0)


def _start(p: Problem) -> Iterate:
    """The iterations' start, ``qacc_smooth``: done already if no row pushes there, since it is
    then the minimiser."""
    jar, pushing = _violated(p, p.qacc_smooth)
    return Iterate(qacc=p.qacc_smooth, jar=jar, pushing=pushing, count=jnp.int32(0),
                   done=~jnp.any(pushing))


def _newton(p: Problem, it: Iterate) -> Iterate:
    """One Newton step with an exact line search."""
    eps = jnp.finfo(p.M.dtype).eps
    on = jnp.where(it.pushing, p.w, 0)
    resid = it.qacc - p.qacc_smooth
    grad = linalg.matvec(p.M, resid) + linalg.rmatvec(p.J, on * it.jar)
    direction = -linalg.solve_spd(p.M + linalg.gram(p.J, on), grad)
    # Converged: the step is at rounding level. Stop there, since the line search along a
    # step of pure rounding noise would only move qacc by noise.
    size = linalg.ordered_reduce(jnp.maximum, jnp.abs(direction))
    small = size <= CONVERGED * eps * (1 + linalg.ordered_reduce(jnp.maximum, jnp.abs(it.qacc)))
    alpha = _line_search(direction, p.M, resid, it.jar, p.w, p.J)
    qacc = jnp.where(small, it.qacc, it.qacc + alpha * direction)
    jar, pushing = _violated(p, qacc)
    # The same rows push after the step: the cost was the Newton step's quadratic all along
    # it, so the step landed on its minimiser, the cost's (the next step would be rounding
    # noise, which the check above would discard).
    settled = linalg.ordered_reduce(jnp.logical_and, pushing == it.pushing)
    count = it.count + 1
    return Iterate(qacc=qacc, jar=jar, pushing=pushing, count=count,
                   done=small | settled | (count >= ITERATIONS))


def _result(m: PlanarModel, p: Problem, it: Iterate) -> tuple[jax.Array, jax.Array]:
    """``(qacc, force)``, with ``force = -D min(jar, 0)`` per row (``D = w / weight``, 0 for
    rows of weight 0)."""
    weight = row_weight(m)
    D = p.w / const(np.maximum(weight, 1) if np.any(weight == 0) else weight, p.M.dtype)
    return it.qacc, -D * jnp.minimum(it.jar, 0)


def solve(m: PlanarModel, M: jax.Array, qacc_smooth: jax.Array,
          rows: Rows) -> tuple[jax.Array, jax.Array]:
    """Minimise MuJoCo's constraint cost: ``(qacc, force)``, ``force`` per row (``efc_force``
    of each edge the row stands for). Newton steps until done; a batch on a CPU takes them in
    rounds over the states still iterating (``rounds.while_loop``), since most states need
    far fewer steps than the slowest. Each state's steps are the same operations as alone, so
    its result does not depend on the batch."""
    p = _problem(m, M, qacc_smooth, rows)
    it = rounds.while_loop(lambda p, it: ~it.done, _newton, p, _start(p), ROUND_FRACTION,
                           kernel=True)
    return _result(m, p, it)
