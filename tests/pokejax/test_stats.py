"""Gen 1 stats against the stats Showdown gives Pokémon in a battle (exact, integers)."""

import jax
import numpy as np

from jaxenvs.pokejax import teams
from jaxenvs.pokejax._src.stats import calc_stats, dvs
from jaxenvs.pokejax.data import STATS, gen1, team_pool


def _showdown_stats(showdown, packed_teams):
    """int[len(teams), 6, 6]: maxhp and stored stats of every Pokémon, from battles."""
    out = []
    for k in range(0, len(packed_teams), 2):
        battle, report = showdown.new_battle(packed_teams[k], packed_teams[k + 1], [0, 0, 0, k])
        showdown.close_battle(battle)
        for side in report["sides"]:
            mons = sorted(side["pokemon"], key=lambda p: p["team_index"])
            out.append([[p["maxhp"]] + [p["stored_stats"][s] for s in STATS[1:]] for p in mons])
    return np.array(out)


def _ours(arrays):
    base = gen1().base_stats[arrays["species"]]
    return np.asarray(jax.jit(calc_stats)(base, arrays["ivs"], arrays["evs"], arrays["level"]))


def test_pool_teams(showdown):
    """200 pool teams (1,200 Pokémon)."""
    pool = team_pool()
    idx = np.arange(0, 10_000, 50)
    want = _showdown_stats(showdown, [teams.packed(pool, int(i)) for i in idx])
    got = _ours({k: getattr(pool, k)[idx] for k in ("species", "ivs", "evs", "level")})
    np.testing.assert_array_equal(got, want)


def test_random_spreads_every_species(showdown):
    """Every species twice, with random levels 1-100, EVs 0-255 and IVs 0-31 (odd IVs too)."""
    rng = np.random.default_rng(3)
    species = np.concatenate([np.arange(1, 152), rng.permutation(np.arange(1, 152))])
    species = np.concatenate([species, rng.integers(1, 152, 6 - len(species) % 6)])
    sets = [teams.PokemonSet(gen1().species_names[s], ("struggle",),
                             level=int(rng.integers(1, 101)),
                             evs=tuple(int(v) for v in rng.integers(0, 256, 6)),
                             ivs=tuple(int(v) for v in rng.integers(0, 32, 6)))
            for s in species]
    packed = [teams.pack(sets[k:k + 6]) for k in range(0, len(sets), 6)]
    if len(packed) % 2:
        packed.append(packed[0])
    want = _showdown_stats(showdown, packed)[:len(sets) // 6]
    arrays = [teams.to_arrays(sets[k:k + 6]) for k in range(0, len(sets), 6)]
    got = _ours({k: np.stack([a[k] for a in arrays]) for k in ("species", "ivs", "evs", "level")})
    np.testing.assert_array_equal(got, want)


def test_dvs():
    np.testing.assert_array_equal(dvs(np.array([0, 1, 2, 30, 31])), [0, 0, 1, 15, 15])
