"""Measure the JAX engine's random-vs-random decisions per second, next to the reference's.

``python -m jaxenvs.tcgjax.speed --batches 1 64 1024 4096 --steps 256`` runs, per batch size,
``jit(lax.scan(vmap(...)))`` over ``steps`` decisions of ``batch`` games: each decision is a
uniformly random legal action (``observe.random_action``) of the current player, and a game that
ends is replaced by a new one (the deck pairing cycles over the 36 ordered sample pairings).
Every engine ``step`` counts as one decision, as in the reference's measurement
(``reference/speed.py``, run in the same process for the ratio). It prints the compile time
(first call minus a timed second call) and decisions/s of the second call.
"""

from __future__ import annotations

import argparse
import time

import jax
import jax.numpy as jnp

from jaxenvs.tcgjax import engine, lockstep, observe
from jaxenvs.tcgjax.reference import speed as reference_speed
from jaxenvs.tcgjax.state import OVER


def rollout_fn(batch: int, steps: int):
    """A jitted ``run(key) -> (decisions, games finished)`` for this batch size."""
    cards, types, num_types, _ = lockstep.deck_batch(
        *lockstep.sample_games(len(lockstep.PAIRS))[1:])
    cards, types, num_types = (jnp.asarray(x) for x in (cards, types, num_types))
    pairs = jnp.asarray(lockstep.PAIRS, jnp.int32)

    def new(key, g):
        i = g % len(lockstep.PAIRS)
        return engine.new_game(key, cards[i], types[i], num_types[i], pairs[i])

    def one_env(key):
        def body(carry, t):
            state, game_key, g = carry
            action = observe.random_action(engine.legal_action_mask(state),
                                           jax.random.fold_in(key, g), state.decisions)
            state = engine.step(state, action, game_key)
            over = state.phase == OVER
            next_key = jax.random.fold_in(key, 10**6 + g + 1)
            state = engine.tree_select(over, new(next_key, g + 1), state)
            game_key = jax.random.wrap_key_data(jnp.where(
                over, jax.random.key_data(next_key), jax.random.key_data(game_key)))
            return (state, game_key, g + over), over

        first = jax.random.fold_in(key, 10**6)
        _, ends = jax.lax.scan(body, (new(first, 0), first, jnp.int32(0)), jnp.arange(steps))
        return jnp.sum(ends)

    @jax.jit
    def run(key):
        return jnp.sum(jax.vmap(one_env)(jax.random.split(key, batch)))

    return run


def measure(batch: int, steps: int) -> dict:
    run = rollout_fn(batch, steps)
    start = time.perf_counter()
    jax.block_until_ready(run(jax.random.key(0)))
    first = time.perf_counter() - start
    start = time.perf_counter()
    games = int(jax.block_until_ready(run(jax.random.key(1))))
    seconds = time.perf_counter() - start
    return {"batch": batch, "steps": steps, "compile_s": first - seconds, "run_s": seconds,
            "decisions_per_s": batch * steps / seconds, "games_finished": games}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 64, 1024, 4096])
    parser.add_argument("--steps", type=int, default=256)
    parser.add_argument("--reference-games", type=int, default=360)
    args = parser.parse_args()
    ref = reference_speed.measure(args.reference_games)["decisions_per_s"]
    print(f"reference: {ref:,.0f} decisions/s ({args.reference_games} games, one process)")
    print(f"jax {jax.__version__} on {jax.devices()[0].platform}")
    for batch in args.batches:
        r = measure(batch, args.steps)
        print(f"batch {batch:5d}: {r['decisions_per_s']:12,.0f} decisions/s "
              f"({r['decisions_per_s'] / ref:7.1f}x reference), compile {r['compile_s']:.1f} s, "
              f"run {r['run_s']:.2f} s, {r['games_finished']} games finished")


if __name__ == "__main__":
    main()
