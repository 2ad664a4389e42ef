"""The batch's legal-action draw (``jaxenvs._src.legal_draw``) against the plain definition, in
Python integers: the ``floor(w * count / 2**64)``-th legal action of each mask, in ascending
order."""

from __future__ import annotations

import jax
import numpy as np
import pytest

from jaxenvs._src import legal_draw


def plain_draw(words, mask):
    picks = []
    for (hi, lo), row in zip(words.tolist(), mask):
        legal = np.flatnonzero(row)
        count = max(len(legal), 1)
        n = ((hi << 32) + lo) * count >> 64
        picks.append(int(legal[n]) if len(legal) else 0)
    return np.array(picks)


@pytest.mark.parametrize("num_actions", [1, 5, 68, 129])
def test_uniform_legal_picks_the_drawn_legal_action(num_actions):
    rng = np.random.default_rng(num_actions)
    batch = 2000
    density = rng.random((batch, 1))  # from nearly empty masks to nearly full ones
    mask = rng.random((batch, num_actions)) < density
    mask[:5] = False  # no legal action: action 0
    mask[5:10] = True
    words = rng.integers(0, 2**32, (batch, 2), dtype=np.uint64).astype(np.uint32)
    words[10] = [2**32 - 1, 2**32 - 1]  # the largest draw: the last legal action
    words[11] = [0, 0]
    got = np.asarray(jax.jit(legal_draw.uniform_legal)(words, mask))
    np.testing.assert_array_equal(got, plain_draw(words, mask))


def test_below_is_the_high_word_of_the_64_bit_product():
    rng = np.random.default_rng(0)
    words = rng.integers(0, 2**32, (5000, 2), dtype=np.uint64).astype(np.uint32)
    words[:4] = [[2**32 - 1, 2**32 - 1], [2**32 - 1, 0], [0, 2**32 - 1], [0, 0]]
    count = rng.integers(1, 2**16, 5000).astype(np.uint32)
    count[:4] = 2**16 - 1
    expected = [((hi << 32) + lo) * c >> 64 for (hi, lo), c in zip(words.tolist(), count.tolist())]
    np.testing.assert_array_equal(np.asarray(legal_draw.below(words, count)), expected)


def test_nth_is_the_nth_of_the_ascending_legal_actions():
    """Masks with no, one, some and all actions legal, every n up to one past the last legal
    action (which gives 0): one mask at a time, as an env steps on a CPU (``lax.map``), under
    ``vmap``, and as one batch."""
    rng = np.random.default_rng(0)
    masks = [np.zeros(68, bool), np.ones(68, bool), np.eye(68, dtype=bool)[67],
             np.eye(68, dtype=bool)[31] | np.eye(68, dtype=bool)[32]]
    masks += [rng.random(68) < p for p in (0.05, 0.2, 0.5, 0.9) for _ in range(4)]
    cases = [(m, n) for m in masks for n in range(m.sum() + 1)]
    mask, n = (np.stack(x) for x in zip(*cases))

    def nth(mask, n):
        return legal_draw.nth(legal_draw.legal_words(mask), n)

    want = [np.flatnonzero(m)[n] if n < m.sum() else 0 for m, n in cases]
    np.testing.assert_array_equal(jax.jit(lambda m, n: jax.lax.map(lambda a: nth(*a), (m, n)))(
        mask, n), want)
    np.testing.assert_array_equal(jax.jit(jax.vmap(nth))(mask, n), want)
    np.testing.assert_array_equal(jax.jit(nth)(mask, n), want)
    np.testing.assert_array_equal(legal_draw.legal_words(mask).total, mask.sum(axis=1))


def test_too_many_actions_are_refused():
    with pytest.raises(ValueError, match="at most"):
        legal_draw.uniform_legal(np.zeros((1, 2), np.uint32), np.zeros((1, 2**16), bool))
