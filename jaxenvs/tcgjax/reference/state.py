"""The reference engine's game state: plain classes, and the small moves every rule uses.

``Game`` holds two ``Player``s; a player holds a deck, a hand, a discard pile and up to four
``PokemonInPlay`` (slot 0 Active, 1..3 Bench). Decks and hands are lists of ``Card``s; the top
of the deck is index 0.
"""

from __future__ import annotations

import enum
from dataclasses import asdict, dataclass, field

from jaxenvs.tcgjax.actions import HAND_MAX, NUM_SLOTS
from jaxenvs.tcgjax.cards import Card, card
from jaxenvs.tcgjax.constants import RuleOptions
from jaxenvs.tcgjax.effects import NUM_TYPES, EType
from jaxenvs.tcgjax.rng import RandomSource



class Phase(enum.Enum):
    """Where the game flow stands. SETUP and MAIN wait for decisions; the others run by
    themselves (``rules.advance``). Pending choices (``Game.pending``) come before any phase."""

    SETUP = "setup"
    START_TURN = "start_turn"
    MAIN = "main"
    AFTER_ATTACK = "after_attack"
    END_TURN = "end_turn"
    OVER = "over"


class ChoiceKind(enum.Enum):
    """A decision inside the flow, answered with ``CHOOSE j``."""

    PROMOTE = "promote"
    """Move Bench j to the empty Active Spot (after a knock-out or Koga)."""
    SWITCH_IN = "switch_in"
    """The opponent's Sabrina: Bench j swaps places with the Active."""
    ATTACH_BENCH = "attach_bench"
    """Inferno Dance: attach one energy of ``energy`` to Bench j (of that type)."""


@dataclass
class Choice:
    """A pending decision: ``player`` answers it with ``CHOOSE j``."""

    kind: ChoiceKind
    player: int
    energy: EType | None = None
    """The energy type to attach (ATTACH_BENCH only)."""


class Status(enum.Enum):
    """Special Conditions. POISONED and BURNED stack with anything; ASLEEP, PARALYZED and
    CONFUSED replace one another."""

    POISONED = "poisoned"
    BURNED = "burned"
    ASLEEP = "asleep"
    PARALYZED = "paralyzed"
    CONFUSED = "confused"


EXCLUSIVE_STATUSES = (Status.ASLEEP, Status.PARALYZED, Status.CONFUSED)


@dataclass
class PokemonInPlay:
    """A Pokémon in the Active Spot or on the Bench."""

    cards: list[Card]
    """The evolution stack, Basic first; the last card is the Pokémon itself."""
    damage: int = 0
    energy: list[int] = field(default_factory=lambda: [0] * NUM_TYPES)
    """Attached energy count per EType."""
    statuses: set[Status] = field(default_factory=set)
    entered_turn: int = 0
    """Turn it was placed or last evolved (0 = during setup); it cannot evolve that turn."""
    ability_used_turn: int = -1
    cant_retreat_turn: int = -1
    """Turn during which it cannot retreat (Arbok's Corner)."""

    @property
    def card(self) -> Card:
        return self.cards[-1]

    @property
    def hp_left(self) -> int:
        return self.card.hp - self.damage

    def energy_count(self) -> int:
        return sum(self.energy)

    def heal(self, amount: int) -> None:
        self.damage = max(0, self.damage - amount)

    def add_status(self, status: Status) -> None:
        if status in EXCLUSIVE_STATUSES:
            self.statuses.difference_update(EXCLUSIVE_STATUSES)
        self.statuses.add(status)

    def leave_active(self) -> None:
        """Moving to the Bench clears Special Conditions and "Defending Pokémon" effects."""
        self.statuses.clear()
        self.cant_retreat_turn = -1


@dataclass
class Player:
    """One player's cards and per-turn flags."""

    deck: list[Card]
    energy_types: tuple[EType, ...]
    hand: list[Card] = field(default_factory=list)
    discard: list[Card] = field(default_factory=list)
    slots: list[PokemonInPlay | None] = field(default_factory=lambda: [None] * NUM_SLOTS)
    points: int = 0
    zone_current: EType | None = None
    """The energy offered this turn (None: none, or already attached)."""
    zone_next: EType | None = None
    """The energy offered next turn (shown in advance)."""
    supporter_played: bool = False
    retreated: bool = False
    active_damage_bonus: int = 0
    """Giovanni: extra damage of this turn's attacks to the opponent's Active."""
    retreat_discount: int = 0
    """X Speed: retreat cost reduction this turn."""

    @property
    def active(self) -> PokemonInPlay | None:
        return self.slots[0]

    def bench_slots(self) -> list[int]:
        """Occupied Bench slots (1..3)."""
        return [j for j in range(1, NUM_SLOTS) if self.slots[j] is not None]

    def in_play(self) -> list[tuple[int, PokemonInPlay]]:
        return [(j, p) for j, p in enumerate(self.slots) if p is not None]

    def has_pokemon(self) -> bool:
        return any(p is not None for p in self.slots)

    def first_empty_bench(self) -> int | None:
        return next((j for j in range(1, NUM_SLOTS) if self.slots[j] is None), None)

    def draw(self) -> bool:
        """Draw the top card unless the deck is empty or the hand holds HAND_MAX cards."""
        if not self.deck or len(self.hand) >= HAND_MAX:
            return False
        self.hand.append(self.deck.pop(0))
        return True

    def take_into_hand(self, card: Card) -> None:
        """A card put into the hand by an effect: discarded instead if the hand is full."""
        if len(self.hand) < HAND_MAX:
            self.hand.append(card)
        else:
            self.discard.append(card)


def shuffle(cards: list[Card], rng: RandomSource) -> list[Card]:
    """``cards`` in the order of one ``permutation(len(cards))`` call."""
    return [cards[p] for p in rng.permutation(len(cards))]


@dataclass
class Game:
    """A whole game. Build one with ``rules.new_game`` (or directly, for test positions)."""

    players: list[Player]
    rng: RandomSource
    first_player: int
    turn: int = 0
    """Current turn, 1..``options.turn_limit`` (0 during setup). Odd turns belong to
    ``first_player``."""
    phase: Phase = Phase.SETUP
    setup_player: int = 0
    """The player placing Pokémon during SETUP."""
    pending: list[Choice] = field(default_factory=list)
    winner: int | None = None
    """0 or 1 once over; None while running or for a draw."""
    log: list[str] = field(default_factory=list)
    decisions: int = 0
    """Number of actions taken so far."""
    options: RuleOptions = RuleOptions()
    """The rules where sources disagree."""

    @property
    def turn_player(self) -> int:
        return self.first_player if self.turn % 2 == 1 else 1 - self.first_player

    @property
    def over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def current_player(self) -> int:
        """Whose decision it is (meaningless once over)."""
        if self.pending:
            return self.pending[0].player
        if self.phase is Phase.SETUP:
            return self.setup_player
        return self.turn_player

    def rewards(self) -> tuple[float, float]:
        """(player 0, player 1): +1 win, -1 loss, 0 draw or not over."""
        if self.winner is None:
            return (0.0, 0.0)
        return (1.0, -1.0) if self.winner == 0 else (-1.0, 1.0)

    def say(self, text: str) -> None:
        self.log.append(f"[t{self.turn}] {text}")

    def to_dict(self) -> dict:
        """Everything in the state as plain data (card ids, ints, strings, lists)."""
        def mon(p: PokemonInPlay | None):
            if p is None:
                return None
            return {"cards": [c.id for c in p.cards], "damage": p.damage,
                    "energy": list(p.energy),
                    "statuses": sorted(s.value for s in p.statuses),
                    "entered_turn": p.entered_turn, "ability_used_turn": p.ability_used_turn,
                    "cant_retreat_turn": p.cant_retreat_turn}

        def player(p: Player):
            return {"deck": [c.id for c in p.deck], "hand": [c.id for c in p.hand],
                    "discard": [c.id for c in p.discard], "slots": [mon(m) for m in p.slots],
                    "points": p.points, "energy_types": [int(t) for t in p.energy_types],
                    "zone_current": None if p.zone_current is None else int(p.zone_current),
                    "zone_next": None if p.zone_next is None else int(p.zone_next),
                    "supporter_played": p.supporter_played, "retreated": p.retreated,
                    "active_damage_bonus": p.active_damage_bonus,
                    "retreat_discount": p.retreat_discount}

        return {"players": [player(p) for p in self.players], "first_player": self.first_player,
                "turn": self.turn, "phase": self.phase.value, "setup_player": self.setup_player,
                "pending": [{"kind": c.kind.value, "player": c.player,
                             "energy": None if c.energy is None else int(c.energy)}
                            for c in self.pending],
                "current_player": self.current_player, "over": self.over,
                "winner": self.winner, "decisions": self.decisions,
                "options": asdict(self.options),
                "rng_counter": getattr(self.rng, "counter", None)}


def game_from_dict(data: dict, rng: RandomSource) -> Game:
    """The inverse of ``Game.to_dict`` (the log and the random source are not in the dict)."""
    def mon(d: dict | None) -> PokemonInPlay | None:
        if d is None:
            return None
        return PokemonInPlay(cards=[card(i) for i in d["cards"]], damage=d["damage"],
                             energy=list(d["energy"]),
                             statuses={Status(s) for s in d["statuses"]},
                             entered_turn=d["entered_turn"],
                             ability_used_turn=d["ability_used_turn"],
                             cant_retreat_turn=d["cant_retreat_turn"])

    def etype(t: int | None) -> EType | None:
        return None if t is None else EType(t)

    def player(d: dict) -> Player:
        return Player(deck=[card(i) for i in d["deck"]],
                      energy_types=tuple(EType(t) for t in d["energy_types"]),
                      hand=[card(i) for i in d["hand"]],
                      discard=[card(i) for i in d["discard"]],
                      slots=[mon(m) for m in d["slots"]], points=d["points"],
                      zone_current=etype(d["zone_current"]), zone_next=etype(d["zone_next"]),
                      supporter_played=d["supporter_played"], retreated=d["retreated"],
                      active_damage_bonus=d["active_damage_bonus"],
                      retreat_discount=d["retreat_discount"])

    return Game(players=[player(p) for p in data["players"]], rng=rng,
                first_player=data["first_player"], turn=data["turn"], phase=Phase(data["phase"]),
                setup_player=data["setup_player"],
                pending=[Choice(ChoiceKind(c["kind"]), c["player"], etype(c["energy"]))
                         for c in data["pending"]],
                winner=data["winner"], decisions=data["decisions"],
                options=RuleOptions(**data["options"]))

