"""L1: the JAX Gen 5 LCG against Showdown's own PRNG, run in Node.

Exact equality (integers) on every output of mixed call sequences from many random seeds,
under ``jit`` and under ``vmap`` over seeds.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxenvs.pokejax._src import prng


def test_spec_values(showdown):
    """The spec's check values, in both engines."""
    assert showdown.prng_stream([1, 2, 3, 4], [("next",)] * 2)[0] == 2030470262
    assert showdown.prng_stream([1, 2, 3, 4], [("random", 256)] * 2) == [121, 226]
    s = prng.seed([1, 2, 3, 4])
    s, r = prng.next(s)
    assert int(r) == 2030470262
    s = prng.seed([1, 2, 3, 4])
    s, a = prng.random(s, 256)
    s, b = prng.random(s, 256)
    assert (int(a), int(b)) == (121, 226)


def _seeds(rng, k):
    seeds = rng.integers(0, 1 << 16, size=(k, 4)).tolist()
    return [[0, 0, 0, 0], [65535] * 4] + seeds


def test_raw_outputs_and_state(showdown):
    """200 raw outputs per seed from 20 seeds; the state after them equals Showdown's seed."""
    seeds = _seeds(np.random.default_rng(0), 18)
    want = np.array([showdown.prng_stream(s, [("next",)] * 200) for s in seeds], dtype=np.uint32)

    @jax.jit
    @jax.vmap
    def stream(state):
        return jax.lax.scan(lambda s, _: prng.next(s), state, None, length=200)

    states, got = stream(jnp.stack([prng.seed(s) for s in seeds]))
    np.testing.assert_array_equal(np.asarray(got), want)
    # the next output from the final state is output 201
    want201 = [showdown.prng_stream(s, [("next",)] * 201)[-1] for s in seeds[:3]]
    assert [int(prng.next(st)[1]) for st in states[:3]] == want201


def _mixed_calls(rng, count):
    """A random mix of calls with bounds from 1 to 2**32 - 1 and ranges of every size."""
    calls = []
    for _ in range(count):
        kind = rng.integers(5)
        if kind == 0:
            n = int(rng.choice([1, 2, 3, 6, 16, 100, 256, 65536, 2**31, 2**32 - 1,
                                 rng.integers(1, 2**32)]))
            calls.append(("random", n))
        elif kind == 1:
            m = int(rng.integers(0, 300))
            calls.append(("random", m, m + int(rng.integers(1, 300))))
        elif kind == 2:
            b = int(rng.choice([2, 3, 4, 10, 100, 256]))
            calls.append(("randomChance", int(rng.integers(0, b + 1)), b))
        elif kind == 3:
            calls.append(("sample", int(rng.integers(1, 7))))
        else:
            n = int(rng.integers(1, 7))
            start = int(rng.integers(0, n))
            calls.append(("shuffle", n, start, int(rng.integers(start, n + 1))))
    return calls


_random1 = jax.jit(lambda s, n: prng.random(s, n))
_random2 = jax.jit(lambda s, m, n: prng.random(s, m, n))
_chance = jax.jit(prng.random_chance)
_sample = jax.jit(prng.sample)
_shuffle = jax.jit(prng.shuffle, static_argnums=())


def _run_jax(state, calls):
    """The calls in JAX, bounds passed as traced uint32 (one compile per call kind)."""
    out = []
    for fn, *args in calls:
        args = [np.uint32(a) for a in args]
        if fn == "random":
            state, r = (_random1 if len(args) == 1 else _random2)(state, *args)
            out.append(int(r))
        elif fn == "randomChance":
            state, r = _chance(state, *args)
            out.append(bool(r))
        elif fn == "sample":
            state, r = _sample(state, *args)
            out.append(int(r))
        else:
            n, start, end = (int(a) for a in args)
            state, items = _shuffle(state, jnp.arange(n, dtype=jnp.int32), start, end)
            out.append(np.asarray(items).tolist())
    return out


@pytest.mark.parametrize("case", range(4))
def test_mixed_calls(showdown, case):
    """Sequences of 60 random/randomChance/sample/shuffle calls give Showdown's results."""
    rng = np.random.default_rng(100 + case)
    seed = _seeds(rng, 1)[case % 3]
    calls = _mixed_calls(rng, 60)
    assert _run_jax(prng.seed(seed), calls) == showdown.prng_stream(seed, calls)


def test_shuffle_traced_bounds_vmapped(showdown):
    """``shuffle`` with traced start/end under vmap, against Node, for every (start, end)."""
    n = 6
    bounds = [(s, e) for s in range(n) for e in range(s, n + 1)]
    seed = [4242, 17, 999, 31337]
    want = [showdown.prng_stream(seed, [("shuffle", n, s, e), ("next",)]) for s, e in bounds]
    starts = jnp.array([b[0] for b in bounds])
    ends = jnp.array([b[1] for b in bounds])

    @jax.jit
    @jax.vmap
    def run(start, end):
        state, items = prng.shuffle(prng.seed(seed), jnp.arange(n), start, end)
        return items, prng.next(state)[1]

    items, after = run(starts, ends)
    assert [[row, int(a)] for row, a in zip(np.asarray(items).tolist(), after)] == want


def test_words_roundtrip():
    words = [1, 65535, 0, 4660]
    state = prng.seed(words)
    assert np.asarray(prng.to_words(state)).tolist() == words
    np.testing.assert_array_equal(prng.seed_from_words(jnp.array(words)), state)
    with pytest.raises(ValueError):
        prng.seed([1, 2, 3, 65536])
