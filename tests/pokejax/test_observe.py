"""The hidden-information observation: what the foe has not shown is absent, what it has shown
appears after the decision that showed it, and the foe's HP reads as Showdown's HP Percentage
Mod shows it (``getHealth``'s shared value)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxenvs.pokejax import teams as tm
from jaxenvs.pokejax._src import observe
from jaxenvs.pokejax._src.state import STATUSES, VOLATILES
from jaxenvs.pokejax.reference import replay

_observe = jax.jit(observe.observe, static_argnums=2)
_reveal = jax.jit(observe.reveal)


@pytest.fixture(scope="module")
def start():
    """A battle at turn 1 (leads out) between two random teams of supported moves, and what
    the leads revealed."""
    rng = np.random.default_rng(11)
    packed = [tm.pack(tm.supported_team(rng)) for _ in range(2)]
    state = replay.initial_state([1, 2, 3, 4], packed)
    return state, observe.reveal(observe.nothing_revealed(), None, state)


def _same(a, b):
    return all(np.array_equal(np.asarray(x), np.asarray(y))
               for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b)))


def _scramble(state, side, slots, rng):
    """``state`` with everything about ``side``'s team ``slots`` changed (the foe's hidden
    Pokémon), keeping the battle consistent enough to observe."""
    def put(x, values):
        return x.at[side, slots].set(jnp.asarray(values, x.dtype))

    n = len(slots)
    return state.replace(
        species=put(state.species, rng.integers(1, 152, n)),
        types=put(state.types, rng.integers(1, 15, (n, 2))),
        level=put(state.level, rng.integers(2, 101, n)),
        hp=put(state.hp, rng.integers(1, 100, n)),
        maxhp=put(state.maxhp, rng.integers(100, 400, n)),
        status=put(state.status, rng.integers(0, len(STATUSES), n)),
        moves=put(state.moves, rng.integers(1, 160, (n, 4))),
        pp=put(state.pp, rng.integers(1, 30, (n, 4))),
        maxpp=put(state.maxpp, rng.integers(30, 64, (n, 4))),
        stats=put(state.stats, rng.integers(5, 400, (n, 5))),
        mod_stats=put(state.mod_stats, rng.integers(5, 400, (n, 5))))


@pytest.mark.parametrize("side", [0, 1])
def test_unrevealed_foe_is_hidden(start, side):
    state, revealed = start
    foe = 1 - side
    bench = [int(t) for t in np.asarray(state.party[foe, 1:])]
    rng = np.random.default_rng(side)
    other = _scramble(state, foe, bench, rng)
    lead = int(state.party[foe, 0])
    # and the lead's hidden parts: unused move slots, stats, DVs behind them
    other = other.replace(moves=other.moves.at[foe, lead, 1:].set(1),
                          stats=other.stats.at[foe, lead].add(7),
                          mod_stats=other.mod_stats.at[foe, lead].add(7))
    assert _same(_observe(state, revealed, side), _observe(other, revealed, side))
    # the check can fail: the same change seen from the foe's side, or the lead's HP
    assert not _same(_observe(state, revealed, foe), _observe(other, revealed, foe))
    hurt = state.replace(hp=state.hp.at[foe, lead].set(1))
    assert not _same(_observe(state, revealed, side), _observe(hurt, revealed, side))


def test_foe_rows_at_the_start(start):
    state, revealed = start
    obs = _observe(state, revealed, 0)
    lead = int(state.party[1, 0])
    assert int(obs["species"][1, 0]) == int(state.species[1, lead])
    assert (np.asarray(obs["species"][1, 1:]) == 0).all()
    assert (np.asarray(obs["moves"][1]) == 0).all()  # nothing used yet
    # the own side is shown fully
    np.testing.assert_array_equal(obs["moves"][0], state.moves[0, state.party[0]])
    np.testing.assert_array_equal(obs["species"][0], state.species[0, state.party[0]])


def test_revealed_after_the_event(start):
    """p1 switches to party position 2 while p2's lead uses its first move: p1 now knows that
    move (PP went down) and its HP, p2 knows both of p1's Pokémon, the new one in front."""
    state, revealed = start
    step = replay.jitted()[1]
    after = step(state, np.array([4, 0], np.int32))
    revealed = _reveal(revealed, state, after)
    p1_view, p2_view = _observe(after, revealed, 0), _observe(after, revealed, 1)

    p2_lead = int(after.party[1, 0])
    used = np.asarray(after.pp[1, p2_lead] != state.pp[1, p2_lead])
    assert used[0] and not used[1:].any()
    assert int(p1_view["moves"][1, 0, 0]) == int(state.moves[1, p2_lead, 0])
    assert (np.asarray(p1_view["moves"][1, 0, 1:]) == 0).all()

    lead, second = int(state.party[0, 0]), int(state.party[0, 1])
    np.testing.assert_array_equal(p2_view["species"][1, :3],
                                  [after.species[0, second], after.species[0, lead], 0])
    shown = observe.shown_hp_percent(after.hp[0, second], after.maxhp[0, second]) / 100
    assert float(p2_view["features"][1, 0, 3]) == pytest.approx(float(shown))


@pytest.mark.parametrize("hp, maxhp, percent", [
    (300, 300, 100), (299, 300, 99), (298, 300, 99), (1, 300, 1), (0, 300, 0),
    (150, 300, 50), (151, 300, 51), (1, 1000, 1), (995, 1000, 99), (3, 7, 43)])
def test_shown_hp_percent(hp, maxhp, percent):
    """``Math.ceil(100 * hp / maxhp)``, but 99 for a Pokémon below full HP (pokemon.ts
    ``getHealth`` with ``reportPercentages``; the harness's log carries only the exact lines,
    so these values are worked from that formula by hand)."""
    assert int(observe.shown_hp_percent(jnp.int32(hp), jnp.int32(maxhp))) == percent


def test_feature_layout():
    """The documented layout: known, active, fainted, HP, level, 6 statuses, 7 boosts, the
    visible volatiles, 5 stats, 4 PP."""
    assert observe.NUM_FEATURES == 5 + 6 + 7 + len(observe.VISIBLE_VOLATILES) + 5 + 4 == 36
    assert observe.observation_space().spaces["features"].shape == (2, 6, 36)


def test_foe_volatiles_shown_as_the_protocol_shows_them(start):
    """Leech Seed and Disable (``|-start|``) on the foe's active Pokémon set their feature
    columns; Rage and the Toxic counter, which Showdown never prints, change nothing."""
    state, revealed = start
    lead = int(state.party[1, 0])
    first = 5 + 6 + 7
    base = _observe(state, revealed, 0)

    def with_volatile(name, **fields):
        bit = jnp.uint32(1 << VOLATILES.index(name))
        other = state.replace(volatiles=state.volatiles.at[1, lead].set(
            state.volatiles[1, lead] | bit))
        return other.replace(**{k: getattr(other, k).at[1, lead].set(v)
                                for k, v in fields.items()})

    for name in ("leechseed", "disable"):
        column = first + observe.VISIBLE_VOLATILES.index(name)
        features = np.asarray(_observe(with_volatile(name), revealed, 0)["features"])
        assert features[1, 0, column] == 1.0 and base["features"][1, 0, column] == 0.0
        changed = np.argwhere(features != np.asarray(base["features"]))
        assert changed.tolist() == [[1, 0, column]], name
    hidden = with_volatile("rage", rage_accuracy=255)
    hidden = hidden.replace(volatiles=hidden.volatiles.at[1, lead].set(
        hidden.volatiles[1, lead] | jnp.uint32(1 << VOLATILES.index("residualdmg"))),
        toxic_counter=hidden.toxic_counter.at[1, lead].set(3))
    assert _same(_observe(hidden, revealed, 0), base)
