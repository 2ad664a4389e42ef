"""The TCGJax environments: the jaxenvs/gymnax contract, hidden information, and the opponent
policies against the reference's."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxenvs
from jaxenvs.tcgjax._src import observe
from jaxenvs.tcgjax.env import DECK_NAMES, TCGJax, TCGJax2P, new_episode, play
from jaxenvs.tcgjax.reference import ScriptedPolicy, action_mask, convert


@pytest.mark.slow
def test_api_single_agent_against_random_and_scripted():
    """Slow: the compiled single-agent step (the game step inside the opponent's loop, plus the
    auto-reset) takes minutes to compile on a 2-core CPU."""
    env = TCGJax()
    jaxenvs.api_test(env, env.make_params(opponent=0, agent_seat=1), num_envs=4, num_steps=48)
    report = jaxenvs.api_test(env, env.make_params(opponent=1, deck0=0, deck1=4), num_envs=4,
                              num_steps=48)
    assert report.episodes_ended > 0


@pytest.mark.slow
def test_api_self_play():
    """Slow: minutes of compilation on a 2-core CPU."""
    env = TCGJax2P()
    report = jaxenvs.api_test(env, env.make_params(deck0=1, deck1=2), num_envs=4, num_steps=192)
    assert report.episodes_ended > 0


def test_invalid_params_are_named():
    env = TCGJax()
    for bad in ({"deck0": 6}, {"agent_seat": 2}, {"opponent": 3}):
        try:
            env.make_params(**bad)
        except ValueError as e:
            assert list(bad)[0] in str(e)
        else:
            raise AssertionError(f"{bad} accepted")


def test_observation_hides_the_opponents_hand_and_deck_order():
    env = TCGJax2P()
    obs, state = env.reset(jax.random.key(3), env.default_params)
    me = int(obs["me"])
    own = state.game.players
    assert np.array_equal(obs["hand"], own.hand[me])
    assert sorted(np.asarray(obs["deck"])[:int(own.deck_size[me])].tolist()) == \
        np.asarray(obs["deck"])[:int(own.deck_size[me])].tolist()
    leaves = [np.asarray(x) for x in jax.tree.leaves(obs)]
    opp_hand = np.asarray(own.hand[1 - me])
    # The opponent's hand appears nowhere as a sequence; only its size (counts) is shown.
    assert not any(x.ndim == 1 and x.shape == opp_hand.shape and np.array_equal(x, opp_hand)
                   for x in leaves)
    assert int(obs["counts"][1, 1]) == int(own.hand_size[1 - me])


def test_observation_hides_the_opponents_placement_during_setup():
    """The first player to place has placed; the second sees nothing of it until both have
    (the real game reveals both at once), then sees it as it is. (Energy, damage and
    conditions are empty during setup anyway: the stack and the slot turns show the hiding.)"""
    view, step = jax.jit(observe.observation), jax.jit(play)
    state = jax.jit(new_episode)(jax.random.key(0), TCGJax().default_params)
    first = int(state.game.setup_player)
    while int(state.game.setup_player) == first:  # a Basic, then END
        legal = np.flatnonzero(np.asarray(state.mask))
        state = step(state, jnp.int32(legal[0]))  # END is action 0
    assert int(state.game.phase) == 0  # SETUP, the second player placing
    players = state.game.players
    assert np.any(np.asarray(players.stack[first]) >= 0)
    obs = view(state.game, jnp.int32(1 - first), state.mask)
    for key, fill in (("stack", -1), ("damage", 0), ("energy", 0), ("status", False),
                      ("slot_turns", -1)):
        assert np.all(np.asarray(obs[key][1]) == fill), key
    while int(state.game.phase) == 0:
        state = step(state, jnp.int32(np.flatnonzero(np.asarray(state.mask))[0]))
    obs = view(state.game, jnp.int32(1 - first), state.mask)
    np.testing.assert_array_equal(obs["stack"][1], players.stack[first])
    np.testing.assert_array_equal(obs["stack"][0], state.game.players.stack[1 - first])


MASK = jax.jit(observe.engine.legal_action_mask)


def _reference_choice(policy, state):
    game = convert.to_game(state.game, None)
    assert action_mask(game) == list(np.asarray(MASK(state.game)))
    return policy(game)


def test_opponent_policies_choose_as_the_reference_policies():
    """The JAX scripted opponent takes the reference ScriptedPolicy's action at every decision
    of scripted-vs-scripted games; the JAX random opponent takes the RULES.md draw."""
    scripted = jax.jit(observe.scripted_action)
    step = jax.jit(play)
    for g in range(4):
        params = TCGJax().make_params(deck0=g % len(DECK_NAMES), deck1=(3 * g + 1) % 6)
        state = jax.jit(new_episode)(jax.random.key(g), params)
        while int(state.game.phase) != 5:
            want = _reference_choice(ScriptedPolicy(), state)
            assert int(scripted(state.game, MASK(state.game))) == want
            state = step(state, jnp.int32(want))
    key = jax.random.key(9)
    state = jax.jit(new_episode)(jax.random.key(1), TCGJax().default_params)
    for j in range(5):
        mask = np.asarray(MASK(state.game))
        legal = np.flatnonzero(mask)
        hi, lo = (int(w) for w in jax.random.key_data(jax.random.fold_in(key, j)))
        r = (hi << 32 | lo) % len(legal)
        assert int(jax.jit(observe.random_action)(MASK(state.game), key, j)) == legal[r]
        state = step(state, jnp.int32(legal[r]))


def test_illegal_and_out_of_range_actions_become_the_first_legal_action():
    from jaxenvs.tcgjax import actions as A
    from jaxenvs.tcgjax._src.engine import legal_action_mask
    from jaxenvs.tcgjax.env import legal_or_first

    game = new_episode(jax.random.key(3), TCGJax().default_params).game
    mask = np.asarray(legal_action_mask(game))
    assert 0 < mask.sum() < A.NUM_ACTIONS  # some actions legal, some not
    tried = jnp.arange(-3, A.NUM_ACTIONS + 3)
    batched = jax.jit(jax.vmap(legal_or_first, in_axes=(None, 0)))(jnp.asarray(mask), tried)
    # one by one, as an env steps on a CPU: the first legal action looked for in a branch
    alone = jax.jit(lambda m, a: jax.lax.map(lambda x: legal_or_first(m, x), a))(
        jnp.asarray(mask), tried)
    for chosen, illegal in (batched, alone):
        for action, got, flagged in zip(np.asarray(tried), np.asarray(chosen),
                                        np.asarray(illegal)):
            is_legal = 0 <= action < A.NUM_ACTIONS and mask[action]
            assert flagged == (not is_legal)
            assert got == (action if is_legal else np.argmax(mask))


def _cards_of(game, p: int) -> list[int]:
    """Every card index player ``p`` holds (hand, deck, in play), sorted."""
    me = jax.tree.map(lambda x: np.asarray(x)[p], game.players)
    held = np.concatenate([me.hand, me.deck, me.stack.ravel()])
    return sorted(held[held >= 0].tolist())


def test_make_takes_a_pool_of_decks():
    """A sample deck's id, a dict of card ids and a random legal deck: the game deals each
    player the 20 cards of the deck its index names."""
    from jaxenvs.tcgjax._src.tables import card_index
    from jaxenvs.tcgjax.cards import random_deck, sample_decks

    mewtwo = sample_decks()["psychic-mewtwo-gardevoir"]
    pool = ["water-blastoise",
            {"cards": [c.id for c in mewtwo.cards], "energy": ["Psychic"], "id": "mine"},
            random_deck(3)]
    env, params = jaxenvs.make("TCGJax2P", decks=pool, deck0=2, deck1=1)
    obs, state = jax.jit(env.reset)(jax.random.key(0), params)
    assert np.asarray(state.game.deck_ids).tolist() == [2, 1]
    for p, deck in ((0, random_deck(3)), (1, mewtwo)):
        assert _cards_of(state.game, p) == sorted(card_index()[c.id] for c in deck.cards)


def test_minus_one_draws_each_players_deck_from_the_pool():
    from jaxenvs.tcgjax.cards import random_decks

    env, params = jaxenvs.make("TCGJax2P", decks=random_decks(4, seed=7), deck0=-1, deck1=-1)
    reset = jax.jit(jax.vmap(env.reset, in_axes=(0, None)))
    keys = jax.random.split(jax.random.key(1), 64)
    ids = np.asarray(reset(keys, params)[1].game.deck_ids)
    assert {tuple(i) for i in ids.tolist()} > {(0, 0)} and set(ids.ravel()) == {0, 1, 2, 3}
    assert np.array_equal(ids, np.asarray(reset(keys, params)[1].game.deck_ids))


@pytest.mark.parametrize("overrides, message", [
    ({"decks": []}, "non-empty list"),
    ({"decks": ["no-such-deck"]}, "deck 0: 'no-such-deck' is not a sample or meta deck"),
    ({"decks": [{"cards": ["A1-096"] * 2, "energy": ["Lightning"]}]}, "exactly 20 cards"),
    ({"decks": "/no/such/decks.json"}, "cannot read decks from '/no/such/decks.json'"),
    ({"decks": ["water-blastoise", "fire-charizard-moltres"], "deck1": 2}, "deck1"),
    ({"deck0": -2}, "deck0"),
    ({"decks": {"cards": np.zeros((2, 20), np.int32)}}, "dict of"),
])
def test_bad_decks_are_refused_at_make(overrides, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        jaxenvs.make("TCGJax", **overrides)


def test_a_pool_given_as_arrays_is_checked_deck_by_deck():
    from jaxenvs.tcgjax.env import default_decks

    pool = {k: np.array(v) for k, v in default_decks().items()}
    assert jaxenvs.make("TCGJax", decks=pool)[1].decks["cards"].shape == (6, 20)
    pool["cards"][1, :3] = pool["cards"][1, 0]  # three copies of one card
    with pytest.raises(ValueError, match="deck 1: at most 2 copies per name: 3 x"):
        jaxenvs.make("TCGJax", decks=pool)
    pool["cards"][1, 0] = 10_000
    with pytest.raises(ValueError, match="deck 1: card indices or energy types out of range"):
        jaxenvs.make("TCGJax", decks=pool)
