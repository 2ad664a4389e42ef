"""Small dense linear algebra written as elementwise arithmetic in a fixed order.

Batch invariance: XLA lowers ``dot``, reductions and LAPACK calls differently for different
batch sizes, so a state's result would change in its last bits with its batch, and chaotic
contacts grow those bits into visible differences. Every sum here is spelled out as adds in an
order fixed by the code, which ``vmap`` turns into the same elementwise kernels for every
element, whatever the batch (on a CPU also faster than batched library calls on 9 x 9).

- Sums over the constraint rows (``matvec``, ``rmatvec``, ``gram``, ``dot``) are chains of
  whole-vector terms, each product formed from slices and added in turn: XLA fuses a chain
  into one kernel that keeps its partial sums in registers, where a pairwise tree, or the
  products formed as one array first, makes XLA materialise them, which is slower at large
  batches. ``product_sum`` slices pre-broadcast operands: the same kernels bit for bit in
  fewer jaxpr equations, which shortens tracing, a large part of the compile time.
  ``matvec`` and ``dot`` index entry by entry: slicing their operands so would change XLA's
  fusion, hence the results' last bits.
- The 9 x 9 Cholesky factorisation and triangular solves work on whole columns (entry by
  entry traces into thousands of tiny kernels and a long compile), unrolled (a rolled loop
  launches each iteration's small kernels one by one, slower at small batches), a block of
  ``BLOCK`` columns (unknowns) at a time: the block's columns are found one after another,
  then the rest of the matrix (right-hand side) is updated by all of them, so that XLA runs a
  block as a few kernels rather than a few per column (figures: docs/halfcheetah.md, Design
  choices).
- ``tree_sum`` adds a few stacked arrays (per-body terms) as a fixed pairwise tree.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

#: Columns (unknowns) per block of the Cholesky factorisation and the triangular solves; 3
#: was the fastest size measured (figures: docs/halfcheetah.md, Design choices).
BLOCK = 3
#: The smallest system ``solve_spd`` solves as it is. XLA:CPU contracts multiplies and adds
#: into fused multiply-adds where it vectorizes, and it vectorizes the solves of 5 to 8
#: unknowns differently for different batch sizes, so their last bits changed with the batch
#: (measured on AVX2 with batches 1 to 64, float32), while those of 3, 4, 9 and 12 did not,
#: nor 5 to 8 padded to 9 or 12.
MIN_SIZE = 9


def ordered_reduce(op, terms) -> jax.Array:
    """``op(op(terms[0], terms[1]), terms[2])...``, left to right: a reduction as a chain of
    elementwise operations, which XLA neither reorders nor hands to a library (a reduction in
    an XLA:CPU kernel can fail to compile there; ``jaxenvs._src.cpu_kernels.kernel``)."""
    terms = list(terms)
    total = terms[0]
    for term in terms[1:]:
        total = op(total, term)
    return total


def ordered_sum(terms) -> jax.Array:
    """``terms[0] + terms[1] + ...``, left to right."""
    return ordered_reduce(jnp.add, terms)


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


def _blocks(n: int) -> list[range]:
    """``range(n)`` in consecutive blocks of ``BLOCK``."""
    return [range(start, min(start + BLOCK, n)) for start in range(0, n, BLOCK)]


def cholesky(a: jax.Array) -> jax.Array:
    """The lower Cholesky factor ``l[n, n]`` of a symmetric positive definite ``a[n, n]``.

    Column by column (right-looking): column ``j`` of ``l`` is the trailing matrix's column
    ``j`` over the square root of its diagonal entry, and the trailing matrix then loses that
    column's outer product. Within a block, column ``j`` first loses the block's earlier
    columns' contributions; after the block, the whole matrix loses them all, in the same
    order. Entry ``(i, j)`` is thus ``a_ij - l_i0 l_j0 - l_i1 l_j1 - ...`` in that order, as in
    the textbook scalar loop.
    """
    index = np.arange(a.shape[0])
    columns = []
    for block in _blocks(a.shape[0]):
        done = []
        for j in block:
            column = a[:, j]
            for earlier in done:
                column = column - earlier * earlier[j]
            diag = jnp.sqrt(column[j])
            done.append(jnp.where(index > j, column / diag, jnp.where(index == j, diag, 0)))
        for column in done:
            a = a - column[:, None] * column[None, :]
        columns += done
    return jnp.stack(columns, axis=1)


def cho_solve(l: jax.Array, b: jax.Array) -> jax.Array:
    """Solve ``L L' x = b`` with ``l`` from ``cholesky``: forward, then back substitution.

    Each unknown is its right-hand side entry, less the contributions of the unknowns found
    before it, over the diagonal; within a block those are removed from the entry one by one,
    and after the block from the whole right-hand side, in the same order.
    """
    n = l.shape[0]
    y: list[jax.Array] = []
    for block in _blocks(n):
        found = []
        for i in block:
            entry = b[i]
            for k, y_k in zip(block, found):
                entry = entry - l[i, k] * y_k
            found.append(entry / l[i, i])
        for k, y_k in zip(block, found):
            b = b - l[:, k] * y_k  # rows after k (l is lower triangular)
        y += found
    rhs = jnp.stack(y)
    x: list[jax.Array] = [None] * n  # type: ignore[list-item]
    for block in reversed(_blocks(n)):
        for i in reversed(block):
            entry = rhs[i]
            for k in reversed(range(i + 1, block[-1] + 1)):
                entry = entry - l[k, i] * x[k]
            x[i] = entry / l[i, i]
        for k in reversed(block):
            rhs = rhs - l[k, :] * x[k]  # row k of l reaches the unknowns before k
    return jnp.stack(x)


@jax.jit
def solve_spd(a: jax.Array, b: jax.Array) -> jax.Array:
    """``a^-1 b`` for symmetric positive definite ``a``.

    A system smaller than ``MIN_SIZE`` is solved as the top of one of that size, its matrix
    padded with the identity and its right-hand side with zeros: the padding only adds exact
    zeros to the system's own sums, so the arithmetic is the same, but XLA:CPU then compiles
    it the same way whatever the batch (``MIN_SIZE``). The padded matrix is built by
    concatenating blocks: built with ``where`` over a padded copy, XLA fused the selection
    into the factorisation, and jax 0.9's XLA:CPU again contracted it differently per batch.

    Jitted so that JAX traces (and batches) it once for the three solves of a physics step
    rather than once per call; XLA inlines it, so the compiled step is the same."""
    n = a.shape[0]
    if n >= MIN_SIZE:
        return cho_solve(cholesky(a), b)
    extra = MIN_SIZE - n
    padded = jnp.concatenate([
        jnp.concatenate([a, jnp.zeros((n, extra), a.dtype)], axis=1),
        jnp.concatenate([jnp.zeros((extra, n), a.dtype), jnp.eye(extra, dtype=a.dtype)], axis=1)])
    return cho_solve(cholesky(padded), jnp.concatenate([b, jnp.zeros(extra, b.dtype)]))[:n]
