"""The PokeJAX envs: the jaxenvs/gymnax contract, parameter checks, that an episode (one
player against the random or the greedy opponent, or self-play) is the Showdown battle its
reset seed and teams define (the choices ``info`` reports, replayed in Showdown, agree with the
engine at every decision: ``replay.replay``), and that the greedy opponent picks the obvious
move in constructed positions."""

import jax
import numpy as np
import pytest

import jaxenvs
from jaxenvs.pokejax import teams as tm
from jaxenvs.pokejax._src import moves, opponents
from jaxenvs.pokejax._src.state import REQ_SWITCH
from jaxenvs.pokejax.data import GEN1OU_SAMPLE_TEAMS, gen1
from jaxenvs.pokejax.env import PokeJAX, PokeJAX2P, supported_pool
from jaxenvs.pokejax.reference import replay


@pytest.fixture(scope="module")
def env_params():
    env = PokeJAX()
    return env, env.default_params


@pytest.mark.slow  # ~1-2 min on 2 cores, almost all of it XLA compiling the batched step
def test_api_contract(env_params):
    env, params = env_params
    report = jaxenvs.api_test(env, params)
    assert report.episodes_ended > 0


@pytest.mark.slow  # ~4 min on 2 cores
def test_api_contract_2p(env_params):
    _, params = env_params
    report = jaxenvs.api_test(PokeJAX2P(), params)
    assert report.episodes_ended > 0


def test_params_are_checked(env_params):
    env, params = env_params
    missing = sorted(set(gen1().move_names[1:]) - moves.SUPPORTED)
    if missing:  # a team with a move the engine does not support yet
        bad = {**params.teams, "moves": params.teams["moves"].at[0, 0, 0].set(
            gen1().move_index[missing[0]])}
        with pytest.raises(ValueError, match="not supported"):
            env.check_params(params.replace(teams=bad))
    with pytest.raises(ValueError, match="max_steps_in_episode"):
        env.check_params(params.replace(max_steps_in_episode=0))
    with pytest.raises(ValueError, match="opponent"):
        env.check_params(params.replace(opponent=len(opponents.POLICIES)))


def _battle_inputs(key, params):
    """The seed and packed teams of the battle ``reset_env(key, params)`` starts."""
    pool = _Pool({k: np.asarray(v) for k, v in params.teams.items()})
    k_teams, k_seed = jax.random.split(key)  # what new_episode draws
    pick = np.asarray(jax.random.randint(k_teams, (2,), 0, len(pool.species)))
    seed = [int(w) for w in np.asarray(jax.random.randint(k_seed, (4,), 0, 1 << 16))]
    return seed, tuple(tm.pack(tm.from_arrays(pool, int(i))) for i in pick)


@pytest.mark.parametrize("opponent", opponents.POLICIES)
def test_episode_is_the_showdown_battle(env_params, showdown, opponent):
    """Episodes with random agent actions against each opponent policy, replayed in Showdown
    with the seed and teams reset drew and the decisions ``info`` reports, agree with the
    engine at every decision."""
    env, params = env_params
    _replay_episodes(env, params.replace(opponent=opponents.POLICIES.index(opponent)),
                     showdown, np.random.default_rng(3), episodes=2)


def _replay_episodes(env, params, showdown, rng, episodes):
    """Plays ``episodes`` episodes with random legal agent actions and replays each in
    Showdown, in ``params.format``, with the seed and teams reset drew and the decisions
    ``info`` reports: they agree at every decision and the reward is the winner's."""
    reset, step = _jitted(env)
    for episode in range(episodes):
        key = jax.random.key(episode)
        obs, state = reset(key, params)
        seed, packed = _battle_inputs(key, params)
        choices = []
        while not bool(state.battle.ended):
            action = int(rng.choice(np.flatnonzero(np.asarray(obs["action_mask"]))))
            obs, state, reward, done, info = step(jax.random.key(1000 + len(choices)), state,
                                                  action, params)
            assert int(info["agent_action"]) == action and not bool(info["illegal_action"])
            opp = [int(a) for a in np.asarray(info["opponent_actions"])]
            first = {"p1": replay.action_to_choice(action)}
            if opp[0] >= 0:
                first["p2"] = replay.action_to_choice(opp[0])
            choices.append(first)
            if opp[1] >= 0:
                choices.append({"p2": replay.action_to_choice(opp[1])})
        traj = showdown.replay(seed, packed, choices, format=params.format)
        divergence, _ = replay.replay(traj)
        assert divergence is None, str(divergence)
        assert float(reward) == {"p1": 1.0, "p2": -1.0}.get(traj.winner, 0.0)


def test_gen1ou_episodes_with_user_teams_are_the_showdown_battles(showdown):
    """``make("PokeJAX", format="gen1ou", teams=FILE)``: the four sample teams in export
    form, which Showdown's gen1ou validator accepts; episodes against the heuristic opponent are
    the gen1ou battles Showdown plays with them."""
    for team in tm.split_teams(GEN1OU_SAMPLE_TEAMS.read_text()):
        assert showdown.validate(team, "gen1ou") == []
    env, params = jaxenvs.make("PokeJAX", format="gen1ou", teams=GEN1OU_SAMPLE_TEAMS,
                               opponent=opponents.POLICIES.index("heuristic"))
    assert params.teams["species"].shape == (4, 6)
    _replay_episodes(env, params, showdown, np.random.default_rng(5), episodes=3)


def test_formats_and_user_teams_are_checked():
    """A format of user teams without teams, an unknown format, and teams the format's
    validator refuses fail at ``make`` with the reason."""
    with pytest.raises(ValueError, match="plays the user's teams"):
        jaxenvs.make("PokeJAX", format="gen1ou")
    with pytest.raises(ValueError, match="none of gen1randombattle, gen1ou, gen1ubers"):
        jaxenvs.make("PokeJAX2P", format="gen2ou")
    mewtwo = "Mewtwo\nEVs: 4 HP\n- Psychic"
    with pytest.raises(tm.TeamError, match="team 1: .*Uber, which gen1ou bans"):
        jaxenvs.make("PokeJAX", format="gen1ou", teams=[mewtwo])
    _, params = jaxenvs.make("PokeJAX", format="gen1ubers", teams=mewtwo)
    with pytest.raises(ValueError, match="Uber, which gen1ou bans"):
        jaxenvs.make("PokeJAX", format="gen1ou", teams=params.teams)


def test_2p_episode_is_the_showdown_battle(env_params, showdown):
    """Self-play episodes with random actions, one player's choice per step, replayed in
    Showdown (p1's held choice and p2's as one decision) agree with the engine at every
    decision; a player is asked only when it has a choice; the rewards are the winner's +1
    and the loser's -1, ``reward`` the chooser's."""
    _, params = env_params
    env = PokeJAX2P()
    reset, step = _jitted(env)
    rng = np.random.default_rng(4)
    for episode in range(2):
        key = jax.random.key(10 + episode)
        obs, state = reset(key, params)
        seed, packed = _battle_inputs(key, params)
        choices, pending, asked = [], {}, []
        while not bool(state.battle.ended):
            player = int(obs["current_player"])
            assert int(state.battle.request[player]) != 0  # it has a choice to make
            if player == 1 and 0 not in pending:  # p1 waits: p2 alone
                assert int(state.battle.request[0]) == 0
            action = np.int32(rng.choice(np.flatnonzero(obs["action_mask"])))
            obs, state, reward, done, info = step(jax.random.key(0), state, action, params)
            assert not bool(info["illegal_action"])
            pending[player] = replay.action_to_choice(int(action))
            asked.append(player)
            if int(state.held) < 0:  # the decision was played
                choices.append({("p1", "p2")[p]: c for p, c in pending.items()})
                pending = {}
            else:
                assert player == 0 and int(state.held) == action
        assert not pending
        assert 0 in asked and 1 in asked
        traj = showdown.replay(seed, packed, choices)
        divergence, _ = replay.replay(traj)
        assert divergence is None, str(divergence)
        expected = {"p1": [1.0, -1.0], "p2": [-1.0, 1.0]}.get(traj.winner, [0.0, 0.0])
        np.testing.assert_array_equal(info["rewards"], expected)
        assert float(reward) == expected[player]


_compiled = {}


def _jitted(env):
    """(reset_env, step_env) of ``env``'s class, compiled once per module."""
    name = type(env).__name__
    if name not in _compiled:
        _compiled[name] = jax.jit(env.reset_env), jax.jit(env.step_env)
    return _compiled[name]


def _position(attacker, defender, move_ids):
    """A battle at turn 1 between a lone level-100 p1 ``defender`` and a level-100 p2
    ``attacker`` with ``move_ids`` (plus a second p2 Pokémon to switch to)."""
    p1 = [tm.PokemonSet(defender, ("tackle",))]
    p2 = [tm.PokemonSet(attacker, tuple(move_ids)), tm.PokemonSet("rattata", ("tackle",))]
    return replay.initial_state([5, 6, 7, 8], [tm.pack(p1), tm.pack(p2)])


_greedy = jax.jit(opponents.greedy)


def _greedy_choice(state):
    legal = replay.jitted()[2](state)[1]
    return int(_greedy(jax.random.key(0), state, 1, legal))


@pytest.mark.parametrize("attacker, defender, move_ids, best, why", [
    ("poliwrath", "arcanine", ("tackle", "surf", "growl", "thunderwave"), 1,
     "STAB, super effective"),
    ("snorlax", "gengar", ("hyperbeam", "thundershock"), 1, "Normal does not touch Ghost"),
    ("chansey", "cloyster", ("tackle", "seismictoss"), 1, "fixed damage = level 100"),
    ("pidgeot", "onix", ("gust", "quickattack", "sandattack", "swift"), 3, "resisted alike, "
     "Swift stronger"),
    ("jolteon", "golem", ("thunderbolt", "tackle"), 1, "Ground is immune to Electric"),
])
def test_greedy_picks_the_obvious_move(attacker, defender, move_ids, best, why):
    assert _greedy_choice(_position(attacker, defender, move_ids)) == best, why


def test_greedy_prefers_the_sure_ko_and_switches_only_when_forced():
    # the defender at 5 HP: both moves knock it out, so the accurate one is expected to do more
    state = _position("blastoise", "charizard", ("hydropump", "watergun"))
    target = int(state.party[0, 0])
    state = state.replace(hp=state.hp.at[0, target].set(5))
    assert _greedy_choice(state) == 1
    # status moves only: still a move, never a switch
    assert _greedy_choice(_position("jigglypuff", "charizard", ("growl", "thunderwave"))) == 0
    # forced to switch: the only switch there is
    state = _position("blastoise", "charizard", ("watergun",))
    fainted = state.replace(fainted=state.fainted.at[1, 0].set(True),
                            hp=state.hp.at[1, 0].set(0),
                            request=state.request.at[1].set(REQ_SWITCH).at[0].set(0))
    assert _greedy_choice(fainted) == 4


_heuristic = jax.jit(opponents.heuristic)


def _team_position(p1_active, p2_sets, **changes):
    """A battle at turn 1 between a lone level-100 p1 ``p1_active`` and a level-100 p2 team of
    ``p2_sets`` ((species, moves) pairs, the first active); ``changes``: p2's active Pokémon's
    ``hp``, or its stat stage ``atk``, ``def``, ``spa``, ``spd``."""
    p1 = [tm.PokemonSet(p1_active, ("tackle",))]
    p2 = [tm.PokemonSet(species, tuple(moves)) for species, moves in p2_sets]
    state = replay.initial_state([5, 6, 7, 8], [tm.pack(p1), tm.pack(p2)])
    active = int(state.party[1, 0])
    for name, value in changes.items():
        if name == "hp":
            state = state.replace(hp=state.hp.at[1, active].set(value))
        else:
            stat = ("atk", "def", "spa", "spd").index(name)
            state = state.replace(boosts=state.boosts.at[1, active, stat].set(value))
    return state


def _heuristic_choice(state):
    legal = replay.jitted()[2](state)[1]
    return int(_heuristic(jax.random.key(0), state, 1, legal))


# Against Golem (Rock/Ground, base Speed 45), poke-env's matchups of p2's Pokémon: Charizard
# 0.5 - 4 + 0.1 (Fire and Flying resisted, Rock hits it 4x) = -3.4, under -2; Rattata -0.4;
# Blastoise and Starmie 4 - 1 + 0.1 = 3.1 (Water hits Golem 4x); Kingler 3.1.
_CHARIZARD = ("charizard", ("flamethrower", "fly"))
_RATTATA = ("rattata", ("tackle",))
_BLASTOISE = ("blastoise", ("surf",))


@pytest.mark.parametrize("team, changes, action, why", [
    ([_CHARIZARD, _RATTATA, _BLASTOISE], {}, 5, "a matchup under -2: to Blastoise, the best"),
    ([_CHARIZARD, _RATTATA], {}, 0, "no switch of positive matchup: stays, Flamethrower"),
    ([_BLASTOISE, _RATTATA, ("starmie", ("surf",))], {}, 0, "a good matchup: stays"),
    ([_BLASTOISE, _RATTATA, ("starmie", ("surf",))], {"def": -3}, 5, "Defense at -3"),
    ([_BLASTOISE, _RATTATA, ("starmie", ("surf",))], {"spd": -3}, 5, "Sp. Def at -3"),
    ([_BLASTOISE, _RATTATA, ("starmie", ("surf",))], {"spa": -3}, 5,
     "Special at -3, Blastoise's higher attacking stat"),
    ([_BLASTOISE, _RATTATA, ("starmie", ("surf",))], {"atk": -3}, 0,
     "Attack at -3, but Special is Blastoise's higher stat"),
    ([("kingler", ("crabhammer", "swordsdance")), _RATTATA], {}, 1,
     "full HP, a good matchup: Swords Dance"),
    ([("kingler", ("crabhammer", "swordsdance")), _RATTATA], {"atk": 6}, 0,
     "Attack already at +6: Crabhammer"),
    ([("kingler", ("crabhammer", "swordsdance")), _RATTATA], {"hp": 100}, 0,
     "not at full HP: Crabhammer"),
])
def test_heuristic_switches_and_sets_up_as_poke_env_describes(team, changes, action, why):
    assert _heuristic_choice(_team_position("golem", team, **changes)) == action, why


@pytest.mark.parametrize("attacker, defender, move_ids, best, why", [
    ("poliwrath", "arcanine", ("tackle", "surf", "growl", "thunderwave"), 1,
     "STAB, super effective"),
    ("snorlax", "gengar", ("hyperbeam", "thundershock"), 1, "Normal does not touch Ghost"),
    ("jolteon", "golem", ("thunderbolt", "tackle"), 1, "Ground is immune to Electric"),
    ("chansey", "cloyster", ("tackle", "seismictoss"), 0,
     "Seismic Toss has base power 0 in the data poke-env reads"),
    ("kingler", "venusaur", ("crabhammer", "swordsdance"), 0,
     "matchup 0.5 - 2 - 0.1, not positive: no setup"),
    ("alakazam", "snorlax", ("psychic", "megapunch"), 0,
     "Special 135 against Snorlax's 65 beats Mega Punch's 80 on Attack 50"),
])
def test_heuristic_picks_the_move_poke_env_scores_highest(attacker, defender, move_ids, best,
                                                          why):
    state = _team_position(defender, [(attacker, move_ids), _RATTATA])
    assert _heuristic_choice(state) == best, why


def test_heuristic_replaces_a_fainted_pokemon_by_the_best_matchup():
    state = _team_position("golem", [_CHARIZARD, _RATTATA, _BLASTOISE])
    fainted = state.replace(fainted=state.fainted.at[1, 0].set(True),
                            hp=state.hp.at[1, 0].set(0),
                            request=state.request.at[1].set(REQ_SWITCH).at[0].set(0))
    assert _heuristic_choice(fainted) == 5


_max_base_power = jax.jit(opponents.max_base_power)


@pytest.mark.parametrize("attacker, defender, move_ids, best, why", [
    ("poliwrath", "arcanine", ("tackle", "surf", "growl", "thunderwave"), 1, "Surf's 95"),
    ("snorlax", "gengar", ("hyperbeam", "thundershock"), 0, "immunity is not looked at"),
    ("chansey", "cloyster", ("tackle", "seismictoss"), 0, "Seismic Toss's base power is 0"),
])
def test_max_base_power_picks_the_highest_base_power(attacker, defender, move_ids, best, why):
    state = _position(attacker, defender, move_ids)
    legal = replay.jitted()[2](state)[1]
    assert int(_max_base_power(jax.random.key(0), state, 1, legal)) == best, why
    fainted = state.replace(fainted=state.fainted.at[1, 0].set(True),
                            hp=state.hp.at[1, 0].set(0),
                            request=state.request.at[1].set(REQ_SWITCH).at[0].set(0))
    legal = replay.jitted()[2](fainted)[1]
    assert int(_max_base_power(jax.random.key(0), fainted, 1, legal)) == 4  # the only switch


class _Pool:
    """A pool of team arrays with the attributes ``teams.from_arrays`` reads."""

    def __init__(self, arrays):
        self.__dict__.update(arrays)


def test_supported_pool_is_legal():
    pool = supported_pool(8, seed=1)
    for i in range(8):
        sets = tm.from_arrays(_Pool(pool), i)
        assert tm.problems(sets) == []
