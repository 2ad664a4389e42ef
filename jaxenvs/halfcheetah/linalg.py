"""Small dense linear algebra written as elementwise arithmetic in a fixed order.

XLA lowers ``dot``, reductions and LAPACK calls differently for different batch sizes, so a
state's result would change in its last bits with the batch it runs in, and chaotic contact
dynamics grow those bits into visible differences (``jaxenvs.api_test`` checks that a
trajectory does not depend on its batch, bit for bit). Every sum here is therefore a chain of
Python-unrolled adds over the contracted axis, which ``vmap`` turns into elementwise kernels
over the batch: the same operations in the same order for every element, whatever the batch.
On a CPU this is also faster than batched calls on 9 x 9 matrices.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np


def ordered_sum(terms) -> jax.Array:
    """``terms[0] + terms[1] + ...``, left to right."""
    terms = list(terms)
    total = terms[0]
    for term in terms[1:]:
        total = total + term
    return total


def dot(a: jax.Array, b: jax.Array) -> jax.Array:
    """``sum_k a[..., k] * b[..., k]``."""
    return ordered_sum(a[..., k] * b[..., k] for k in range(a.shape[-1]))


def matvec(a: jax.Array, x: jax.Array) -> jax.Array:
    """``a @ x`` for ``a[m, n]``, ``x[n]``."""
    return ordered_sum(a[:, k] * x[k] for k in range(a.shape[1]))


def rmatvec(a: jax.Array, y: jax.Array) -> jax.Array:
    """``a.T @ y`` for ``a[m, n]``, ``y[m]``."""
    return ordered_sum(a[i] * y[i] for i in range(a.shape[0]))


def gram(a: jax.Array, w: jax.Array) -> jax.Array:
    """``a.T @ diag(w) @ a`` for ``a[m, n]``, ``w[m]``."""
    return ordered_sum(w[i] * a[i][:, None] * a[i][None, :] for i in range(a.shape[0]))


def select_sum(table: np.ndarray, values: jax.Array) -> jax.Array:
    """``table @ values`` for a constant 0/1 ``table[m, n]``: each row's selected entries of
    ``values[n, ...]`` added in index order (rows with none give 0)."""
    rows = []
    for row in np.asarray(table, bool):
        picked = [values[j] for j in np.nonzero(row)[0]]
        rows.append(ordered_sum(picked) if picked else jnp.zeros_like(values[0]))
    return jnp.stack(rows)


def cholesky(a: jax.Array) -> list[list[jax.Array]]:
    """The lower Cholesky factor of a symmetric positive definite ``a[n, n]``, as rows of
    scalars (``l[i][j]`` for ``j <= i``)."""
    n = a.shape[0]
    l: list[list[jax.Array]] = [[] for _ in range(n)]
    for i in range(n):
        for j in range(i + 1):
            s = a[i, j]
            for k in range(j):
                s = s - l[i][k] * l[j][k]
            l[i].append(jnp.sqrt(s) if i == j else s / l[j][j])
    return l


def cho_solve(l: list[list[jax.Array]], b: jax.Array) -> jax.Array:
    """Solve ``L L' x = b`` with ``l`` from ``cholesky``."""
    n = len(l)
    y: list[jax.Array] = []
    for i in range(n):
        s = b[i]
        for k in range(i):
            s = s - l[i][k] * y[k]
        y.append(s / l[i][i])
    x: list[jax.Array] = [None] * n  # type: ignore[list-item]
    for i in reversed(range(n)):
        s = y[i]
        for k in range(i + 1, n):
            s = s - l[k][i] * x[k]
        x[i] = s / l[i][i]
    return jnp.stack(x)


def solve_spd(a: jax.Array, b: jax.Array) -> jax.Array:
    """``a^-1 b`` for symmetric positive definite ``a``."""
    return cho_solve(cholesky(a), b)
