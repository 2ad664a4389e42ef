"""Lock-step agreement of the JAX engine with the reference engine, over many games.

Game ``g`` of a run: the ordered sample-deck pairing ``PAIRS[g % 36]`` (or, ``--decks
meta``, an ordered pairing of the meta decks, ``meta_games``; ``--decks random``, two random
legal decks, ``random_deck_games``), game seed ``seed + g`` (the JAX
stream of ``rng.py``, in both engines), and both players random: the reference's
``RandomPolicy`` (``MixedPolicy`` for the other decks) drawing from
``PythonRandomSource(policy_seed(g, p))``. The
reference plays every game first and records its actions and, after every decision (and
after ``new_game``), a 64-bit digest of its whole state (converted by ``convert.from_game``),
its legal-action mask and its rewards. The JAX engine then replays all games at once (its own
``new_game``, then the recorded actions, every game one step per call of a jitted ``vmap`` of
``engine.step``, by default in the form the environments run on a CPU, ``FORMS``) and computes
the same digest of its own state, mask and rewards after every step. Any difference in any
field at any step changes the digest (two independent random 32-bit weighted sums; a collision
would also have to repeat at every later step). ``first_divergence`` then replays the game in
both engines step by step and names the first differing fields, with the reference's log around
that step.

The reference draws the JAX stream from answers precomputed in one batched JAX call
(``PrecomputedJaxSource``, equal to ``rng.JaxKeyRandomSource`` call for call, which the tests
check), since eager JAX calls would dominate the run time.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import time
from collections import Counter
from dataclasses import dataclass, field

import jax
import jax.numpy as jnp
import numpy as np

from jaxenvs._src.loop_vmap import loop_vmap
from jaxenvs.tcgjax._src import engine
from jaxenvs.tcgjax._src.state import GameState, rewards
from jaxenvs.tcgjax import actions as A
from jaxenvs.tcgjax.cards import (Deck, DeckError, card, line_of, meta_decks, playable_cards,
                                  random_deck, sample_decks)
from jaxenvs.tcgjax.effects import EFFECTS, normalize_text
from jaxenvs.tcgjax.constants import RuleOptions
from jaxenvs.tcgjax.reference import convert
from jaxenvs.tcgjax.reference.policies import MixedPolicy, RandomPolicy
from jaxenvs.tcgjax.reference.rules import action_mask, new_game, step
from jaxenvs.tcgjax.rng import PERMUTATION_SIZE, JaxKeyRandomSource, PythonRandomSource

DECK_NAMES = tuple(sorted(sample_decks()))
PAIRS = list(itertools.product(range(len(DECK_NAMES)), repeat=2))
#: Random calls precomputed per game; later calls are computed eagerly.
PRECOMPUTED_CALLS = 256
_MAX_N = PERMUTATION_SIZE


@jax.jit
def _answers(seeds):
    """Per seed and call k < PRECOMPUTED_CALLS: the coin, randint(n) for n = 1..20, and the
    permutation of 20, exactly as ``JaxKeyRandomSource`` computes them."""
    def one(seed, k):
        sub = jax.random.fold_in(jax.random.key(seed), k)
        ints = jax.vmap(lambda n: engine.uniform_below(sub, n))(jnp.arange(1, _MAX_N + 1))
        return (jax.random.bernoulli(sub, 0.5), ints,
                jax.random.permutation(sub, PERMUTATION_SIZE))

    calls = jnp.arange(PRECOMPUTED_CALLS)
    return jax.vmap(lambda s: jax.vmap(lambda k: one(s, k))(calls))(seeds)


class PrecomputedJaxSource(JaxKeyRandomSource):
    """``JaxKeyRandomSource(seed)``, answering its first calls from precomputed arrays."""

    def __init__(self, seed: int, coins: np.ndarray, ints: np.ndarray, perms: np.ndarray):
        super().__init__(seed)
        self._coins, self._ints, self._perms = coins, ints, perms

    def coin(self) -> bool:
        if self.counter >= len(self._coins):
            return super().coin()
        self.counter += 1
        return bool(self._coins[self.counter - 1])

    def randint(self, n: int) -> int:
        if self.counter >= len(self._coins) or not 1 <= n <= _MAX_N:
            return super().randint(n)
        self.counter += 1
        return int(self._ints[self.counter - 1, n - 1])

    def permutation(self, n: int) -> list[int]:
        if self.counter >= len(self._coins) or not 0 <= n <= PERMUTATION_SIZE:
            return super().permutation(n)
        self.counter += 1
        return [int(p) for p in self._perms[self.counter - 1] if p < n]


def sources(seeds) -> list[PrecomputedJaxSource]:
    coins, ints, perms = (np.asarray(x) for x in _answers(jnp.asarray(seeds, jnp.uint32)))
    return [PrecomputedJaxSource(int(s), coins[i], ints[i], perms[i])
            for i, s in enumerate(seeds)]


def policy_seed(g: int, p: int) -> int:
    return 10**6 + 2 * g + p


_W = np.random.default_rng(20261129).integers(0, 2**32, size=(2, 4096), dtype=np.uint64)


def _digest_vector(state: GameState, mask, reward, xp):
    leaves = [xp.ravel(x).astype(xp.int32) for x in jax.tree.leaves(state)]
    return xp.concatenate(leaves + [xp.ravel(mask).astype(xp.int32),
                                    xp.ravel(reward).astype(xp.int32)]).astype(xp.uint32)


def digest(state: GameState, mask, reward, xp=np):
    """uint32[2]: two weighted sums (mod 2**32) of every field, the mask and the rewards."""
    v = _digest_vector(state, mask, reward, xp)
    w = xp.asarray(_W[:, :v.shape[0]].astype(np.uint32))
    return xp.sum(v[None, :] * w, axis=1, dtype=xp.uint32)


@dataclass
class ReferenceRun:
    """The reference's games: per game its seed, decks (``Deck`` pair and sample-deck indices,
    -1 for other decks), actions and digests (after new_game, then after each action); all
    played by ``options``."""

    seeds: list[int]
    decks: list[tuple[Deck, Deck]]
    deck_ids: list[tuple[int, int]]
    actions: list[list[int]]
    digests: list[np.ndarray]
    outcomes: list[int | None]
    options: RuleOptions = RuleOptions()
    used: Counter = field(default_factory=Counter)
    """Per implemented effect text (normalized), how often the games used it: an attack,
    Trainer or ability with that text played (a Confused attack that fails included)."""


def sample_games(num_games: int, seed: int = 0) -> tuple[list[int], list, list]:
    """(seeds, deck pairs, deck ids): game g plays pairing ``PAIRS[g % 36]`` with seed
    ``seed + g``."""
    decks = [sample_decks()[n] for n in DECK_NAMES]
    pairs = [PAIRS[g % len(PAIRS)] for g in range(num_games)]
    return ([seed + g for g in range(num_games)], [(decks[a], decks[b]) for a, b in pairs],
            pairs)


def meta_games(num_games: int, seed: int = 0) -> tuple[list[int], list, list]:
    """(seeds, deck pairs, deck ids): game g plays the ordered pairing ``g % n**2`` of the
    ``n`` meta decks (``cards.meta_decks``, in id order) with seed ``seed + g``; deck ids -1
    (not sample decks)."""
    decks = [meta_decks()[n] for n in sorted(meta_decks())]
    pairs = list(itertools.product(decks, repeat=2))
    return ([seed + g for g in range(num_games)],
            [pairs[g % len(pairs)] for g in range(num_games)], [(-1, -1)] * num_games)


@functools.cache
def featured_cards() -> tuple[str, ...]:
    """The playable cards with an effect text whose line can be built (``cards.line_of``)."""
    out = []
    for c in playable_cards():
        if any(a.text for a in c.attacks) or c.ability_text or c.trainer_text:
            try:
                line_of(c.id)
            except DeckError:
                continue
            out.append(c.id)
    return tuple(out)


def featured_texts() -> set[str]:
    """The effect texts (normalized) of ``featured_cards``: those a legal deck can play."""
    return {normalize_text(t) for i in featured_cards() for c in [card(i)]
            for t in [a.text for a in c.attacks] + [c.ability_text, c.trainer_text] if t}


def random_deck_games(num_games: int, seed: int = 0) -> tuple[list[int], list, list]:
    """(seeds, deck pairs, deck ids): game g, seed ``s = seed + g``, plays
    ``random_deck(2 s, featuring=F[s % n])`` against ``random_deck(2 s + 1,
    featuring=F[(s + n // 2) % n])``, F the ``featured_cards`` (n of them), so that every
    ``n`` games feature every card with a text twice; deck ids -1 (not sample decks)."""
    cards = featured_cards()
    n = len(cards)
    seeds = [seed + g for g in range(num_games)]
    return (seeds, [(random_deck(2 * s, cards[s % n]), random_deck(2 * s + 1,
                                                                   cards[(s + n // 2) % n]))
                    for s in seeds], [(-1, -1)] * num_games)


#: The games ``check`` plays, by name: their decks and the players' policy (meta and random
#: decks: ``MixedPolicy``, so that their evolutions and attacks get played).
GAMES = {"sample": (sample_games, RandomPolicy), "meta": (meta_games, MixedPolicy),
         "random": (random_deck_games, MixedPolicy)}


def used_text(game, action: int) -> str | None:
    """The normalized effect text ``action`` uses in ``game``, if it uses one."""
    kind, index, slot = A.decode(action)
    me = game.players[game.current_player]
    if kind == "attack":
        text = me.active.card.attacks[index].text
    elif kind in ("play", "play_on") and not me.hand[index].is_pokemon:
        text = me.hand[index].trainer_text
    elif kind == "ability":
        text = me.slots[slot].card.ability_text
    else:
        return None
    return normalize_text(text) if text else None


def reference_run(seeds, decks, deck_ids, options: RuleOptions = RuleOptions(),
                  policy=RandomPolicy) -> ReferenceRun:
    """Play each game in the reference by ``options`` (both players ``policy`` of
    ``PythonRandomSource(policy_seed(g, p))``), recording digests."""
    run = ReferenceRun(list(seeds), list(decks), list(deck_ids), [], [], [], options)
    for g, src in enumerate(sources(seeds)):
        policies = [policy(PythonRandomSource(policy_seed(g, p))) for p in (0, 1)]
        game = new_game(*decks[g], src, options)
        actions, digests = [], []

        def record():
            digests.append(digest(convert.from_game(game, deck_ids[g]),
                                  np.array(action_mask(game)), np.array(game.rewards())))

        record()
        while not game.over:
            actions.append(policies[game.current_player](game))
            run.used[used_text(game, actions[-1])] += 1
            step(game, actions[-1])
            record()
        run.actions.append(actions)
        run.digests.append(np.stack(digests))
        run.outcomes.append(game.winner)
    del run.used[None]
    return run


def observe(state: GameState):
    """The digest of a JAX state, its legal-action mask and its rewards."""
    return digest(state, engine.legal_action_mask(state), rewards(state), jnp)


@functools.partial(jax.jit, static_argnames="options")
def batch_new_game(seeds, cards, types, num_types, deck_ids, options=RuleOptions()):
    """(states, digests) of new games by ``options``; per game its seed and
    ``engine.deck_arrays`` of both decks (stacked) and deck ids."""
    states = jax.vmap(lambda s, c, t, n, i: engine.new_game(jax.random.key(s), c, t, n, i,
                                                            options))(
        seeds, cards, types, num_types, deck_ids)
    return states, jax.vmap(observe)(states)


#: The two forms of a batched step: ``"loop"``, each game's step run alone, one after the
#: other, as the environments run them on a CPU (``jaxenvs._src.cpu_kernels.loop_vmap``: the
#: rules as real branches, and the env-by-env form of each ``branches.by_batching``);
#: ``"vmap"``, every branch for every game and selected, the vectorized forms (as on a GPU).
FORMS = ("loop", "vmap")


def _step_and_digest(state, action, seed):
    new = engine.step(state, jnp.maximum(action, 0), jax.random.key(seed))
    new = engine.tree_select(action >= 0, new, state)
    return new, observe(new)


@functools.partial(jax.jit, static_argnames="form")
def batch_step(states, actions, seeds, form: str = "loop"):
    """(states, digests) after one step of each game (action -1: the game stays as it is), in
    ``form`` (``FORMS``)."""
    if form not in FORMS:
        raise ValueError(f"form must be one of {FORMS}, got {form!r}")
    go = loop_vmap(_step_and_digest) if form == "loop" else _step_and_digest
    return jax.vmap(go)(states, actions, seeds)


def deck_batch(decks, deck_ids):
    arrays = [[engine.deck_arrays(d) for d in pair] for pair in decks]
    return (np.array([[a[0] for a in pair] for pair in arrays]),
            np.array([[a[1] for a in pair] for pair in arrays]),
            np.array([[a[2] for a in pair] for pair in arrays], np.int32),
            np.asarray(deck_ids, np.int32))


def pad_games(x: np.ndarray, size: int) -> np.ndarray:
    """``x`` with its first axis padded to ``size`` by repeating its first entry (so batches
    of different sizes share one compiled program)."""
    return np.concatenate([x, np.repeat(x[:1], size - len(x), axis=0)])


def jax_digests(run: ReferenceRun, batch: int | None = None, form: str = "loop") -> np.ndarray:
    """uint32[T + 1, G, 2]: the JAX engine's digests for the recorded actions, all games in
    lock-step (``batch``: pad the games to this many; ``form``: ``batch_step``'s)."""
    games = len(run.seeds)
    size = max(games, batch or 0)
    steps = max(len(a) for a in run.actions)
    actions = np.full((steps, games), -1, np.int32)
    for g, acts in enumerate(run.actions):
        actions[:len(acts), g] = acts
    seeds = pad_games(np.asarray(run.seeds, np.uint32), size)
    states, first = batch_new_game(seeds, *(pad_games(x, size) for x in
                                            deck_batch(run.decks, run.deck_ids)),
                                   options=run.options)
    out = [np.asarray(first)]
    for t in range(steps):
        states, d = batch_step(states, pad_games(actions[t], size), seeds, form)
        out.append(np.asarray(d))
    return np.stack(out)[:, :games]


def disagreements(run: ReferenceRun, digests: np.ndarray) -> list[tuple[int, int]]:
    """(game, first differing step) for every game where the engines differ (step 0 is the
    state after new_game, step t the state after action t)."""
    out = []
    for g, ref in enumerate(run.digests):
        bad = np.flatnonzero(np.any(digests[:len(ref), g] != ref, axis=1))
        if len(bad):
            out.append((g, int(bad[0])))
    return out


def first_divergence(run: ReferenceRun, g: int, batch: int = 1, form: str = "loop") -> str:
    """Replay game ``g`` in both engines step by step; describe the first difference: the step,
    each differing field with both values, and the reference's log around it. (The JAX side
    runs as entry 0 of a batch of ``batch``, to reuse a compiled ``batch_step``.)"""
    seed, actions = run.seeds[g], run.actions[g]
    game = new_game(*run.decks[g], JaxKeyRandomSource(seed), run.options)
    seeds = np.full(batch, seed, np.uint32)
    decks = (np.repeat(x, batch, axis=0) for x in deck_batch([run.decks[g]], [run.deck_ids[g]]))
    states, _ = batch_new_game(seeds, *decks, options=run.options)
    for t in range(len(actions) + 1):
        state = jax.tree.map(lambda x: x[0], states)
        ref, got = game.to_dict(), convert.to_dict(state)
        ref_mask = np.array(action_mask(game))
        got_mask = np.asarray(jax.jit(engine.legal_action_mask)(state))
        diffs = [f"  {k}: reference {ref[k]!r}\n  {' ' * len(k)}  jax       {got[k]!r}"
                 for k in ref if ref[k] != got[k]]
        if not np.array_equal(ref_mask, got_mask):
            diffs.append(f"  legal actions: reference {np.flatnonzero(ref_mask).tolist()}, "
                         f"jax {np.flatnonzero(got_mask).tolist()}")
        if diffs:
            where = "after new_game" if t == 0 else f"after action {t} ({actions[t - 1]})"
            log = "\n".join(game.log[-12:])
            names = " vs ".join(d.name for d in run.decks[g])
            return (f"game {g} (seed {seed}, decks {names}) first differs {where}:\n"
                    + "\n".join(diffs) + f"\nreference log before it:\n{log}")
        if t < len(actions):
            step(game, actions[t])
            states, _ = batch_step(states, np.full(batch, actions[t], np.int32), seeds, form)
    return f"game {g}: no difference found in a step-by-step replay"


def check(num_games: int, seed: int = 0, batch: int | None = None, form: str = "loop",
          options: RuleOptions = RuleOptions(), decks: str = "sample"
          ) -> tuple[ReferenceRun, list[tuple[int, int]]]:
    """Run ``num_games`` games of ``decks`` (``GAMES``: the sample or meta decks' pairings, or
    random legal decks) by ``options`` in both engines (the JAX one in ``form``, ``batch_step``'s);
    the reference run and the disagreeing games."""
    if decks not in GAMES:
        raise ValueError(f"decks must be one of {sorted(GAMES)}, got {decks!r}")
    games, policy = GAMES[decks]
    run = reference_run(*games(num_games, seed), options, policy)
    return run, disagreements(run, jax_digests(run, batch, form))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=720)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--form", choices=FORMS, default="loop",
                        help="the JAX engine's batched form (batch_step)")
    parser.add_argument("--decks", choices=sorted(GAMES), default="sample",
                        help="the sample or meta decks' pairings, or random legal decks of "
                             "every implemented card")
    parser.add_argument("--turn-limit", type=int, default=RuleOptions.turn_limit)
    parser.add_argument("--no-first-turn-draw", action="store_true",
                        help="the first player does not draw on turn 1")
    parser.add_argument("--no-first-turn-supporter", action="store_true",
                        help="no Supporter on turn 1")
    args = parser.parse_args()
    if args.turn_limit < 1:
        parser.error(f"--turn-limit must be at least 1, got {args.turn_limit}")
    options = RuleOptions(args.turn_limit, not args.no_first_turn_draw,
                          not args.no_first_turn_supporter)
    start = time.perf_counter()
    games, policy = GAMES[args.decks]
    run = reference_run(*games(args.games, args.seed), options, policy)
    mid = time.perf_counter()
    bad = disagreements(run, jax_digests(run, form=args.form))
    end = time.perf_counter()
    steps = sum(len(a) for a in run.actions)
    print(f"{args.games} games, {steps} decisions: reference {mid - start:.1f} s, "
          f"JAX {end - mid:.1f} s (compile included); {len(bad)} games differ")
    unused = sorted(set(EFFECTS) - set(run.used))
    print(f"{len(run.used)} of {len(EFFECTS)} effect texts used ({len(featured_texts())} can be "
          f"in a legal deck); uses per text:")
    for text, n in run.used.most_common():
        print(f"  {n:8d}  {text}")
    if unused:
        print("never used:\n  " + "\n  ".join(unused))
    if bad:
        print(first_divergence(run, bad[0][0], len(run.seeds), args.form))


if __name__ == "__main__":
    main()
