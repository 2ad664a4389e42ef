"""Showdown's Gen 1 Endless Battle Clause, Transform case: a battle where every remaining
Pokémon on each side knows only Transform (and every foe does too) is tied, at the start and at
the end of any turn. Battles of such teams, random-vs-random in Showdown and replayed in the
engine, agree at every decision, the tie included, and Showdown's log shows the clause."""

import numpy as np
import pytest

from jaxenvs.pokejax import teams as tm
from jaxenvs.pokejax.reference import replay

CLAUSE = "This battle cannot progress. Endless Battle Clause activated!"
#: case -> (p1 team, p2 team, whether the battle ties before the first move). In the last,
#: a foe with another move, the battle goes on (and may reach the clause later, once both sides
#: hold only Transform).
CASES = {
    "ditto-vs-ditto": ("ditto:transform:100", "ditto:transform:100", True),
    "mew-only-transform-vs-ditto": ("mew:transform:100", "ditto:transform:90", True),
    # Explosion and Self-Destruct leave the two Dittos; before that, they battle on
    "dittos-left-after-explosions": ("electrode:explosion:100;ditto:transform:100",
                                     "voltorb:selfdestruct:100;ditto:transform:100", False),
    "ditto-vs-a-foe-with-moves": ("ditto:transform:100", "mew:transform,psychic:100", False),
}
BATTLES = 8


def _team(spec: str) -> str:
    return tm.pack([tm.PokemonSet(species=species, moves=tuple(moves.split(",")),
                                  level=int(level))
                    for species, moves, level in (entry.split(":")
                                                  for entry in spec.split(";"))])


@pytest.fixture(scope="module")
def replayed(showdown):
    rng = np.random.default_rng(11)
    recorded = []
    for case, (p1, p2, _) in CASES.items():
        for _ in range(BATTLES):
            words, policy = ([int(w) for w in rng.integers(0, 1 << 16, 4)] for _ in range(2))
            recorded.append((case, showdown.random_battle(words, (_team(p1), _team(p2)),
                                                          policy_seed=policy)))
    results = replay.replay_many([traj for _, traj in recorded])
    return {case: [(traj, divergence) for (c, traj), (divergence, _) in
                   zip(recorded, results) if c == case] for case in CASES}


@pytest.mark.parametrize("case", list(CASES))
def test_transform_only_battles_tie_as_in_showdown(replayed, case):
    at_start = CASES[case][2]
    ties = 0
    for traj, divergence in replayed[case]:
        assert divergence is None, f"seed {traj.seed}, teams {traj.teams}\n{divergence}"
        log = traj.initial["log"] + [line for r in traj.reports for line in r["log"]]
        clause = any(CLAUSE in line for line in log)
        ties += clause
        if clause:
            assert traj.winner == ""
        assert (traj.num_decisions == 0) == at_start
    if case != "ditto-vs-a-foe-with-moves":
        assert ties > 0, f"{case}: no battle reached the clause"


def test_a_battle_tied_at_reset_ends_at_the_first_step_with_nothing_forbidden():
    import jax

    import jaxenvs

    ditto = tm.to_arrays(tm.load_team("Ditto\n- Transform\n"))
    teams = {name: np.stack([value, value]) for name, value in ditto.items()}
    for env_id in ("PokeJAX", "PokeJAX2P"):
        env, params = jaxenvs.make(env_id, teams=teams)
        obs, state = env.reset(jax.random.key(0), params)
        # nothing to choose (PokeJAX2P shows such a player action 0 as its only one)
        assert not np.asarray(obs["action_mask"])[..., 1:].any() and bool(state.battle.ended)
        _, _, reward, terminated, _, info = env.step(jax.random.key(1), state, 0, params)
        assert bool(terminated) and float(reward) == 0.0
        assert not np.asarray(info["illegal_action"]).any()
