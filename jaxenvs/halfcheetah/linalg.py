"""Small dense linear algebra written as elementwise arithmetic in a fixed order.

XLA lowers ``dot``, reductions and LAPACK calls differently for different batch sizes, so a
state's result would change in its last bits with the batch it runs in, and chaotic contact
dynamics grow those bits into visible differences. Every sum here is therefore spelled out as
adds in an order fixed by the code, which ``vmap`` turns into elementwise kernels over the
batch: the same operations in the same order for every element, whatever the batch. On a CPU
this is also faster than batched library calls on 9 x 9 matrices.

Two shapes of code, chosen for XLA's compile time and the step's run time together:

- Sums over the constraint rows (``matvec``, ``rmatvec``, ``gram``, ``dot``) are chains of
  whole-vector terms, each product formed from slices and added in turn. XLA fuses such a
  chain into one kernel that keeps its partial sums in registers, which is what makes the
  solver fast at large batches. Measured at batch 1024: a pairwise tree over the rows, or
  the products formed as one array first, makes XLA materialise them and runs 3-4x slower.
  ``product_sum`` slices pre-broadcast operands (three traced operations a term, where
  indexing row by row took seven to eleven): the same kernels bit for bit in fewer jaxpr
  equations, which shortens JAX's tracing, a large part of the compile time. (Slicing
  ``matvec``'s and ``dot``'s operands along their last axis the same way changed XLA's
  fusion, hence the results' last bits, so those two index entry by entry as before.)
- The 9 x 9 Cholesky factorisation and triangular solves work column by column on whole
  columns (a few array operations per column) instead of entry by entry: the scalar version
  traced into thousands of tiny operations, each its own XLA kernel, and took most of a
  30-second compile. They are unrolled: as rolled ``fori_loop``s they compiled to 100
  distinct kernels instead of 157 (XLA compiles identical fused kernels once, so the three
  factorisations of one step share theirs), but ran a batch of 1 ~4x and of 64 ~2.5x slower,
  since each loop iteration launches its few small kernels one by one.
- ``tree_sum`` adds a few stacked arrays (per-body terms) as a fixed pairwise tree.
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


def tree_sum(x: jax.Array) -> jax.Array:
    """The sum of ``x`` over axis 0 as a fixed pairwise tree: ``x[:h] + x[h:2h]`` with
    ``h = len // 2`` (an odd last entry is carried to the next level), until one is left."""
    while x.shape[0] > 1:
        half = x.shape[0] // 2
        pairs = x[:half] + x[half:2 * half]
        x = jnp.concatenate([pairs, x[2 * half:]]) if x.shape[0] % 2 else pairs
    return x[0]


def _rows(x: jax.Array) -> list[jax.Array]:
    """The slices ``x[i:i + 1]`` of ``x`` along axis 0."""
    return [jax.lax.slice_in_dim(x, i, i + 1) for i in range(x.shape[0])]


def product_sum(a: jax.Array, b: jax.Array) -> jax.Array:
    """``a[0] * b[0] + a[1] * b[1] + ...`` for ``a`` and ``b`` broadcast to one shape, left to
    right: each product is formed from the two slices and added in turn, so that it is fused
    with its add (three operations per term)."""
    a, b = jnp.broadcast_arrays(a, b)
    return ordered_sum(x * y for x, y in zip(_rows(a), _rows(b)))[0]


def dot(a: jax.Array, b: jax.Array) -> jax.Array:
    """``sum_k a[..., k] * b[..., k]``."""
    return ordered_sum(a[..., k] * b[..., k] for k in range(a.shape[-1]))


def matvec(a: jax.Array, x: jax.Array) -> jax.Array:
    """``a @ x`` for ``a[m, n]``, ``x[n]``."""
    return ordered_sum(a[:, k] * x[k] for k in range(a.shape[1]))


def rmatvec(a: jax.Array, y: jax.Array) -> jax.Array:
    """``a.T @ y`` for ``a[m, n]``, ``y[m]``."""
    return product_sum(a, y[:, None])


def gram(a: jax.Array, w: jax.Array) -> jax.Array:
    """``a.T @ diag(w) @ a`` for ``a[m, n]``, ``w[m]``: the sum over ``i`` of
    ``(w_i a_i) a_i'``."""
    return product_sum((w[:, None] * a)[:, :, None], a[:, None, :])


def select_sum(table: np.ndarray, values: jax.Array) -> jax.Array:
    """``table @ values`` for a constant 0/1 ``table[m, n]``: each row's selected entries of
    ``values[n, ...]`` added in index order (rows with none give 0)."""
    rows = []
    for row in np.asarray(table, bool):
        picked = [values[j] for j in np.nonzero(row)[0]]
        rows.append(ordered_sum(picked) if picked else jnp.zeros_like(values[0]))
    return jnp.stack(rows)


def cholesky(a: jax.Array) -> jax.Array:
    """The lower Cholesky factor ``l[n, n]`` of a symmetric positive definite ``a[n, n]``.

    Column by column (right-looking): column ``j`` of ``l`` is the trailing matrix's column
    ``j`` over the square root of its diagonal entry, and the trailing matrix then loses that
    column's outer product. Entry ``(i, j)`` is thus ``a_ij - l_i0 l_j0 - l_i1 l_j1 - ...`` in
    that order, as in the textbook scalar loop.
    """
    n = a.shape[0]
    index = np.arange(n)
    columns = []
    for j in range(n):
        diag = jnp.sqrt(a[j, j])
        column = jnp.where(index > j, a[:, j] / diag, jnp.where(index == j, diag, 0))
        columns.append(column)
        a = a - column[:, None] * column[None, :]
    return jnp.stack(columns, axis=1)


def cho_solve(l: jax.Array, b: jax.Array) -> jax.Array:
    """Solve ``L L' x = b`` with ``l`` from ``cholesky``: forward, then back substitution,
    each unknown's contribution removed from the right-hand side as a whole column."""
    n = l.shape[0]
    y = []
    for i in range(n):
        y.append(b[i] / l[i, i])
        b = b - l[:, i] * y[i]  # rows <= i are done (l is lower triangular)
    rhs = jnp.stack(y)
    x: list[jax.Array] = [None] * n  # type: ignore[list-item]
    for i in reversed(range(n)):
        x[i] = rhs[i] / l[i, i]
        rhs = rhs - l[i, :] * x[i]  # row i of l reaches the unknowns before i
    return jnp.stack(x)


@jax.jit
def solve_spd(a: jax.Array, b: jax.Array) -> jax.Array:
    """``a^-1 b`` for symmetric positive definite ``a``.

    Jitted so that JAX traces (and batches) it once for the three solves of a physics step
    rather than once per call; XLA inlines it, so the compiled step is the same."""
    return cho_solve(cholesky(a), b)
