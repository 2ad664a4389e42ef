"""The action space layout (shared with the JAX engine) and the policies that pick from it."""

import pytest

from jaxenvs.tcgjax import actions as A
from jaxenvs.tcgjax.reference import RandomPolicy, ScriptedPolicy, legal_actions, step
from jaxenvs.tcgjax.reference.positions import player, pokemon, position
from jaxenvs.tcgjax.rng import ScriptedRandomSource


def test_layout():
    assert (A.END, A.ATTACK_BASE, A.ATTACH_BASE, A.PLAY_BASE, A.PLAY_ON_BASE, A.ABILITY_BASE,
            A.RETREAT_BASE, A.CHOOSE_BASE, A.NUM_ACTIONS) == (0, 1, 3, 7, 17, 57, 61, 64, 68)
    built = ([A.END] + [A.attack(k) for k in range(2)] + [A.attach(j) for j in range(4)]
             + [A.play(i) for i in range(10)]
             + [A.play_on(i, j) for i in range(10) for j in range(4)]
             + [A.ability(j) for j in range(4)] + [A.retreat(j) for j in (1, 2, 3)]
             + [A.choose(j) for j in range(4)])
    assert built == list(range(A.NUM_ACTIONS))


def test_decode_inverts_the_constructors():
    assert A.decode(A.play_on(7, 2)) == ("play_on", 7, 2)
    assert A.decode(A.retreat(3)) == ("retreat", -1, 3)
    assert A.decode(A.choose(0)) == ("choose", -1, 0)
    assert A.name(A.attack(1)) == "attack(1)"
    for bad in (-1, A.NUM_ACTIONS):
        with pytest.raises(ValueError, match="outside"):
            A.decode(bad)


def test_random_policy_takes_the_drawn_index_of_the_sorted_legal_actions():
    game = position(player(pokemon("A1-099", energy="L"), bench=["A1-096"],
                           zone=("Lightning", "Lightning")), player("A1-129"))
    legal = legal_actions(game)
    assert legal == sorted(legal)
    source = ScriptedRandomSource(ints=[2])
    assert RandomPolicy(source)(game) == legal[2] and source.calls == [("randint", len(legal), 2)]


def test_scripted_policy_priorities():
    # Evolve first, then attach to the Active, then play a Basic, then attack, then end.
    game = position(player(pokemon("A1-099", energy="L"), hand=["A1-100", "A1-104"],
                           zone=("Lightning", "Lightning")), player("A1-129"),
                    rng=ScriptedRandomSource(ints=[0]))
    policy = ScriptedPolicy()
    chosen = []
    while game.turn == 3:
        action = policy(game)
        chosen.append(A.name(action))
        step(game, action)
    assert chosen == ["play_on(0, 0)", "attach(0)", "play(0)", "attack(0)"]


def test_scripted_policy_promotes_the_healthiest_bench_pokemon():
    game = position(player(pokemon("A1-100", energy="LL")),
                    player("A1-099", bench=[pokemon("A1-096", damage=70), "A1-099", "A1-104"]))
    step(game, A.attack(0))  # Electro Ball knocks out Voltorb
    assert game.current_player == 1
    assert ScriptedPolicy()(game) == A.choose(3)  # Zapdos ex: 130 HP left
