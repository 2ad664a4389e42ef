"""The protocol log of a JAX battle against Showdown's own log of the same battle.

Random-vs-random battles between random teams of the moves the log reads
(``log.LOGGED_MOVES``, all supported by the engine) are played in Showdown (the
harness reports each decision's protocol lines), replayed in the engine (which must agree at
every decision first: ``replay.replay``), and ``log.protocol_log`` of the engine's states is
compared with Showdown's log decision by decision. Compared exactly: the lines of the kinds in
``log.EXACT_KINDS`` (``|move|`` without its ``[miss]``/``[from]``/``[still]`` flags,
``|-status|`` without a ``[from]``), in order, nothing missing and nothing extra. Not
compared: the inferred kinds (``log.INFERRED_KINDS``), the ones not written (``|-boost|``,
``|-unboost|``, ``|-fail|``, ``|-hint|``, ``|-hitcount|``, ...), and the battle's header
(``|player|``, ``|rule|``, ...); for those the test only checks that every line we write is of
a known kind. Mechanics that random battles rarely show (sleep, confusion, flinching, a
frozen Pokémon, two-turn moves, Substitute, Rest, Toxic's switch-in, Haze, Conversion, partial
trapping, a trapping move cutting Hyper Beam's recharge, Thrash's end, Disable, Bide, Mirror
Move, Rage, Metronome, a Mimic whose user then faints) get battles
of their own between small custom teams, which must show the mechanic's line in Showdown's log
(so they cannot pass without comparing it).
"""

import dataclasses

import jax
import numpy as np
import pytest

from jaxenvs.pokejax import log
from jaxenvs.pokejax import teams as tm
from jaxenvs.pokejax.reference import replay

_ARGS = {"move": 3, "-status": 2}
_KINDS = {"", "start", "upkeep", *log.EXACT_KINDS, *log.INFERRED_KINDS}


def _exact(lines):
    out = []
    for line in lines:
        parts = line.split("|")
        if len(parts) > 1 and parts[1] in log.EXACT_KINDS:
            n = _ARGS.get(parts[1])
            out.append("|".join(parts[:2 + n] if n else parts))
    return out


def _engine_log(traj):
    state = replay.initial_state(traj.seed, traj.teams)
    step = replay.jitted()[1]
    states, actions = [state], []
    for choices in traj.choices:
        action = np.array([replay.choice_to_action(choices[k]) if k in choices else 0
                           for k in ("p1", "p2")], np.int32)
        states.append(step(states[-1], action))
        actions.append(action)
    stacked = jax.tree_util.tree_map(lambda *xs: np.stack(xs), *states)
    return log.protocol_log(stacked, np.array(actions, np.int32).reshape(-1, 2))


def _logged_team(rng):
    """A random legal team of supported moves, cut down to ``log.LOGGED_MOVES`` (a Pokémon
    left without a move is dropped)."""
    team = [dataclasses.replace(s, moves=tuple(m for m in s.moves if m in log.LOGGED_MOVES))
            for s in tm.supported_team(rng)]
    return [s for s in team if s.moves]


def _battles(showdown, n, seed):
    rng = np.random.default_rng(seed)
    for _ in range(n):
        packed = tuple(tm.pack(_logged_team(rng)) for _ in range(2))
        words = [int(w) for w in rng.integers(0, 1 << 16, 4)]
        policy = [int(w) for w in rng.integers(0, 1 << 16, 4)]
        yield showdown.random_battle(words, packed, policy_seed=policy)


def _compare(traj):
    """Compares one battle's log with Showdown's; returns Showdown's lines."""
    divergence, _ = replay.replay(traj)
    assert divergence is None, f"the engine itself diverges:\n{divergence}"
    ours = _engine_log(traj)
    theirs = [traj.initial["log"]] + [r["log"] for r in traj.reports]
    assert len(ours) == len(theirs)
    for k, (mine, real) in enumerate(zip(ours, theirs)):
        assert _exact(mine) == _exact(real), (
            f"seed {traj.seed}, teams {traj.teams}, decision {k} "
            f"({traj.choices[k - 1] if k else 'start'}):\nours:\n" + "\n".join(mine)
            + "\nshowdown:\n" + "\n".join(real))
        for line in mine:
            assert line.split("|")[1] in _KINDS, line
    return [line for lines in theirs for line in lines]


def _check(showdown, n, seed):
    decisions = 0
    for traj in _battles(showdown, n, seed):
        _compare(traj)
        decisions += len(traj.reports) + 1
    return decisions


def test_log_matches_showdown(showdown):
    assert _check(showdown, 6, 21) > 200


@pytest.mark.slow
def test_log_matches_showdown_many(showdown):
    assert _check(showdown, 100, 22) > 5000


def test_log_reads_like_showdown():
    """The start of a battle, line for line as Showdown writes it."""
    team = [tm.PokemonSet("staryu", ("tackle",), level=51), tm.PokemonSet("mew", ("pound",))]
    foe = [tm.PokemonSet("cloyster", ("tackle",), level=70)]
    state = replay.initial_state([1, 2, 3, 4], [tm.pack(team), tm.pack(foe)])
    hp = [int(state.maxhp[0, 0]), int(state.maxhp[1, 0])]
    assert log.start_lines(state) == [
        "|start", f"|switch|p1a: Staryu|Staryu, L51|{hp[0]}/{hp[0]}",
        f"|switch|p2a: Cloyster|Cloyster, L70|{hp[1]}/{hp[1]}", "|turn|1"]


def _set(species, *moves, level=100):
    return tm.PokemonSet(species, moves, level=level)


#: Per mechanic: two small teams, and line prefixes (``|kind|`` and its arguments after the
#: Pokémon) that their battles must show in Showdown's log.
_MECHANICS = {
    "sleep": ([_set("parasect", "spore"), _set("drowzee", "hypnosis", "pound")],
              [_set("snorlax", "rest", "tackle"), _set("rattata", "tackle")],
              ["|cant|", "slp"], ["|-curestatus|", "slp|[msg]"]),
    "confusion": ([_set("golbat", "confuseray", "bite")],
                  [_set("tauros", "bodyslam", "supersonic"), _set("raticate", "hyperfang")],
                  ["|-start|", "confusion"], ["|-end|", "confusion"]),
    "flinch": ([_set("persian", "headbutt", "bite", level=90)],
               [_set("golem", "tackle", "earthquake"), _set("onix", "tackle")],
               ["|cant|", "flinch"]),
    "freeze": ([_set("cloyster", "blizzard", "icebeam")],
               [_set("charizard", "flamethrower", "tackle"), _set("raichu", "tackle")],
               ["|cant|", "frz"]),
    "two-turn and substitute": ([_set("dugtrio", "dig", "skullbash"), _set("sandslash", "slash")],
                                [_set("alakazam", "substitute", "psychic", "toxic"),
                                 _set("kadabra", "substitute", "swift")],
                                ["|-prepare|", "Dig"], ["|-start|", "Substitute"],
                                ["|-end|", "Substitute"]),
    "conversion": ([_set("porygon", "conversion", "tackle")],
                   [_set("pidgeot", "fly", "gust"), _set("tauros", "tackle"),
                    _set("golem", "tackle")],
                   ["|-start|", "typechange|Normal/Flying|[from] move: Conversion"],
                   ["|-start|", "typechange|Normal|[from] move: Conversion"],
                   ["|-start|", "typechange|Rock/Ground|[from] move: Conversion"]),
    "mimic and transform": ([_set("mrmime", "mimic", "psychic"), _set("ditto", "transform")],
                            [_set("snorlax", "bodyslam", "rest"), _set("tauros", "tackle")],
                            ["|-start|", "|Mimic|"], ["|-transform|", ""]),
    "haze": ([_set("koffing", "haze", "toxic"), _set("golbat", "haze", "confuseray")],
             [_set("raticate", "hyperfang", "focusenergy"), _set("snorlax", "rest", "tackle")],
             ["|-clearallboost|", ""], ["|-curestatus|", "[silent]"], ["|-end|", "[silent]"]),
    "partial trapping": ([_set("dragonair", "wrap", "thunderwave"), _set("cloyster", "clamp")],
                         [_set("snorlax", "bodyslam"), _set("tauros", "tackle"),
                          _set("onix", "bind")],
                         ["|cant|", "partiallytrapped"], ["|move|", "|Wrap|"],
                         ["|move|", "|Clamp|"]),
    "thrash": ([_set("nidoking", "thrash"), _set("vileplume", "petaldance")],
               [_set("snorlax", "bodyslam"), _set("chansey", "tackle")],
               ["|move|", "|Thrash|"], ["|move|", "|Petal Dance|"],
               ["|-start|", "confusion|[silent]"]),
    "trapping after Hyper Beam": ([_set("tauros", "hyperbeam"), _set("kangaskhan", "hyperbeam")],
                                  [_set("cloyster", "clamp"), _set("tentacruel", "wrap")],
                                  ["|-hint|", "partial trapping moves negate the recharge"]),
    "disable": ([_set("hypno", "disable", "psychic"), _set("drowzee", "disable", "pound")],
                [_set("snorlax", "bodyslam", "rest"), _set("tauros", "tackle", "stomp")],
                ["|-start|", "Disable|"], ["|cant|", "Disable|"], ["|-end|", "Disable"]),
    "bide": ([_set("chansey", "bide", "softboiled"), _set("snorlax", "bide", "bodyslam")],
             [_set("tauros", "tackle", "thunderwave"), _set("gengar", "nightshade", "confuseray")],
             ["|-start|", "|Bide"], ["|-activate|", "|Bide"], ["|-end|", "|Bide"]),
    "mirror move": ([_set("pidgeot", "mirrormove", "quickattack"), _set("fearow", "mirrormove")],
                    [_set("dugtrio", "dig", "slash"), _set("jolteon", "thunderwave", "pinmissile"),
                     _set("gengar", "nightshade", "confuseray")],
                    ["|move|", "|Thunder Wave|p2a: Jolteon|[from] Mirror Move"],
                    ["|-prepare|p1a: ", "|Dig"], ["|-start|p2a: ", "confusion"]),
    "rage": ([_set("primeape", "rage"), _set("tauros", "rage")],
             [_set("gengar", "nightshade", "thunderwave"),
              _set("jolteon", "thunderwave", "doublekick")],
             ["|move|", "|Rage|p2a: Gengar|[from] Rage"], ["|cant|p1a: ", "|par"],
             ["|-boost|p1a: ", "|atk|1|[from] Rage"]),
    "metronome": ([_set("clefable", "metronome"), _set("clefairy", "metronome")],
                  [_set("snorlax", "bodyslam"), _set("tauros", "tackle")],
                  ["|move|p1a: ", "|Metronome|"], ["|move|p1a: ", "|[from] Metronome"]),
    "mimic before a faint": ([_set("jolteon", "mimic", "thundershock", level=40)],
                             [_set("snorlax", "bodyslam", "earthquake", level=60)],
                             ["|-start|p1a: Jolteon|", "|Mimic|"], ["|faint|p1a: ", "Jolteon"]),
    "toxic": ([_set("chansey", "tackle"), _set("clefable", "tackle")],
              [_set("muk", "toxic", "tackle")],
              ["|-status|", "tox"], ["|-status|", "psn|[silent]"]),
}


@pytest.mark.parametrize("mechanic", sorted(_MECHANICS))
def test_mechanic_lines_match_showdown(showdown, mechanic):
    """Battles between custom teams that show ``mechanic`` (each required line appears in
    Showdown's log of some battle), compared line for line."""
    team1, team2, *required = _MECHANICS[mechanic]
    packed = (tm.pack(team1), tm.pack(team2))
    seen = set()
    rng = np.random.default_rng(len(mechanic))
    for _ in range(8):
        words = [int(w) for w in rng.integers(0, 1 << 16, 4)]
        policy = [int(w) for w in rng.integers(0, 1 << 16, 4)]
        lines = _compare(showdown.random_battle(words, packed, policy_seed=policy))
        seen |= {k for k, (kind, rest) in enumerate(required)
                 if any(line.startswith(kind) and rest in line for line in lines)}
        if len(seen) == len(required):
            break
    assert seen == set(range(len(required))), [required[k] for k in range(len(required))
                                               if k not in seen]
