"""L1: one test per rule of RULES.md, from hand-built positions with known outcomes.

Positions use a ScriptedRandomSource, so each test also pins how many coins and draws a rule
takes (an unexpected random call fails the test).
"""

import pytest

from jaxenvs.tcgjax import actions as A
from jaxenvs.tcgjax.cards import load_deck, sample_decks
from jaxenvs.tcgjax.effects import EType
from jaxenvs.tcgjax.reference import Phase, Status, legal_actions, new_game, step
from jaxenvs.tcgjax.reference.positions import player, pokemon, position
from jaxenvs.tcgjax.constants import TURN_LIMIT, RuleOptions
from jaxenvs.tcgjax.reference.state import HAND_MAX
from jaxenvs.tcgjax.rng import ScriptedRandomSource

PIKACHU, ZAPDOS, VOLTORB, ELECTRODE = "A1-096", "A1-104", "A1-099", "A1-100"
MEWTWO, CHARMANDER, SQUIRTLE, WARTORTLE = "A1-129", "A1-033", "A1-053", "A1-054"
BULBASAUR, IVYSAUR, VENUSAUR = "A1-001", "A1-002", "A1-004"
KOFFING, WEEZING, EKANS = "A1-176", "A1-177", "A1-164"
RESEARCH, POKEBALL, POTION, XSPEED, REDCARD = "P-A-007", "P-A-005", "P-A-001", "P-A-002", "P-A-006"
SABRINA, GIOVANNI, MISTY = "A1-225", "A1-223", "A1-220"
ONE_BASIC = ([PIKACHU] + [RESEARCH, POKEBALL, POTION, XSPEED, REDCARD, SABRINA, GIOVANNI,
                          "A1-219", "A1-220"] * 2 + ["A1-222"])


def end_turn(game):
    step(game, A.END)

# ------------------------------------------------------------------------------------ setup


def test_setup_random_calls_and_opening_hand():
    deck = load_deck(ONE_BASIC, ["Lightning"])
    light = sample_decks()["lightning-pikachu-zapdos"]  # 8 Basics in list order: 4 ex, 2 Voltorb
    reverse = list(range(18, -1, -1))
    rng = ScriptedRandomSource(coins=[False], ints=[0, 5, 0, 0], perms=[reverse, reverse])
    game = new_game(deck, light, rng)
    assert [c[0] for c in rng.calls] == ["coin", "randint", "permutation", "randint",
                                        "permutation", "randint", "randint"]
    assert [c[1] for c in rng.calls] == [2, 1, 19, 6, 19, 1, 1]
    assert game.first_player == 1 and game.current_player == 1 and game.phase is Phase.SETUP
    p0, p1 = game.players
    assert p0.hand[0].name == "Pikachu ex" and len(p0.hand) == 5 and len(p0.deck) == 15
    # The other 19 cards in reversed list order: hand gets the last four of the list.
    assert [c.id for c in p0.hand[1:]] == ONE_BASIC[20:15:-1]
    assert p1.hand[0].id == VOLTORB  # Basic number 5 (0-based) in list order: the 2nd Voltorb
    assert p0.zone_next == EType.LIGHTNING and p0.zone_current is None


def test_setup_placement():
    light = sample_decks()["lightning-pikachu-zapdos"]
    ident = list(range(19))
    rng = ScriptedRandomSource(coins=[True], ints=[0, 0, 0, 0], perms=[ident, ident])
    game = new_game(light, light, rng)  # hands: Pikachu ex, Pikachu ex, Zapdos ex x2, Voltorb
    assert legal_actions(game) == [A.play(i) for i in range(5)]  # no END before an Active
    step(game, A.play(2))
    assert game.players[0].active.card.name == "Zapdos ex"
    for _ in range(3):
        step(game, A.play(0))
    assert [m.card.name for m in game.players[0].slots] == [
        "Zapdos ex", "Pikachu ex", "Pikachu ex", "Zapdos ex"]
    assert legal_actions(game) == [A.END]  # Bench full: only done
    step(game, A.END)
    assert game.current_player == 1 and game.phase is Phase.SETUP
    step(game, A.play(4))
    rng.ints = [0]  # turn 1 has no Zone draw: nothing else is drawn
    step(game, A.END)
    assert game.turn == 1 and game.phase is Phase.MAIN and game.current_player == 0
    assert game.players[1].active.card.name == "Voltorb"
    assert len(game.players[0].hand) == 2 and game.players[0].zone_current is None


# ------------------------------------------------------------------------------- turn start


def test_turn_start_zone_moves_and_draw():
    game = position(player(PIKACHU, deck=[VOLTORB], zone=(None, "Lightning")),
                    player(MEWTWO, deck=[RESEARCH], energy=("Psychic", "Darkness"),
                           zone=(None, "Darkness")), turn=1)
    game.rng = ScriptedRandomSource(ints=[0])
    end_turn(game)
    p1 = game.players[1]
    assert game.turn == 2 and game.current_player == 1
    assert p1.zone_current == EType.DARKNESS and p1.zone_next == EType.PSYCHIC
    assert [c.id for c in p1.hand] == [RESEARCH] and not p1.deck


def test_no_draw_with_full_hand_and_empty_deck_is_no_loss():
    game = position(player(PIKACHU, hand=[POTION] * HAND_MAX, deck=[VOLTORB]),
                    player(MEWTWO, energy=("Psychic",)), turn=2, first_player=1)
    game.rng = ScriptedRandomSource(ints=[0, 0])
    end_turn(game)
    assert len(game.players[0].hand) == HAND_MAX and len(game.players[0].deck) == 1
    end_turn(game)  # P1's deck is empty: no draw, the game goes on
    assert not game.over and game.turn == 4


def test_first_turn_no_energy_but_attacking_is_allowed():
    # Turn 1 gives the first player no Energy Zone energy, and nothing else is banned: with
    # energy from an effect (Misty: one heads) its Active attacks.
    game = position(player(pokemon(VOLTORB), zone=(None, "Lightning")), player(MEWTWO), turn=1)
    assert legal_actions(game) == [A.END]  # no energy to attach, none to pay an attack
    game = position(player(SQUIRTLE, hand=[MISTY], energy=("Water",), zone=(None, "Water")),
                    player(MEWTWO), turn=1, rng=ScriptedRandomSource(coins=[True, False]))
    step(game, A.play_on(0, 0))
    assert game.players[0].active.energy[EType.WATER] == 1
    assert A.attack(0) in legal_actions(game)
    game.rng.ints = [0]  # the second player's Zone draw at its turn's start
    step(game, A.attack(0))
    assert game.players[1].active.damage == 20 and game.turn == 2


def test_attach_once_and_unused_energy_is_lost():
    game = position(player(PIKACHU, bench=[VOLTORB], zone=("Lightning", "Lightning")),
                    player(MEWTWO, energy=("Psychic",)), turn=3)
    assert {A.attach(0), A.attach(1)} <= set(legal_actions(game))
    assert A.attach(2) not in legal_actions(game)  # empty slot
    step(game, A.attach(1))
    assert game.players[0].slots[1].energy[EType.LIGHTNING] == 1
    assert not any(A.ATTACH_BASE <= a < A.PLAY_BASE for a in legal_actions(game))
    game2 = position(player(PIKACHU, zone=("Lightning", "Lightning")),
                     player(MEWTWO, energy=("Psychic",)), turn=3,
                     rng=ScriptedRandomSource(ints=[0]))
    end_turn(game2)
    assert game2.players[0].zone_current is None


# ----------------------------------------------------------------------------- main actions


def test_play_basic_to_first_empty_bench_slot():
    game = position(player(PIKACHU, bench=[None, VOLTORB], hand=[ZAPDOS, VOLTORB]),
                    player(MEWTWO), turn=3)
    step(game, A.play(0))
    assert game.players[0].slots[1].card.name == "Zapdos ex"
    step(game, A.play(0))
    assert game.players[0].slots[3].card.name == "Voltorb"
    assert game.players[0].slots[3].entered_turn == 3


def test_bench_full_refuses_basics():
    game = position(player(PIKACHU, bench=[VOLTORB] * 3, hand=[ZAPDOS]), player(MEWTWO))
    assert A.play(0) not in legal_actions(game)


def test_evolution_rules():
    # Not on turns 1 and 2.
    for turn, first in ((1, 0), (2, 1)):
        game = position(player(VOLTORB, hand=[ELECTRODE]), player(MEWTWO), turn=turn,
                        first_player=first)
        assert A.play_on(0, 0) not in legal_actions(game)
    # Not onto a Pokémon placed this turn; onto the named pre-evolution only.
    game = position(player(pokemon(VOLTORB, damage=30, energy="L",
                                   statuses=(Status.POISONED,)),
                           bench=[pokemon(VOLTORB, entered_turn=3), PIKACHU],
                           hand=[ELECTRODE]), player(MEWTWO), turn=3)
    assert [a for a in legal_actions(game) if A.decode(a).kind == "play_on"] == [A.play_on(0, 0)]
    step(game, A.play_on(0, 0))
    active = game.players[0].active
    assert active.card.name == "Electrode" and [c.id for c in active.cards] == [VOLTORB, ELECTRODE]
    assert active.damage == 30 and active.energy[EType.LIGHTNING] == 1
    assert not active.statuses and active.entered_turn == 3
    # Evolved this turn: no second evolution (Bulbasaur -> Ivysaur -> Venusaur ex).
    game = position(player(BULBASAUR, hand=[IVYSAUR, VENUSAUR]), player(MEWTWO), turn=3)
    step(game, A.play_on(0, 0))
    assert A.play_on(0, 0) not in legal_actions(game)


def test_supporter_once_per_turn_items_unlimited():
    game = position(player(PIKACHU, hand=[RESEARCH, GIOVANNI, XSPEED, XSPEED]),
                    player(MEWTWO), turn=3)
    step(game, A.play(1))  # Giovanni
    legal = legal_actions(game)
    assert A.play(0) not in legal  # Research: a second Supporter
    step(game, A.play(1))
    step(game, A.play(1))
    assert game.players[0].retreat_discount == 2


def test_supporters_allowed_on_first_turn():
    game = position(player(PIKACHU, hand=[RESEARCH]), player(MEWTWO), turn=1)
    assert A.play(0) in legal_actions(game)


def test_retreat():
    game = position(player(pokemon(MEWTWO, energy="PPP", statuses=(Status.POISONED,)),
                           bench=[None, PIKACHU]), player(PIKACHU), turn=3)
    assert [a for a in legal_actions(game) if A.decode(a).kind == "retreat"] == [A.retreat(2)]
    step(game, A.retreat(2))
    me = game.players[0]
    assert me.active.card.name == "Pikachu ex"
    assert me.slots[2].card.name == "Mewtwo ex" and me.slots[2].energy[EType.PSYCHIC] == 1
    assert not me.slots[2].statuses  # Special Conditions end on the Bench
    assert not any(A.decode(a).kind == "retreat" for a in legal_actions(game))  # once a turn


def test_retreat_needs_energy_and_x_speed_lowers_cost():
    game = position(player(pokemon(MEWTWO, energy="P"), bench=[PIKACHU], hand=[XSPEED]),
                    player(PIKACHU), turn=3)
    assert A.retreat(1) not in legal_actions(game)
    step(game, A.play(0))
    step(game, A.retreat(1))
    assert game.players[0].slots[1].energy[EType.PSYCHIC] == 0


@pytest.mark.parametrize("status", [Status.ASLEEP, Status.PARALYZED])
def test_asleep_and_paralyzed_cannot_attack_or_retreat(status):
    game = position(player(pokemon(ELECTRODE, energy="LL", statuses=(status,)),
                           bench=[PIKACHU]), player(MEWTWO), turn=3)
    assert legal_actions(game) == [A.END]


def test_attack_cost_colorless_paid_by_any_type():
    game = position(player(pokemon(MEWTWO, energy="PL")), player(PIKACHU), turn=3)
    assert A.attack(0) in legal_actions(game)  # {P}{C}
    game = position(player(pokemon(MEWTWO, energy="LL")), player(PIKACHU), turn=3)
    assert A.attack(0) not in legal_actions(game)  # {P} needs a Psychic


def test_attack_damage_weakness_and_turn_end():
    game = position(player(pokemon(MEWTWO, energy="PP")), player(WEEZING, deck=[RESEARCH]),
                    turn=3, rng=ScriptedRandomSource(ints=[0]))
    step(game, A.attack(0))  # Psychic Sphere 50; Weezing is weak to Fighting: no bonus
    assert game.players[1].active.damage == 50
    assert game.turn == 4 and game.current_player == 1
    game = position(player(pokemon(EKANS, energy="D")), player(MEWTWO), turn=3,
                    rng=ScriptedRandomSource(ints=[0]))
    step(game, A.attack(0))  # Bite 20 + weakness 20 (Mewtwo ex is weak to Darkness)
    assert game.players[1].active.damage == 40


def test_zero_damage_gets_no_modifiers():
    game = position(player(pokemon(ZAPDOS, energy="LLL"), hand=[GIOVANNI]), player(ZAPDOS),
                    turn=3, rng=ScriptedRandomSource(coins=[False] * 4, ints=[0]))
    step(game, A.play(0))
    step(game, A.attack(1))  # 0 heads: 0 damage, no Giovanni, no weakness (Zapdos weak to L)
    assert game.players[1].active.damage == 0


def test_confused_attack_fails_on_tails():
    for coin, damage in ((False, 0), (True, 70)):
        game = position(player(pokemon(ELECTRODE, energy="LL", statuses=(Status.CONFUSED,))),
                        player(MEWTWO), turn=3, rng=ScriptedRandomSource(coins=[coin], ints=[0]))
        step(game, A.attack(0))
        assert game.players[1].active.damage == damage and game.turn == 4


def test_exclusive_statuses_replace_each_other():
    mon = pokemon(PIKACHU, statuses=(Status.POISONED, Status.ASLEEP))
    mon.add_status(Status.PARALYZED)
    assert mon.statuses == {Status.POISONED, Status.PARALYZED}

# ---------------------------------------------------------------------------------- checkup


def test_checkup_order_and_effects():
    # Turn 3 (P0's) ends: P0's Active first, then P1's. Coins: P0 burn (tails: stays), P0 sleep
    # (heads: wakes), P1 burn (heads: cured), P1 sleep (tails: sleeps on).
    p0 = pokemon(MEWTWO, statuses=(Status.POISONED, Status.BURNED, Status.ASLEEP))
    p1 = pokemon(ZAPDOS, statuses=(Status.BURNED, Status.ASLEEP))
    game = position(player(p0, bench=[VOLTORB]), player(p1, bench=[VOLTORB]), turn=3,
                    rng=ScriptedRandomSource(coins=[False, True, True, False], ints=[0]))
    end_turn(game)
    assert p0.damage == 30 and p0.statuses == {Status.POISONED, Status.BURNED}
    assert p1.damage == 20 and p1.statuses == {Status.ASLEEP}
    assert [c[2] for c in game.rng.calls[:4]] == [False, True, True, False]


def test_paralysis_ends_after_owners_next_turn():
    mon = pokemon(ZAPDOS, statuses=(Status.PARALYZED,))
    game = position(player(PIKACHU), player(mon), turn=3,
                    rng=ScriptedRandomSource(ints=[0, 0]))
    end_turn(game)  # P0's turn ends: P1's Pokémon stays paralyzed for P1's turn
    assert Status.PARALYZED in mon.statuses and legal_actions(game) == [A.END]
    end_turn(game)
    assert not mon.statuses


def test_both_actives_knocked_out_in_checkup():
    # Both poisoned at 10 HP left, turn 3 (P0's) ends: P1 promotes first, then P0.
    game = position(player(pokemon(VOLTORB, damage=50, statuses=(Status.POISONED,)),
                           bench=[PIKACHU]),
                    player(pokemon(VOLTORB, damage=50, statuses=(Status.POISONED,)),
                           bench=[None, ZAPDOS]), turn=3,
                    rng=ScriptedRandomSource(ints=[0]))
    end_turn(game)
    assert game.players[0].points == 1 and game.players[1].points == 1
    assert game.current_player == 1 and legal_actions(game) == [A.choose(2)]
    step(game, A.choose(2))
    assert game.current_player == 0 and legal_actions(game) == [A.choose(1)]
    step(game, A.choose(1))
    assert game.turn == 4 and game.phase is Phase.MAIN and game.current_player == 1
    assert game.players[1].active.card.name == "Zapdos ex"

# ------------------------------------------------------------------------ knock-outs and win


def test_knockout_points_and_promotion():
    game = position(player(pokemon(ELECTRODE, energy="LL")),
                    player(pokemon(PIKACHU, damage=50), bench=[VOLTORB, None, ZAPDOS]), turn=3)
    step(game, A.attack(0))  # 70 + 0 (Pikachu ex weak to Fighting): 120 -> KO, ex: 2 points
    assert game.players[0].points == 2
    assert [c.id for c in game.players[1].discard] == [PIKACHU]
    assert game.current_player == 1 and legal_actions(game) == [A.choose(1), A.choose(3)]
    game.rng = ScriptedRandomSource(ints=[0])
    step(game, A.choose(3))
    p1 = game.players[1]
    assert p1.active.card.name == "Zapdos ex" and p1.slots[3] is None
    assert game.turn == 4 and game.current_player == 1


def test_win_by_points():
    game = position(player(pokemon(ELECTRODE, energy="LL"), points=2),
                    player(pokemon(VOLTORB), bench=[VOLTORB]), turn=3)
    step(game, A.attack(0))
    assert game.over and game.winner == 0 and game.rewards() == (1.0, -1.0)
    assert legal_actions(game) == []


def test_win_when_opponent_has_no_pokemon_left():
    game = position(player(pokemon(ELECTRODE, energy="LL")), player(VOLTORB), turn=4,
                    first_player=1)
    step(game, A.attack(0))
    assert game.over and game.winner == 0 and game.players[0].points == 1


@pytest.mark.parametrize("benches", [((), ()), ((KOFFING,), (KOFFING,))])
def test_both_win_at_once_is_a_draw(benches):
    # Both last Actives die to poison in the same checkup and each player reaches 3 points:
    # both win conditions hold, and with no Bench on either side (or one on each) it is a draw.
    game = position(*(player(pokemon(VOLTORB, damage=50, statuses=(Status.POISONED,)),
                             bench=bench, points=2) for bench in benches),
                    turn=3, rng=ScriptedRandomSource())
    end_turn(game)
    assert game.over and game.winner is None and game.rewards() == (0.0, 0.0)


@pytest.mark.parametrize("with_bench, points", [(0, (2, 2)), (1, (2, 2)), (1, (2, 0)),
                                                (0, (0, 2))])
def test_both_win_at_once_the_player_with_a_pokemon_left_wins(with_bench, points):
    # Both Actives die to poison in the same checkup; both players meet a win condition (3
    # points, or the foe's last Pokémon gone). The one with a Benched Pokémon left wins,
    # whatever the points (1 against 3 in the last two cases), the turn player or not.
    game = position(*(player(pokemon(VOLTORB, damage=50, statuses=(Status.POISONED,)),
                             bench=(KOFFING,) if p == with_bench else (), points=points[p])
                      for p in (0, 1)), turn=3, rng=ScriptedRandomSource())
    end_turn(game)
    assert game.over and game.winner == with_bench


def test_turn_limit_is_a_draw():
    assert TURN_LIMIT == 30  # the app's count: both players' turns, 15 each
    game = position(player(PIKACHU), player(MEWTWO), turn=TURN_LIMIT - 1,
                    rng=ScriptedRandomSource(ints=[0]))
    end_turn(game)
    assert game.turn == TURN_LIMIT and not game.over
    end_turn(game)
    assert game.over and game.winner is None and game.turn == TURN_LIMIT


def test_the_rule_options_where_sources_disagree():
    """A 50-turn limit; no draw for the first player on turn 1; no Supporter on turn 1 (the
    Supporter allowed again on turn 2)."""
    longer = RuleOptions(turn_limit=50)
    game = position(player(PIKACHU), player(MEWTWO), turn=TURN_LIMIT,
                    rng=ScriptedRandomSource(ints=[0, 0]), options=longer)
    end_turn(game)
    assert game.turn == TURN_LIMIT + 1 and not game.over
    game = position(player(PIKACHU), player(MEWTWO), turn=50, options=longer)
    end_turn(game)
    assert game.over and game.winner is None and game.turn == 50

    light = sample_decks()["lightning-pikachu-zapdos"]
    for draws in (True, False):
        ident = list(range(19))
        rng = ScriptedRandomSource(coins=[True], ints=[0, 0, 0, 0], perms=[ident, ident])
        game = new_game(light, light, rng, RuleOptions(first_turn_draw=draws))
        step(game, A.play(0))
        step(game, A.END)
        step(game, A.play(0))
        step(game, A.END)
        assert game.turn == 1 and len(game.players[0].hand) == 4 + draws
        assert len(game.players[0].deck) == 15 - draws

    no_supporter = RuleOptions(first_turn_supporter=False)
    game = position(player(PIKACHU, hand=[RESEARCH]), player(MEWTWO), turn=1,
                    options=no_supporter)
    assert A.play(0) not in legal_actions(game)
    game = position(player(MEWTWO), player(PIKACHU, hand=[RESEARCH]), turn=2,
                    options=no_supporter)  # the second player's first turn
    assert A.play(0) in legal_actions(game)


def test_illegal_action_raises():
    game = position(player(PIKACHU), player(MEWTWO), turn=3)
    with pytest.raises(ValueError, match="illegal action attack"):
        step(game, A.attack(0))


def test_retreat_discards_lowest_type_first():
    game = position(player(pokemon(MEWTWO, energy="PLP"), bench=[PIKACHU]), player(PIKACHU))
    step(game, A.retreat(1))  # cost 2: Lightning (type 3) before Psychic (type 4)
    assert game.players[0].slots[1].energy[EType.PSYCHIC] == 1
    assert game.players[0].slots[1].energy_count() == 1
