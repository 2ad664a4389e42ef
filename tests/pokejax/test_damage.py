"""L1: Gen 1 damage and crit chance against Showdown's ``getDamage`` (exact, every roll).

Pairs of pool teams' leads; every ordinary damaging move of both; crit and no crit; a third of
the cases with random modified stats in [1, 999] (stat rollover above 255 included), Reflect /
Light Screen on the defender and Focus Energy on the attacker at random.
"""

import jax
import jax.numpy as jnp
import numpy as np

from jaxenvs.pokejax import teams as tm
from jaxenvs.pokejax._src import damage as dmg
from jaxenvs.pokejax.data import gen1, team_pool

ROLLS = np.arange(dmg.MIN_ROLL, dmg.MAX_ROLL + 1)


def _ordinary(move):
    return (move["category"] != "Status" and move["basePower"] > 0 and not move.get("ohko")
            and "damage" not in move and "damageCallback" not in move["callbacks"])


def _cases(pool, i, rng):
    d = gen1()
    cases = []
    for attacker, t in (("p1", 2 * i), ("p2", 2 * i + 1)):
        for m in pool.moves[t, 0]:
            if not m or not _ordinary(d.move(int(m))):
                continue
            for crit in (False, True):
                case = {"attacker": attacker, "move": d.move_names[m], "crit": crit}
                if rng.random() < 1 / 3:
                    stats = lambda: {k: int(v) for k, v in zip(  # noqa: E731
                        ("atk", "def", "spa", "spd", "spe"), rng.integers(1, 1000, 5))}
                    case["attacker_stats"], case["defender_stats"] = stats(), stats()
                if rng.random() < 0.3:
                    case["defender_volatiles"] = [str(rng.choice(["reflect", "lightscreen"]))]
                if rng.random() < 0.2:
                    case["attacker_volatiles"] = ["focusenergy"]
                cases.append(case)
    return cases


@jax.jit
def _ours(level, bp, atk, dfn, batk, bdfn, stab, mods, crit, screen, explosion):
    return dmg.damage(level, bp, atk, dfn, batk, bdfn, stab, mods, crit, jnp.asarray(ROLLS),
                      screen, explosion)


def test_damage_and_crit_chance_match_showdown(showdown):
    d = gen1()
    pool = team_pool()
    rng = np.random.default_rng(4)
    compared = 0
    for i in rng.choice(len(pool) // 2, 60, replace=False):
        cases = _cases(pool, int(i), rng)
        if not cases:
            continue
        results = showdown.damage(tm.packed(pool, 2 * i), tm.packed(pool, 2 * i + 1), cases)
        for case, res in zip(cases, results):
            move = d.move(case["move"])
            mtype = d.type_index[move["type"]]
            physical = move["category"] == "Physical"
            atk_stat, def_stat = ("atk", "def") if physical else ("spa", "spd")
            def_types = np.array([d.type_index[t] for t in res["defender_types"]] + [0])[:2]
            if bool(dmg.immune(mtype, def_types, d.type_chart)):
                assert res["damage"] == [None] * len(ROLLS), case
                continue
            species = d.species(res["attacker_species"])
            want_chance = int(dmg.crit_chance(species["baseStats"]["spe"],
                                              "focusenergy" in case.get("attacker_volatiles", []),
                                              move["critRatio"]))
            assert res["crit_numerator"] == (want_chance or None), case
            screens = case.get("defender_volatiles", [])
            screen = ("reflect" if physical else "lightscreen") in screens
            got = _ours(res["level"], move["basePower"], res["attacker"][atk_stat],
                        res["defender"][def_stat], res["attacker_base"][atk_stat],
                        res["defender_base"][def_stat], move["type"] in res["attacker_types"],
                        dmg.type_modifiers(mtype, def_types, d.type_chart), case["crit"],
                        screen, physical and "selfdestruct" in move)
            assert np.asarray(got).tolist() == res["damage"], (case, res)
            compared += 1
    assert compared > 300
