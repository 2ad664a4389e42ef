"""The card table, the effect encoding and deck validation."""

import json
from pathlib import Path

import pytest

from jaxenvs.tcgjax.cards import (
    DATA, DeckError, card, card_id, card_table, deck_errors, load_deck, load_decks,
    meta_decks, named_decks, random_deck, random_decks, sample_decks)
from jaxenvs.tcgjax._src.state import STATUSES
from jaxenvs.tcgjax.effects import (
    CONDITIONS, EFFECTS, NAME_GROUPS, OPS_BY_KIND, EType, Op, encode, normalize_text)
from jaxenvs.tcgjax.reference.state import Status
from tests.benchmark_scripts import load_tool

build_cards = load_tool("tcgjax_cards")

SHARED = Path("/work/shared/data/tcgpocket")
SAMPLE = ["A1-096", "A1-096", "A1-104", "A1-104", "A1-099", "A1-099", "A1-100", "A1-100",
          "P-A-007", "P-A-007", "P-A-005", "P-A-005", "P-A-001", "P-A-001", "P-A-002",
          "P-A-002", "A1-225", "A1-225", "A1-223", "P-A-006"]


def test_committed_table_is_a_fresh_build():
    committed = (build_cards.TABLE).read_text(encoding="utf-8")
    assert committed == build_cards.render_table(), "run python tools/tcgjax_cards.py"


@pytest.mark.skipif(not SHARED.exists(), reason="shared data folder not on this machine")
def test_packaged_source_is_the_shared_file():
    for name in ("cards_A1_PA.json", "decks.json", "LICENSE-TCGDEX.txt"):
        assert (build_cards.DATA / name).read_bytes() == (SHARED / name).read_bytes()


def test_card_facts():
    assert len(card_table()) == 386
    pikachu = card("A1-096")
    assert (pikachu.name, pikachu.hp, pikachu.type, pikachu.weakness, pikachu.retreat,
            pikachu.is_ex, pikachu.stage) == ("Pikachu ex", 120, EType.LIGHTNING,
                                               EType.FIGHTING, 1, True, 0)
    circuit = pikachu.attacks[0]
    assert circuit.cost[EType.LIGHTNING] == 2 and sum(circuit.cost) == 2
    assert (circuit.damage, circuit.damage_mod, circuit.does_damage) == (30, "x", True)
    assert circuit.effect == (Op.DAMAGE_PER_OWN_BENCH, (30, EType.LIGHTNING, 0))
    moltres = card("A1-047")
    assert moltres.attacks[0].does_damage is False and moltres.attacks[0].damage == 0
    assert moltres.attacks[1].cost[EType.COLORLESS] == 2
    ivysaur = card("A1-002")
    assert (ivysaur.stage, ivysaur.evolves_from) == (1, "Bulbasaur")
    sabrina = card("A1-225")
    assert sabrina.is_supporter and sabrina.trainer_effect.op == Op.SWITCH_OPPONENT_ACTIVE
    assert card("P-A-001").trainer_type == "Item"
    gardevoir = card("A1-132")
    assert gardevoir.ability_name == "Psy Shadow"
    assert gardevoir.ability == (Op.ZONE_ATTACH_TO_ACTIVE, (EType.PSYCHIC, 0, 0))
    koga = card("A1-222").trainer_effect
    assert NAME_GROUPS[koga.args[1]] == ("Muk", "Weezing")
    # every name a Trainer names is a Pokémon's
    assert {n for group in NAME_GROUPS for n in group} <= {
        c.name for c in card_table().values() if c.is_pokemon}


def test_unknown_id_names_it():
    with pytest.raises(KeyError, match="A9-999"):
        card("A9-999")


def test_the_sample_texts_are_implemented_and_every_encoded_text_is_a_card_text():
    raw = {c["id"]: c for c in json.loads(build_cards.TABLE.read_text())["cards"]}
    texts = set()
    for deck in sample_decks().values():
        for c in deck.cards:
            entry = raw[c.id]
            texts.update(a["text"] for a in entry["attacks"] if a["text"])
            for part in ("ability", "trainer"):
                if entry[part]:
                    texts.add(entry[part]["text"])
    assert len(texts) == 23
    assert {normalize_text(t) for t in texts} <= set(EFFECTS)
    every = {normalize_text(t) for c in raw.values()
             for t in [a["text"] for a in c["attacks"]]
             + [c[part]["text"] for part in ("ability", "trainer") if c[part]] if t}
    assert set(EFFECTS) <= every


def test_conditions_are_in_both_engines_order():
    assert [c.lower() for c in CONDITIONS] == list(STATUSES) == [s.value for s in Status]


def test_normalization_of_apostrophes_and_minus():
    assert normalize_text("opponent\u2019s \u221210\n x") == "opponent's -10 x"
    # Grapploct's Knock Back (A1-163) writes Sabrina's text with a typographic apostrophe:
    # it normalizes to the same text, but no attack switches, so it stays unimplemented.
    knock_back = card("A1-163").attacks[-1].text
    assert normalize_text(knock_back) in EFFECTS
    assert encode(knock_back, "attack") is None
    assert encode(knock_back, "trainer").op == Op.SWITCH_OPPONENT_ACTIVE
    assert card("A1-163").unimplemented == (knock_back,)


def test_every_encoded_effect_is_of_its_kind():
    for c in card_table().values():
        for a in c.attacks:
            assert a.effect is None or a.effect.op in OPS_BY_KIND["attack"]
        assert c.ability is None or c.ability.op in OPS_BY_KIND["ability"]
        assert c.trainer_effect is None or c.trainer_effect.op in OPS_BY_KIND["trainer"]
        missing = (sum(a.effect is None for a in c.attacks)
                   + (c.ability is None and c.ability_name is not None)
                   + (c.category == "Trainer" and c.trainer_effect is None))
        assert missing == len(c.unimplemented), c


def test_sample_decks_load():
    decks = sample_decks()
    assert len(decks) == 6
    assert all(len(d.cards) == 20 for d in decks.values())
    assert decks["water-blastoise"].energy == (EType.WATER,)


def test_meta_decks_are_legal_distinct_and_sourced():
    """At least 12 named decks of A1 tournaments, each a legal list (``meta_decks`` loads them
    through ``load_deck``), no two alike, each citing where its list comes from."""
    raw = json.loads((DATA / "meta_decks.json").read_text(encoding="utf-8"))
    decks = meta_decks()
    assert len(decks) == len(raw) >= 12
    assert len({sorted_ids(d) for d in decks.values()}) == len(decks)
    assert not set(decks) & set(sample_decks()) and len(named_decks()) == len(decks) + 6
    for entry in raw:
        assert entry["name"] and entry["sources"], entry["id"]
        for source in entry["sources"]:
            assert source["url"].startswith("https://") and source["says"], entry["id"]
    assert load_decks(["mewtwo-ex-gardevoir"]) == [decks["mewtwo-ex-gardevoir"]]


def sorted_ids(deck):
    return tuple(sorted(c.id for c in deck.cards))


@pytest.mark.parametrize("ids, energy, message", [
    (SAMPLE[:19], ["Lightning"], "exactly 20 cards, this one has 19"),
    (SAMPLE[:19] + ["A9-001"], ["Lightning"], "unknown card ids: A9-001"),
    (SAMPLE[:19] + ["A1-096"], ["Lightning"], "at most 2 copies per name: 3 x Pikachu ex"),
    # A1-259 is another printing of Pikachu ex: copies count by name.
    (SAMPLE[:19] + ["A1-259"], ["Lightning"], "3 x Pikachu ex"),
    (SAMPLE[:6] + ["A1-100", "A1-100"] + SAMPLE[8:], ["Lightning"], None),
    (SAMPLE, [], "1 to 3 energy types, got 0"),
    (SAMPLE, ["Lightning", "Water", "Fire", "Grass"], "1 to 3 energy types, got 4"),
    (SAMPLE, ["Dragon"], "not an Energy Zone type: Dragon"),
    (SAMPLE, ["Lightning", "Lightning"], "energy types repeat"),
    (SAMPLE[:4] + ["A1-100", "A1-100"] + SAMPLE[6:], ["Lightning"],
     "A1-100 Electrode evolves from Voltorb, which is not in the deck"),
    (SAMPLE[:19] + ["A1-216"], ["Lightning"], "A1-216 Helix Fossil: effect not implemented"),
    (["P-A-007"] * 2 + ["P-A-005"] * 2 + ["P-A-001"] * 2 + ["P-A-002"] * 2 + ["P-A-006"] * 2
     + ["A1-225"] * 2 + ["A1-223"] * 2 + ["A1-219"] * 2 + ["A1-220"] * 2 + ["A1-222"] * 2,
     ["Lightning"], "at least one Basic"),
])
def test_deck_errors(ids, energy, message):
    if message is None:  # the control: this variant is legal
        assert deck_errors(ids, energy) == []
        return
    with pytest.raises(DeckError, match=message.replace("(", r"\(")):
        load_deck(ids, energy, "test")
    assert any(message in e for e in deck_errors(ids, energy))


def test_unimplemented_effect_is_named():
    ids = SAMPLE[:19] + ["A1-163"]  # Grapploct (its pre-evolution is missing too)
    errors = deck_errors(ids, ["Lightning"])
    assert any("A1-163 Grapploct: effect not implemented: 'Switch out your opponent" in e
               for e in errors)


def test_a_card_is_named_by_id_or_by_the_name_a_player_types():
    assert card_id("A1-211") == "A1-211" and card_id("Pikachu ex") == "A1-096"
    with pytest.raises(KeyError, match="'Snorlax' names 2 different cards: .*A1-211, P-A-049"):
        card_id("Snorlax")  # the Promo's Snorlax has another attack
    with pytest.raises(KeyError, match="'Pikachoo' is neither a card id nor a card name"):
        card_id("Pikachoo")


def test_load_decks_from_ids_names_samples_and_a_file(tmp_path):
    names = [card(i).name for i in SAMPLE]
    path = tmp_path / "decks.json"
    path.write_text(json.dumps([{"id": "mine", "cards": SAMPLE, "energy": ["Lightning"]}]))
    decks = load_decks([{"cards": names, "energy": ["Lightning"]}, "water-blastoise",
                        sample_decks()["fire-charizard-moltres"]]) + load_decks(str(path))
    assert [d.cards for d in decks[:1]] == [d.cards for d in decks[3:]]
    assert decks[1] == sample_decks()["water-blastoise"] and decks[3].name == "mine"
    with pytest.raises(DeckError, match="'Snorlax' names 2 different cards"):
        load_decks([{"cards": ["Snorlax"] * 2 + SAMPLE[2:], "energy": ["Water"]}])
    with pytest.raises(DeckError, match="cannot read decks from"):
        load_decks(str(tmp_path / "missing.json"))
    with pytest.raises(DeckError, match="deck 1: expected a Deck"):
        load_decks(["water-blastoise", 7])


def test_random_decks_are_legal_and_repeatable():
    decks = random_decks(20, seed=3)
    assert all(deck_errors([c.id for c in d.cards], [t.name.capitalize() for t in d.energy])
               == [] for d in decks)
    assert decks == random_decks(20, seed=3) and decks[1] == random_deck(4)
    assert len({d.cards for d in decks}) == 20
