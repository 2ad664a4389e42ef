"""L1: a test for every implemented effect text (one per text, or one per opcode taking each
card that uses it).

Each test builds a position, plays the card, ability or attack, and checks the known outcome;
the ScriptedRandomSource fixes every coin and fails on an unexpected one.
"""

import pytest

from jaxenvs.tcgjax import actions as A
from jaxenvs.tcgjax.effects import EType
from jaxenvs.tcgjax.reference import Status, legal_actions, step
from jaxenvs.tcgjax.reference.positions import player, pokemon, position
from jaxenvs.tcgjax.rng import ScriptedRandomSource

PIKACHU, ZAPDOS, VOLTORB = "A1-096", "A1-104", "A1-099"
MEWTWO, RALTS, GARDEVOIR = "A1-129", "A1-130", "A1-132"
CHARMANDER, CHARIZARD, MOLTRES = "A1-033", "A1-036", "A1-047"
SQUIRTLE, BLASTOISE, ARTICUNO = "A1-053", "A1-056", "A1-084"
BULBASAUR, VENUSAUR, EXEGGCUTE, EXEGGUTOR = "A1-001", "A1-004", "A1-021", "A1-023"
EKANS, ARBOK, KOFFING, WEEZING = "A1-164", "A1-165", "A1-176", "A1-177"
RESEARCH, POKEBALL, POTION, XSPEED, REDCARD = "P-A-007", "P-A-005", "P-A-001", "P-A-002", "P-A-006"
SABRINA, GIOVANNI, ERIKA, MISTY, KOGA = "A1-225", "A1-223", "A1-219", "A1-220", "A1-222"
SNORLAX = "A1-211"  # 150 HP, {C}, weak to {F}


def next_turn_rng(**kw):
    """A source that also answers the next turn's Energy Zone draw."""
    kw.setdefault("ints", [])
    kw["ints"] = list(kw["ints"]) + [0]
    return ScriptedRandomSource(**kw)

# ---------------------------------------------------------------------------------- trainers


def test_professor_research_draws_two_within_hand_limit():
    game = position(player(PIKACHU, hand=[RESEARCH], deck=[VOLTORB, ZAPDOS, POTION]),
                    player(MEWTWO))
    step(game, A.play(0))
    me = game.players[0]
    assert [c.id for c in me.hand] == [VOLTORB, ZAPDOS] and [c.id for c in me.deck] == [POTION]
    assert me.supporter_played and [c.id for c in me.discard] == [RESEARCH]
    # 9 other cards in hand: the second draw stops at the limit of 10.
    game = position(player(PIKACHU, hand=[RESEARCH] + [POTION] * 9, deck=[VOLTORB, ZAPDOS]),
                    player(MEWTWO))
    step(game, A.play(0))
    assert len(game.players[0].hand) == 10 and [c.id for c in game.players[0].deck] == [ZAPDOS]


def test_sabrina_opponent_chooses_new_active():
    opp_active = pokemon(MEWTWO, statuses=(Status.POISONED,))
    game = position(player(PIKACHU, hand=[SABRINA]),
                    player(opp_active, bench=[None, RALTS, VOLTORB], energy=("Psychic",)))
    step(game, A.play(0))
    assert game.current_player == 1 and legal_actions(game) == [A.choose(2), A.choose(3)]
    step(game, A.choose(3))
    opp = game.players[1]
    assert opp.active.card.name == "Voltorb" and opp.slots[3] is opp_active
    assert not opp_active.statuses
    assert game.current_player == 0 and game.turn == 3  # back to the player's turn
    # No opponent Bench: not playable.
    game = position(player(PIKACHU, hand=[SABRINA]), player(MEWTWO))
    assert A.play(0) not in legal_actions(game)


def test_giovanni_adds_ten_to_active_damage_this_turn_only():
    game = position(player(pokemon(ARTICUNO, energy="WWW"), hand=[GIOVANNI]),
                    player(ZAPDOS, bench=[VOLTORB]), rng=next_turn_rng())
    step(game, A.play(0))
    step(game, A.attack(1))  # Blizzard 80 + 10 (Zapdos ex is weak to {L}, not {W}); Bench 10
    opp = game.players[1]
    assert opp.active.damage == 90 and opp.slots[1].damage == 10
    assert game.players[0].active_damage_bonus == 0  # ended with the turn


def test_erika_heals_50_from_a_grass_pokemon():
    game = position(player(pokemon(PIKACHU, damage=60), bench=[pokemon(BULBASAUR, damage=60),
                                                            EXEGGCUTE],
                           hand=[ERIKA], energy=("Grass",)), player(MEWTWO))
    # Only the damaged Grass Pokémon is a target (Pikachu ex is not Grass, Exeggcute unhurt).
    assert [a for a in legal_actions(game) if A.decode(a).kind == "play_on"] == [A.play_on(0, 1)]
    step(game, A.play_on(0, 1))
    assert game.players[0].slots[1].damage == 10


def test_koga_returns_active_weezing_and_its_basic_to_hand():
    game = position(player(pokemon(KOFFING, WEEZING, damage=50, energy="DD"), bench=[EKANS],
                           hand=[KOGA], energy=("Darkness",)), player(MEWTWO))
    step(game, A.play(0))
    me = game.players[0]
    assert [c.id for c in me.hand] == [WEEZING, KOFFING] and me.active is None
    assert game.current_player == 0 and legal_actions(game) == [A.choose(1)]
    step(game, A.choose(1))
    assert me.active.card.name == "Ekans" and game.turn == 3
    # Not playable: Koffing is no Muk/Weezing; or no Bench to promote from.
    for active, bench in ((KOFFING, [EKANS]), (pokemon(KOFFING, WEEZING), [])):
        game = position(player(active, bench=bench, hand=[KOGA], energy=("Darkness",)),
                        player(MEWTWO))
        assert A.play(0) not in legal_actions(game)


def test_koga_into_a_full_hand_discards_the_overflow():
    game = position(player(pokemon(KOFFING, WEEZING), bench=[EKANS],
                           hand=[KOGA] + [POTION] * 9, energy=("Darkness",)), player(MEWTWO))
    step(game, A.play(0))
    me = game.players[0]
    assert len(me.hand) == 10 and me.hand[-1].id == WEEZING
    assert [c.id for c in me.discard] == [KOGA, KOFFING]


def test_misty_flips_until_tails():
    game = position(player(pokemon(SQUIRTLE, energy="W"), bench=[PIKACHU], hand=[MISTY],
                           energy=("Water",)),
                    player(MEWTWO), rng=ScriptedRandomSource(coins=[True, True, True, False]))
    assert [a for a in legal_actions(game) if A.decode(a).kind == "play_on"] == [A.play_on(0, 0)]
    step(game, A.play_on(0, 0))
    assert game.players[0].active.energy[EType.WATER] == 4
    game = position(player(SQUIRTLE, hand=[MISTY], energy=("Water",)), player(MEWTWO),
                    rng=ScriptedRandomSource(coins=[False]))
    step(game, A.play_on(0, 0))
    assert game.players[0].active.energy[EType.WATER] == 0


def test_lt_surge_moves_all_benched_lightning_to_a_named_active():
    electabuzz = pokemon("A1-101", energy="L")
    game = position(player(electabuzz, bench=[pokemon(PIKACHU, energy="LLW"), VOLTORB,
                                              pokemon(ZAPDOS, energy="L")],
                           hand=["A1-226"]), player(MEWTWO))
    step(game, A.play(0))
    me = game.players[0]
    assert electabuzz.energy[EType.LIGHTNING] == 4 and electabuzz.energy_count() == 4
    assert [m.energy_count() for m in me.slots[1:]] == [1, 0, 0]  # the {W} stays
    # Another Active (Pikachu ex is not named): not playable.
    game = position(player(PIKACHU, bench=[pokemon(VOLTORB, energy="L")], hand=["A1-226"]),
                    player(MEWTWO))
    assert A.play(0) not in legal_actions(game)


def test_brock_attaches_fighting_to_golem_or_onix():
    onix = "A1-150"
    game = position(player(PIKACHU, bench=[onix, VOLTORB], hand=["A1-224"]), player(MEWTWO))
    assert [a for a in legal_actions(game) if A.decode(a).kind == "play_on"] == [A.play_on(0, 1)]
    step(game, A.play_on(0, 1))
    assert game.players[0].slots[1].energy[EType.FIGHTING] == 1
    # No Golem or Onix: not playable.
    game = position(player(PIKACHU, bench=[VOLTORB], hand=["A1-224"]), player(MEWTWO))
    assert not [a for a in legal_actions(game) if A.decode(a).kind.startswith("play")]


def test_poke_ball_takes_a_random_basic_from_the_deck():
    game = position(player(PIKACHU, hand=[POKEBALL], deck=[POTION, VOLTORB, "A1-100", ZAPDOS]),
                    player(MEWTWO), rng=ScriptedRandomSource(ints=[1]))
    step(game, A.play(0))
    me = game.players[0]
    assert game.rng.calls == [("randint", 2, 1)]  # Basics in deck order: Voltorb, Zapdos ex
    assert [c.id for c in me.hand] == [ZAPDOS]
    assert [c.id for c in me.deck] == [POTION, VOLTORB, "A1-100"]
    # No Basic in the deck: playable, nothing happens, no random call.
    game = position(player(PIKACHU, hand=[POKEBALL], deck=[POTION]), player(MEWTWO))
    step(game, A.play(0))
    assert game.players[0].hand == [] and game.rng.calls == []


def test_potion_heals_20_from_a_damaged_pokemon():
    game = position(player(pokemon(PIKACHU, damage=10), bench=[VOLTORB], hand=[POTION]),
                    player(MEWTWO))
    assert [a for a in legal_actions(game) if A.decode(a).kind == "play_on"] == [A.play_on(0, 0)]
    step(game, A.play_on(0, 0))
    assert game.players[0].active.damage == 0  # not below 0


def test_x_speed_lowers_retreat_cost_by_one_this_turn():
    game = position(player(pokemon(MEWTWO, energy="P"), bench=[VOLTORB], hand=[XSPEED]),
                    player(PIKACHU), rng=next_turn_rng())
    assert A.retreat(1) not in legal_actions(game)
    step(game, A.play(0))
    assert A.retreat(1) in legal_actions(game)
    step(game, A.END)
    assert game.players[0].retreat_discount == 0


def test_red_card_shuffles_opponent_hand_into_deck_and_draws_three():
    game = position(player(PIKACHU, hand=[REDCARD]),
                    player(MEWTWO, hand=[RALTS, POTION], deck=[RESEARCH, SABRINA]),
                    rng=ScriptedRandomSource(perms=[[3, 1, 0, 2]]))
    step(game, A.play(0))
    opp = game.players[1]
    # deck + hand = [Research, Sabrina, Ralts, Potion], permuted [3, 1, 0, 2].
    assert [c.id for c in opp.hand] == [POTION, SABRINA, RESEARCH]
    assert [c.id for c in opp.deck] == [RALTS]
    assert game.rng.calls[0][:2] == ("permutation", 4)

# --------------------------------------------------------------------------------- abilities


def test_psy_shadow_attaches_psychic_to_psychic_active_once_per_turn():
    game = position(player(RALTS, bench=[GARDEVOIR, GARDEVOIR], energy=("Psychic",)),
                    player(PIKACHU))
    assert [a for a in legal_actions(game) if A.decode(a).kind == "ability"] == [
        A.ability(1), A.ability(2)]
    step(game, A.ability(1))
    step(game, A.ability(2))  # each Gardevoir once
    assert game.players[0].active.energy[EType.PSYCHIC] == 2
    assert not any(A.decode(a).kind == "ability" for a in legal_actions(game))
    game = position(player(PIKACHU, bench=[GARDEVOIR]), player(MEWTWO))  # Active not {P}
    assert A.ability(1) not in legal_actions(game)


def test_gas_leak_poisons_only_from_the_active_spot():
    game = position(player(WEEZING, bench=[WEEZING], energy=("Darkness",)), player(MEWTWO),
                    rng=next_turn_rng())
    assert [a for a in legal_actions(game) if A.decode(a).kind == "ability"] == [A.ability(0)]
    step(game, A.ability(0))
    assert game.players[1].active.statuses == {Status.POISONED}
    assert A.ability(0) not in legal_actions(game)
    step(game, A.END)  # checkup: poison 10
    assert game.players[1].active.damage == 10



def abilities(game):
    return [a for a in legal_actions(game) if A.decode(a).kind == "ability"]


def test_powder_heal_heals_20_from_each_of_your_pokemon():
    butterfree = pokemon("A1-005", "A1-006", "A1-007", damage=30)
    game = position(player(pokemon(PIKACHU, damage=10), bench=[butterfree, VOLTORB]),
                    player(MEWTWO, bench=[pokemon(VOLTORB, damage=20)]))
    step(game, A.ability(1))
    me = game.players[0]
    assert [m.damage for m in me.slots[:3]] == [0, 10, 0]
    assert game.players[1].slots[1].damage == 20 and abilities(game) == []
    # Nothing damaged: not usable (ours: healing would change nothing).
    game = position(player(PIKACHU, bench=["A1-007"]), player(MEWTWO))
    assert abilities(game) == []


def test_volt_charge_attaches_lightning_to_magneton_wherever_it_is():
    game = position(player(PIKACHU, bench=[pokemon("A1-097", "A1-098")], energy=("Water",),
                           zone=("Water", None)), player(MEWTWO))
    assert abilities(game) == [A.ability(1)]
    step(game, A.ability(1))
    me = game.players[0]
    assert me.slots[1].energy[EType.LIGHTNING] == 1 and me.active.energy_count() == 0
    assert me.zone_current == EType.WATER and abilities(game) == []  # the turn's energy stays


@pytest.mark.parametrize("coin", [True, False])
def test_sleep_pendulum_puts_the_opponents_active_to_sleep_on_heads(coin):
    game = position(player(PIKACHU, bench=[pokemon("A1-124", "A1-125")]),
                    player(pokemon(MEWTWO, statuses=(Status.POISONED,))),
                    rng=ScriptedRandomSource(coins=[coin]))
    step(game, A.ability(1))
    assert game.players[1].active.statuses == ({Status.POISONED, Status.ASLEEP} if coin
                                               else {Status.POISONED})
    assert not game.rng.coins and abilities(game) == []


def test_drive_off_lets_the_opponent_choose_the_new_active():
    pidgeot = pokemon("A1-186", "A1-187", "A1-188")
    opp_active = pokemon(MEWTWO, statuses=(Status.ASLEEP,))
    game = position(player(PIKACHU, bench=[pidgeot]),
                    player(opp_active, bench=[None, RALTS, VOLTORB]))
    step(game, A.ability(1))
    assert game.current_player == 1 and legal_actions(game) == [A.choose(2), A.choose(3)]
    step(game, A.choose(2))
    opp = game.players[1]
    assert opp.active.card.name == "Ralts" and opp.slots[2] is opp_active
    assert not opp_active.statuses and game.current_player == 0 and abilities(game) == []
    # No opponent Bench: not usable.
    game = position(player(PIKACHU, bench=[pidgeot]), player(MEWTWO))
    assert abilities(game) == []

# ----------------------------------------------------------------------------------- attacks


def test_corner_defender_cannot_retreat_next_turn():
    game = position(player(pokemon(ARBOK, energy="DD"), energy=("Darkness",)),
                    player(pokemon(PIKACHU, energy="L"), bench=[VOLTORB]),
                    rng=ScriptedRandomSource(ints=[0, 0, 0]))
    step(game, A.attack(0))
    assert game.players[1].active.damage == 60 and game.current_player == 1
    assert A.retreat(1) not in legal_actions(game)
    step(game, A.END)
    step(game, A.END)  # turn 5: P1's Pikachu ex may retreat again
    assert game.turn == 6 and A.retreat(1) in legal_actions(game)


@pytest.mark.parametrize("attacker, k, active, benched", [
    (ARTICUNO, 1, 80, 10),     # Articuno ex, Blizzard
    ("P-A-070", 0, 60, 20),    # Alolan Ninetales, Blizzard
])
def test_blizzard_damages_each_opponent_bench_pokemon(attacker, k, active, benched):
    game = position(player(pokemon(attacker, energy="WWW"), energy=("Water",)),
                    player(MEWTWO, bench=[pokemon(ZAPDOS, damage=125), None, VOLTORB]),
                    rng=next_turn_rng())
    step(game, A.attack(k))
    opp = game.players[1]
    assert opp.active.damage == active and opp.slots[3].damage == benched  # no weakness there
    assert opp.slots[1] is None and game.players[0].points == 2  # Zapdos ex knocked out


@pytest.mark.parametrize("energy, damage", [("WWW", 100), ("WWWW", 100), ("WWWWW", 160),
                                            ("WWWWL", 160), ("WWWLL", 100)])
def test_hydro_bazooka_needs_two_extra_water(energy, damage):
    game = position(player(pokemon(BLASTOISE, energy=energy), energy=("Water",)),
                    player(CHARIZARD, energy=("Fire",)), rng=next_turn_rng())
    defender = game.players[1].active
    step(game, A.attack(1))
    assert defender.damage == damage + 20  # Charizard ex is weak to Water


@pytest.mark.parametrize("attacker, energy, k, left", [
    (CHARIZARD, "RRRR", 1, 2),   # Crimson Storm: discard 2 {R}
    (CHARMANDER, "RR", 0, 1),    # Ember: discard a {R}
    (MEWTWO, "PPPP", 1, 2),      # Psydrive: discard 2 {P}
    ("A1-038", "RR", 0, 1),      # Ninetales, Flamethrower: discard 1 {R}
    ("P-A-079", "MMM", 0, 2),    # Dusk Mane Necrozma, Black Metal: discard a {M}
])
def test_attacks_that_discard_own_energy(attacker, energy, k, left):
    game = position(player(pokemon(attacker, energy=energy), energy=("Fire",)),
                    player("A1-211", energy=("Fire",)), rng=next_turn_rng())  # Snorlax 150 HP
    defender = game.players[1].active
    step(game, A.attack(k))
    assert game.players[0].active.energy_count() == left
    assert defender.damage == {CHARIZARD: 200, CHARMANDER: 30, MEWTWO: 150, "A1-038": 90,
                               "P-A-079": 100}[attacker]


def test_crimson_storm_knocks_out_and_discards():
    game = position(player(pokemon(CHARIZARD, energy="RRRR"), energy=("Fire",)),
                    player(MEWTWO, bench=[RALTS]), rng=next_turn_rng())
    step(game, A.attack(1))
    assert game.players[0].points == 2 and game.players[0].active.energy[EType.FIRE] == 2


@pytest.mark.parametrize("coin, damage", [(True, 80), (False, 40)])
def test_tropical_swing_coin_adds_40(coin, damage):
    game = position(player(pokemon(EXEGGUTOR, energy="G"), energy=("Grass",)),
                    player(MEWTWO), rng=next_turn_rng(coins=[coin]))
    step(game, A.attack(0))
    assert game.players[1].active.damage == damage


def test_inferno_dance_attaches_fire_per_heads_to_benched_fire():
    game = position(player(pokemon(MOLTRES, energy="R"), bench=[CHARMANDER, BULBASAUR, MOLTRES],
                           hand=[GIOVANNI], energy=("Fire",)),
                    player(BULBASAUR), rng=ScriptedRandomSource(coins=[True, False, True]))
    step(game, A.play(0))
    step(game, A.attack(0))
    assert game.players[1].active.damage == 0  # no damage printed: no Giovanni, no weakness
    assert game.current_player == 0 and legal_actions(game) == [A.choose(1), A.choose(3)]
    step(game, A.choose(3))
    game.rng = next_turn_rng()  # the 3 coins were all: the next call is turn 4's Zone draw
    step(game, A.choose(3))
    me = game.players[0]
    assert me.slots[3].energy[EType.FIRE] == 2 and me.slots[1].energy[EType.FIRE] == 0
    assert game.turn == 4 and game.current_player == 1
    # No benched {R} Pokémon: the energy is lost and the turn ends at once.
    game = position(player(pokemon(MOLTRES, energy="R"), bench=[BULBASAUR], energy=("Fire",)),
                    player(BULBASAUR), rng=next_turn_rng(coins=[True, True, True]))
    step(game, A.attack(0))
    assert game.turn == 4


@pytest.mark.parametrize("bench, damage", [([VOLTORB, ZAPDOS, MEWTWO], 60), ([MEWTWO], 0),
                                           ([VOLTORB, VOLTORB, VOLTORB], 90)])
def test_circle_circuit_30_per_benched_lightning(bench, damage):
    game = position(player(pokemon(PIKACHU, energy="LL"), bench=bench),
                    player("A1-211"), rng=next_turn_rng())
    step(game, A.attack(0))
    assert game.players[1].active.damage == damage


def test_giant_bloom_heals_30_from_the_attacker():
    game = position(player(pokemon(BULBASAUR, "A1-002", VENUSAUR, damage=40, energy="GGGG"),
                           energy=("Grass",)), player("A1-211"), rng=next_turn_rng())
    step(game, A.attack(1))
    assert game.players[0].active.damage == 10 and game.players[1].active.damage == 100


@pytest.mark.parametrize("coins, damage", [([True, False, True, True], 150),
                                           ([False] * 4, 0), ([True] * 4, 200)])
def test_thundering_hurricane_50_per_heads(coins, damage):
    game = position(player(pokemon(ZAPDOS, energy="LLL"), bench=[VOLTORB]),
                    player("A1-211", bench=[VOLTORB]), rng=next_turn_rng(coins=coins))
    defender = game.players[1].active  # Snorlax, 150 HP
    step(game, A.attack(1))
    assert defender.damage == damage
    assert (game.players[1].active is None) == (damage >= 150)


# ------------------------------------------------------ attacks of cards outside the samples


@pytest.mark.parametrize("attacker, energy, heal, damage", [
    ("A1-024", "GG", 10, 40),     # Tangela, Absorb
    ("P-A-014", "WWW", 20, 80),   # Lapras ex, Bubble Drain
    ("P-A-034", "W", 20, 0),      # Piplup, Nap (no damage printed)
])
def test_attacks_that_heal_the_attacker(attacker, energy, heal, damage):
    game = position(player(pokemon(attacker, damage=30, energy=energy), energy=("Water",)),
                    player(SNORLAX), rng=next_turn_rng())
    step(game, A.attack(0))
    assert game.players[0].active.damage == 30 - heal
    assert game.players[1].active.damage == damage


@pytest.mark.parametrize("attacker, energy, coins, damage", [
    ("P-A-082", "D", [True, True], 40),          # Poipole, 2-Step: 2 coins x 20
    ("A1-203", "W", [True, False], 30),          # Kangaskhan, Dizzy Punch: 2 x 30
    ("A1-026", "GG", [False, False], 0),         # Pinsir, Double Horn: 2 x 50
    ("A1-153", "FF", [False, True], 80 + 20),    # Marowak ex, Bonemerang: 2 x 80, weakness
    ("A1-136", "PPWW", [True, True], 200),       # Golurk, Double Lariat: 2 x 100
    ("A1-102", "LW", [True, False, True, True], 120),  # Jolteon, Pin Missile: 4 x 40
])
def test_attacks_that_do_damage_per_heads(attacker, energy, coins, damage):
    game = position(player(pokemon(attacker, energy=energy)), player(SNORLAX, bench=[VOLTORB]),
                    rng=next_turn_rng(coins=coins))
    defender = game.players[1].active
    step(game, A.attack(0))
    assert defender.damage == damage and not game.rng.coins
    assert game.players[0].points == (damage >= 150)


@pytest.mark.parametrize("coin, damage", [(True, 60), (False, 30)])
def test_stomp_coin_adds_30(coin, damage):
    game = position(player(pokemon("A1-022", energy="G")), player(SNORLAX),  # Exeggutor
                    rng=next_turn_rng(coins=[coin]))
    step(game, A.attack(0))
    assert game.players[1].active.damage == damage


@pytest.mark.parametrize("attacker, energy, damage", [
    ("P-A-055", "FFF", 70), ("P-A-055", "FFFF", 120),   # Machamp, Power Press: 2 extra {F}
    ("P-A-036", "LLL", 40), ("P-A-036", "LLLL", 120),   # Electivire: 2 extra {L}, +80
    ("A1-079", "WWW", 20), ("A1-079", "WWWW", 90),      # Lapras, Hydro Pump: 3 extra {W}, +70
    ("A1-079", "WWWL", 20),                             # the {L} is not {W}
])
def test_attacks_that_need_extra_energy_of_their_type(attacker, energy, damage):
    game = position(player(pokemon(attacker, energy=energy)), player(MEWTWO),  # weak to {D}
                    rng=next_turn_rng())
    step(game, A.attack(0))
    assert game.players[1].active.damage == damage


@pytest.mark.parametrize("attacker, energy, coins, before, target, after, damage", [
    ("A1-017", "G", [], (), 1, {Status.POISONED}, 30 + 10),   # Venomoth; checkup: Poison 10
    ("A1-093", "WW", [False], (), 1, {Status.ASLEEP}, 40),    # Frosmoth; checkup coin: sleeps
    ("A1-093", "WW", [False], (Status.CONFUSED, Status.POISONED), 1,
     {Status.ASLEEP, Status.POISONED}, 40 + 10),              # Asleep replaces Confused
    ("P-A-038", "P", [], (), 1, {Status.CONFUSED}, 0),        # Misdreavus, Confuse Ray
    ("P-A-073", "WW", [True, False], (), 1, {Status.BURNED}, 80 + 20),  # Toucannon, heads
    ("P-A-073", "WW", [False], (), 1, set(), 80),                       # tails: no Burn
    ("A1-083", "WWW", [True], (), 1, {Status.PARALYZED}, 60),  # Articuno, Ice Beam, heads
    ("P-A-049", "WWWW", [False], (), 0, {Status.ASLEEP}, 100),  # Snorlax, Collapse: itself
])
def test_attacks_that_inflict_special_conditions(attacker, energy, coins, before, target,
                                                 after, damage):
    """The condition lands on the named Active (after any coin); the end-of-turn checkup then
    runs as usual (its coins are the last scripted ones)."""
    game = position(player(pokemon(attacker, energy=energy), energy=("Water",)),
                    player(pokemon(SNORLAX, statuses=before)), rng=next_turn_rng(coins=coins))
    step(game, A.attack(0))
    assert game.players[target].active.statuses == after and not game.rng.coins
    assert game.players[1].active.damage == damage
    assert game.turn == 4 and game.current_player == 1


@pytest.mark.parametrize("attacker, energy, recoil, damage", [
    ("P-A-017", "F", 10, 30),        # Mankey, Reckless Charge
    ("A1-041", "RRW", 20, 120),      # Arcanine ex, Inferno Onrush
    ("A1-149", "FWWW", 50, 150),     # Golem, Double-Edge (knocks out Mewtwo ex)
])
def test_attacks_that_damage_the_attacker(attacker, energy, recoil, damage):
    game = position(player(pokemon(attacker, energy=energy), energy=("Fire",)),
                    player(MEWTWO, bench=[RALTS]), rng=next_turn_rng())  # Mewtwo ex, 150 HP
    defender = game.players[1].active
    step(game, A.attack(0))
    assert game.players[0].active.damage == recoil and defender.damage == damage
    assert game.players[0].points == 2 * (damage >= 150)


def test_recoil_can_knock_out_the_attacker():
    """Blacephalon's Beat Punk (130, 70 to itself) from 40 damage: it is knocked out by its own
    attack, the opponent scores, and its owner promotes."""
    game = position(player(pokemon("P-A-076", damage=40, energy="RRW"), bench=[VOLTORB],
                           energy=("Fire",)), player(SNORLAX), rng=next_turn_rng())
    step(game, A.attack(0))
    assert game.players[1].points == 1 and game.players[1].active.damage == 130
    assert game.players[0].active is None and legal_actions(game) == [A.choose(1)]


@pytest.mark.parametrize("coin, damage", [(True, 130 + 10), (False, 0)])
def test_sky_attack_on_tails_does_nothing(coin, damage):
    """Moltres's Sky Attack: heads, 130 (and Giovanni's +10); tails, nothing at all."""
    game = position(player(pokemon("A1-046", energy="RWW"), hand=[GIOVANNI], energy=("Fire",)),
                    player(SNORLAX, bench=[VOLTORB]), rng=next_turn_rng(coins=[coin]))
    step(game, A.play(0))
    defender = game.players[1].active
    step(game, A.attack(0))
    assert defender.damage == damage and not game.rng.coins


@pytest.mark.parametrize("coins, damage", [([True, True], 160), ([True, False], 80),
                                           ([False, True], 80)])
def test_ko_crab_needs_both_heads(coins, damage):
    game = position(player(pokemon("A1-069", energy="WWW"), energy=("Water",)),  # Kingler
                    player(SNORLAX, bench=[VOLTORB]), rng=next_turn_rng(coins=coins))
    defender = game.players[1].active
    step(game, A.attack(0))
    assert defender.damage == damage and not game.rng.coins


@pytest.mark.parametrize("coin, left", [(True, 20), (False, 80)])
def test_happy_punch_heals_60_on_heads(coin, left):
    game = position(player(pokemon("P-A-098", damage=80, energy="WWWW"), energy=("Water",)),
                    player(SNORLAX), rng=next_turn_rng(coins=[coin]))  # Blissey ex
    step(game, A.attack(0))
    assert game.players[0].active.damage == left and game.players[1].active.damage == 100


@pytest.mark.parametrize("bench, damage", [([VOLTORB, MEWTWO], 60), ([], 0),
                                           ([VOLTORB, RALTS, ZAPDOS], 90)])
def test_do_the_wave_30_per_benched_pokemon_of_any_type(bench, damage):
    game = position(player(pokemon("A1-213", energy="WWW"), bench=bench),  # Cinccino
                    player(SNORLAX), rng=next_turn_rng())
    step(game, A.attack(0))
    assert game.players[1].active.damage == damage


def test_pay_day_draws_a_card():
    game = position(player(pokemon("A1-196", energy="W"), deck=[VOLTORB, ZAPDOS]),  # Meowth
                    player(SNORLAX), rng=next_turn_rng())
    step(game, A.attack(0))
    me = game.players[0]
    assert [c.id for c in me.hand] == [VOLTORB] and [c.id for c in me.deck] == [ZAPDOS]
    assert game.players[1].active.damage == 10


@pytest.mark.parametrize("attacker, energy, hurt, defender, damage", [
    ("A1-142", "FF", 10, pokemon(MEWTWO), 40 + 60),           # Primeape, Fight Back
    ("A1-142", "FF", 0, pokemon(MEWTWO), 40),
    ("A1-091", "WW", 0, pokemon(SNORLAX, damage=30), 30 + 10 + 60),  # Bruxish, Second Strike
    ("A1-091", "WW", 0, pokemon(SNORLAX), 10),
    ("A1-175", "DDW", 0, pokemon(SNORLAX, statuses=(Status.POISONED,)),
     70 + 50 + 10),                                            # Muk, Venoshock; checkup 10
    ("A1-175", "DDW", 0, pokemon(SNORLAX, statuses=(Status.BURNED,)), 70),
    ("P-A-097", "W", 0, pokemon(VOLTORB, "A1-100"), 20 + 40),  # Kangaskhan, Cross-Cut
    ("P-A-097", "W", 0, pokemon(VOLTORB), 20),
])
def test_attacks_with_a_condition_for_more_damage(attacker, energy, hurt, defender, damage):
    burned = Status.BURNED in defender.statuses
    game = position(player(pokemon(attacker, damage=hurt, energy=energy)),
                    player(defender, bench=[RALTS]),
                    rng=next_turn_rng(coins=[True] * burned))  # the Burn's checkup coin
    step(game, A.attack(0))
    assert defender.damage == damage + 20 * burned


@pytest.mark.parametrize("attacker, energy, defender_energy, damage", [
    ("A1-117", "PWW", "WW", 60 + 2 * 30),   # Alakazam, Psychic
    ("A1-117", "PWW", "", 60),
    ("A1-127", "PW", "WWL", 30 + 3 * 20),   # Jynx, Psychic
])
def test_psychic_adds_damage_per_energy_on_the_defender(attacker, energy, defender_energy,
                                                        damage):
    game = position(player(pokemon(attacker, energy=energy)),
                    player(pokemon(SNORLAX, energy=defender_energy)), rng=next_turn_rng())
    step(game, A.attack(0))
    assert game.players[1].active.damage == damage


@pytest.mark.parametrize("attacker, energy, etype, damage", [
    ("A1-181", "M", EType.METAL, 0),          # Meltan, Amass
    ("P-A-060", "W", EType.GRASS, 0),         # Exeggcute, Growth Spurt
    ("P-A-084", "L", EType.LIGHTNING, 20),    # Tapu Koko ex, Plasma Hurricane
])
def test_attacks_that_attach_zone_energy_to_the_attacker(attacker, energy, etype, damage):
    game = position(player(pokemon(attacker, energy=energy), energy=("Water",)),
                    player(SNORLAX), rng=next_turn_rng())
    before = game.players[0].active.energy[etype]
    step(game, A.attack(0))
    assert game.players[0].active.energy[etype] == before + 1
    assert game.players[0].active.energy_count() == 2
    assert game.players[1].active.damage == damage


@pytest.mark.parametrize("attacker, energy, coins, pick, left", [
    ("A1-078", "WWWW", [], 2, "WW"),      # Gyarados, Hyper Beam: the 3rd of W, W, L goes
    ("A1-078", "WWWW", [], 0, "WL"),
    ("A1-178", "M", [True], 1, "WL"),     # Mawile, Crunch: heads
    ("A1-178", "M", [False], None, "WWL"),  # tails: no energy picked
])
def test_attacks_that_discard_a_random_energy_of_the_defender(attacker, energy, coins, pick,
                                                               left):
    """The energy is the one ``randint(n)`` picks among the defender's n, in type order."""
    game = position(player(pokemon(attacker, energy=energy), energy=("Water",)),
                    player(pokemon(SNORLAX, energy="LWW")),
                    rng=next_turn_rng(coins=coins, ints=[pick] if pick is not None else []))
    defender = game.players[1].active
    step(game, A.attack(0))
    assert defender.energy == pokemon(SNORLAX, energy=left).energy and not game.rng.ints
    # None on the defender: nothing to pick, no random call.
    game = position(player(pokemon("A1-078", energy="WWWW")), player(SNORLAX),
                    rng=next_turn_rng())
    step(game, A.attack(0))
    assert game.players[1].active.damage == 100 and not game.rng.ints


@pytest.mark.parametrize("coin, damage, recoil", [(True, 80, 0), (False, 40, 20)])
def test_thunder_punch_heads_adds_40_tails_hurts_the_attacker(coin, damage, recoil):
    game = position(player(pokemon("A1-101", energy="LL")), player(SNORLAX),  # Electabuzz
                    rng=next_turn_rng(coins=[coin]))
    step(game, A.attack(0))
    assert game.players[1].active.damage == damage
    assert game.players[0].active.damage == recoil


def test_thunderbolt_discards_all_energy():
    game = position(player(pokemon(PIKACHU, "A1-095", energy="LLLWG")), player(SNORLAX),
                    rng=next_turn_rng())  # Raichu
    step(game, A.attack(0))
    assert game.players[0].active.energy_count() == 0
    assert game.players[1].active.damage == 140


@pytest.mark.parametrize("attacker, energy, deck, pick, taken", [
    ("A1-005", "G", [POTION, PIKACHU, BULBASAUR, MEWTWO, VENUSAUR], 1, VENUSAUR),  # Caterpie
    ("P-A-052", "G", [BULBASAUR, POTION], 0, BULBASAUR),   # Sprigatito, Cry for Help
    ("A1-005", "G", [POTION, PIKACHU], None, None),        # no {G} Pokémon: no call
    ("P-A-093", "", [POTION, PIKACHU, VENUSAUR, MEWTWO], 2, MEWTWO),  # Cleffa, any Pokémon
])
def test_attacks_that_put_a_random_pokemon_from_the_deck_into_the_hand(attacker, energy, deck,
                                                                       pick, taken):
    """``randint(n)`` over the deck's n Pokémon that fit, in deck order, as Poké Ball."""
    game = position(player(pokemon(attacker, energy=energy), deck=deck), player(SNORLAX),
                    rng=next_turn_rng(ints=[pick] if pick is not None else []))
    step(game, A.attack(0))
    me = game.players[0]
    # The turn ends and the opponent draws; the attacker's hand holds only what it took.
    assert [c.id for c in me.hand] == ([taken] if taken else [])
    assert [c.id for c in me.deck] == [c for c in deck if c != taken or taken is None]
    assert not game.rng.ints


@pytest.mark.parametrize("attacker, energy, coins, damage", [
    ("A1-201", "WWW", [True, True, False], 120),   # Lickitung, Continuous Lick: 60 x heads
    ("A1-201", "WWW", [False], 0),
    ("P-A-063", "WWLL", [True, False], 70 + 30),   # Rayquaza, Spiral Rush: 70 + 30 x heads
    ("P-A-063", "WWLL", [False], 70),
])
def test_attacks_that_flip_until_tails_for_damage(attacker, energy, coins, damage):
    game = position(player(pokemon(attacker, energy=energy)), player(SNORLAX, bench=[VOLTORB]),
                    rng=next_turn_rng(coins=coins))
    step(game, A.attack(0))
    assert game.players[1].active.damage == damage and not game.rng.coins


@pytest.mark.parametrize("attacker, energy, entered_turn, damage", [
    (("A1-206", "P-A-086"), "L", 3, 40 + 20),   # Jolteon, Beginning Bolt: evolved this turn
    (("A1-206", "P-A-086"), "L", 2, 40),
    (("P-A-039",), "M", 1, 20),                 # Skarmory, Metal Arms: no Tool exists
])
def test_attacks_with_a_condition_on_the_attacker(attacker, energy, entered_turn, damage):
    game = position(player(pokemon(*attacker, energy=energy, entered_turn=entered_turn)),
                    player(SNORLAX), turn=3, rng=next_turn_rng())
    step(game, A.attack(0))
    assert game.players[1].active.damage == damage


def test_shoegaze_discards_the_top_five_of_each_deck():
    mine = [VOLTORB, POTION, PIKACHU, MEWTWO, RALTS, ZAPDOS, BULBASAUR]
    game = position(player(pokemon("P-A-081", energy="PPMM"), deck=mine),  # Ultra Necrozma ex
                    player(SNORLAX, bench=[VOLTORB], deck=[POTION, VOLTORB, PIKACHU]),
                    rng=next_turn_rng())
    step(game, A.attack(1))
    me, opp = game.players
    assert [c.id for c in me.discard] == mine[:5] and [c.id for c in me.deck] == mine[5:]
    # fewer than 5: all; the opponent's turn then finds an empty deck
    assert [c.id for c in opp.discard] == [POTION, VOLTORB, PIKACHU] and opp.deck == []
    assert opp.active.damage == 120


@pytest.mark.parametrize("attacker, energy, coins, pick, left", [
    ("P-A-096", "DDD", [], 1, [POTION, SNORLAX]),   # Houndoom, Diving Swipe
    ("A1-197", "WW", [True], 0, [VOLTORB, SNORLAX]),  # Persian, Shadow Claw: heads
    ("A1-197", "WW", [False], None, [POTION, VOLTORB, SNORLAX]),  # tails: no pick
])
def test_attacks_that_discard_a_random_card_of_the_opponents_hand(attacker, energy, coins,
                                                                   pick, left):
    """``randint(n)`` over the n cards of the opponent's hand, in hand order."""
    hand = [POTION, VOLTORB, SNORLAX]
    game = position(player(pokemon(attacker, energy=energy)),
                    player(SNORLAX, bench=[VOLTORB], hand=hand),
                    rng=next_turn_rng(coins=coins, ints=[pick] if pick is not None else []))
    step(game, A.attack(0))
    opp = game.players[1]
    assert [c.id for c in opp.hand][:len(left)] == left and not game.rng.ints
    assert [c.id for c in opp.discard] == [c for c in hand if c not in left]
    # An empty hand: nothing to pick, no random call.
    game = position(player(pokemon("P-A-096", energy="DDD")), player(SNORLAX),
                    rng=next_turn_rng())
    step(game, A.attack(0))
    assert game.players[1].discard == [] and not game.rng.ints
