"""Random sources: where the engines take every random decision.

The engine never draws randomness itself. It calls a source through three methods, in an order
fixed by ``RULES.md`` (section "Random decisions"):

* ``coin() -> bool``: a fair coin, True is heads;
* ``randint(n) -> int``: uniform in ``0..n-1`` (``n >= 1``; called even when ``n == 1``);
* ``permutation(n) -> list[int]``: a uniform permutation of ``0..n-1`` (``0 <= n <= 20``); a list
  ``xs`` is shuffled as ``[xs[p] for p in permutation(len(xs))]``.

The JAX stream (:class:`JaxKeyRandomSource`) is the definition the JAX engine reproduces: call
number ``k`` (0, 1, 2, ... counted over all three methods since the game started) uses
``sub = jax.random.fold_in(key, k)`` and

* coin: ``jax.random.bernoulli(sub, 0.5)`` (shape ``()``);
* randint(n): ``(hi * 2**32 + lo) % n``, where ``hi, lo`` are the two words of
  ``jax.random.key_data(sub)`` (one hash per call; ``jax.random.randint`` would hash four
  times more);
* permutation(n): ``perm = jax.random.permutation(sub, 20)`` (int32[20]), then the entries
  ``< n`` in their order (the restriction of a uniform permutation of 20 is uniform, and this
  keeps the JAX shapes static).

``key`` is ``jax.random.key(seed)`` (threefry). The JAX engine keeps the counter ``k`` in its
state; both engines then make the same calls in the same order and get the same answers (the
engine computes them with the threefry hash unrolled, ``jaxenvs._src.keys.fast_key``: the same
bits).
"""

from __future__ import annotations

import random
from typing import Protocol

#: permutation() draws a permutation of this many entries and keeps those below n.
PERMUTATION_SIZE = 20


class RandomSource(Protocol):
    """What the engine needs from a random source."""

    def coin(self) -> bool: ...

    def randint(self, n: int) -> int: ...

    def permutation(self, n: int) -> list[int]: ...


class JaxKeyRandomSource:
    """The JAX-reproducible stream: call ``k`` uses ``jax.random.fold_in(key, k)`` (see above).

    Eager jax.random calls on CPU, about a millisecond each: use it for agreement checks, and
    :class:`PythonRandomSource` where only a seeded stream is needed.
    """

    def __init__(self, seed: int):
        import jax

        self._jax = jax
        self.key = jax.random.key(seed)
        self.counter = 0

    def _next(self):
        sub = self._jax.random.fold_in(self.key, self.counter)
        self.counter += 1
        return sub

    def coin(self) -> bool:
        return bool(self._jax.random.bernoulli(self._next(), 0.5))

    def randint(self, n: int) -> int:
        _check_n(n)
        hi, lo = (int(w) for w in self._jax.random.key_data(self._next()))
        return (hi << 32 | lo) % n

    def permutation(self, n: int) -> list[int]:
        _check_n(n, PERMUTATION_SIZE)
        perm = self._jax.random.permutation(self._next(), PERMUTATION_SIZE)
        return [int(p) for p in perm if p < n]


class PythonRandomSource:
    """A seeded pure-Python stream (``random.Random``); fast, not the JAX stream."""

    def __init__(self, seed: int):
        self._random = random.Random(seed)
        self.counter = 0

    def coin(self) -> bool:
        self.counter += 1
        return self._random.random() < 0.5

    def randint(self, n: int) -> int:
        _check_n(n)
        self.counter += 1
        return self._random.randrange(n)

    def permutation(self, n: int) -> list[int]:
        _check_n(n, PERMUTATION_SIZE)
        self.counter += 1
        perm = list(range(n))
        self._random.shuffle(perm)
        return perm


class ScriptedRandomSource:
    """Answers given in advance, for hand-built test positions.

    ``coins``, ``ints`` and ``perms`` are consumed in order by the matching method; a call with
    no scripted answer left raises ``AssertionError``, so a test also pins how many random
    decisions a rule takes. ``perms`` default to the identity when ``identity_perms``.
    """

    def __init__(self, coins=(), ints=(), perms=(), identity_perms: bool = False):
        self.coins = list(coins)
        self.ints = list(ints)
        self.perms = [list(p) for p in perms]
        self.identity_perms = identity_perms
        self.calls: list[tuple[str, int, object]] = []

    def coin(self) -> bool:
        assert self.coins, "unexpected coin flip"
        result = bool(self.coins.pop(0))
        self.calls.append(("coin", 2, result))
        return result

    def randint(self, n: int) -> int:
        _check_n(n)
        assert self.ints, f"unexpected randint({n})"
        result = self.ints.pop(0)
        assert 0 <= result < n, f"scripted randint answer {result} not in 0..{n - 1}"
        self.calls.append(("randint", n, result))
        return result

    def permutation(self, n: int) -> list[int]:
        _check_n(n, PERMUTATION_SIZE)
        if not self.perms and self.identity_perms:
            result = list(range(n))
        else:
            assert self.perms, f"unexpected permutation({n})"
            result = self.perms.pop(0)
            assert sorted(result) == list(range(n)), f"scripted {result} is no permutation of {n}"
        self.calls.append(("permutation", n, result))
        return result


class RecordingRandomSource:
    """Wraps a source and records every call as ``(method, n, result)`` (n = 2 for coins).

    The record replays the same game through ``ScriptedRandomSource`` and lets two engines be
    compared call by call.
    """

    def __init__(self, source: RandomSource):
        self.source = source
        self.calls: list[tuple[str, int, object]] = []

    def coin(self) -> bool:
        result = self.source.coin()
        self.calls.append(("coin", 2, result))
        return result

    def randint(self, n: int) -> int:
        result = self.source.randint(n)
        self.calls.append(("randint", n, result))
        return result

    def permutation(self, n: int) -> list[int]:
        result = self.source.permutation(n)
        self.calls.append(("permutation", n, result))
        return result


def _check_n(n: int, most: int | None = None) -> None:
    if n < (1 if most is None else 0) or (most is not None and n > most):
        raise ValueError(f"random source called with n={n}")
