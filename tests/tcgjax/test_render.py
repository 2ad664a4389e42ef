"""The text rendering of states, actions and logs."""

from jaxenvs.tcgjax import actions as A
from jaxenvs.tcgjax.cards import sample_decks
from jaxenvs.tcgjax.reference import RandomPolicy, legal_actions, new_game, step
from jaxenvs.tcgjax.reference.positions import player, pokemon, position
from jaxenvs.tcgjax.reference.render import describe_action, render, render_log
from jaxenvs.tcgjax.reference.state import Status
from jaxenvs.tcgjax.rng import PythonRandomSource


def test_render_position():
    game = position(player(pokemon("A1-129", damage=30, energy="PP",
                                   statuses=(Status.POISONED,)),
                           bench=["A1-130"], hand=["P-A-001"], zone=("Psychic", "Psychic"),
                           energy=("Psychic",)),
                    player("A1-096", points=1))
    text = render(game)
    assert "Mewtwo ex [A1-129] 120/150 HP, energy PP, poisoned" in text
    assert "P1: 1 points" in text and "Bench 1  Ralts" in text and "hand: Potion" in text
    assert "P0 to decide:" in text
    assert f"{A.play_on(0, 0):2d} play_on(0, 0)  play Potion on Active (Mewtwo ex)" in text
    assert "attach Psychic energy to Bench 1 (Ralts)" in text
    assert "retreat to Bench 1 (Ralts)" in text


def test_every_action_of_a_game_can_be_described():
    decks = sample_decks()
    game = new_game(decks["water-blastoise"], decks["darkness-weezing-arbok-koga"],
                    PythonRandomSource(0))
    policy = RandomPolicy(PythonRandomSource(1))
    while not game.over:
        for a in legal_actions(game):
            assert describe_action(game, a)
        assert "to decide" in render(game)
        step(game, policy(game))
    assert "game over" in render(game)
    log = render_log(game)
    assert "goes first" in log.splitlines()[0] and ("wins" in log or "draw" in log)
