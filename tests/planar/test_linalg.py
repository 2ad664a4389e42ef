"""``linalg.solve_spd`` solves each system the same, bit for bit, whatever the batch: float32,
systems of 3 to 12 unknowns (the padding of those below ``MIN_SIZE`` is what makes 5 to 8
agree), batches of 1, 2, 3 and 7 against the same systems in a batch of 64."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxenvs._src.planar import linalg


@pytest.mark.parametrize("size", range(3, 13))
def test_solves_do_not_depend_on_the_batch(size):
    rng = np.random.default_rng(size)
    a = rng.normal(size=(64, size, size))
    a = jnp.asarray(a @ a.transpose(0, 2, 1) + size * np.eye(size), jnp.float32)
    b = jnp.asarray(rng.normal(size=(64, size)), jnp.float32)
    solve = jax.jit(jax.vmap(linalg.solve_spd))
    full = np.asarray(solve(a, b))
    np.testing.assert_allclose(np.einsum("nij,nj->ni", np.asarray(a, np.float64), full), b,
                               rtol=1e-3, atol=1e-3)  # it is the solution
    for batch in (1, 2, 3, 7):
        for start in range(0, 64 - batch, 9):
            part = np.asarray(solve(a[start:start + batch], b[start:start + batch]))
            np.testing.assert_array_equal(part, full[start:start + batch])
