"""The game rules: setup, legal actions, one step per decision, and the automatic flow.

``new_game`` deals and flips; ``legal_actions``/``action_mask`` list the current player's legal
actions; ``step`` applies one and runs the game on (``advance``) until the next decision or the
end. One function per rule; ``RULES.md`` states them and names the tests that pin each.
"""

from __future__ import annotations

from jaxenvs.tcgjax import actions as A
from jaxenvs.tcgjax.cards import Attack, Card, Deck
from jaxenvs.tcgjax.constants import OPENING_HAND, WEAKNESS_BONUS, WIN_POINTS, RuleOptions
from jaxenvs.tcgjax.effects import EType
from jaxenvs.tcgjax.reference import effects
from jaxenvs.tcgjax.reference.state import (
    Choice, ChoiceKind, Game, Phase, Player, PokemonInPlay, Status, shuffle)
from jaxenvs.tcgjax.rng import RandomSource

#: Special Conditions that forbid attacking and retreating.
IMMOBILE = (Status.ASLEEP, Status.PARALYZED)

# ------------------------------------------------------------------------------------ setup


def opening_deal(deck: Deck, rng: RandomSource) -> tuple[list[Card], list[Card]]:
    """(hand, deck): ``randint(#Basics)`` picks the guaranteed Basic (in deck-list order), the
    other 19 cards are shuffled, and the hand takes 4 more from the top."""
    basics = [i for i, c in enumerate(deck.cards) if c.is_basic]
    pick = basics[rng.randint(len(basics))]
    rest = shuffle([c for i, c in enumerate(deck.cards) if i != pick], rng)
    return [deck.cards[pick]] + rest[:OPENING_HAND - 1], rest[OPENING_HAND - 1:]


def draw_zone(player: Player, rng: RandomSource) -> EType:
    """One Energy Zone energy: uniform over the registered types (one ``randint`` always)."""
    return player.energy_types[rng.randint(len(player.energy_types))]


def new_game(deck0: Deck, deck1: Deck, rng: RandomSource,
             options: RuleOptions = RuleOptions()) -> Game:
    """A game at its first decision: the first player's setup placement, played by ``options``.

    Random calls, in order: coin (heads: player 0 goes first), opening deal of player 0 then
    player 1, then each player's first shown Energy Zone energy (player 0, then 1).
    """
    first = 0 if rng.coin() else 1
    players = []
    for deck in (deck0, deck1):
        hand, rest = opening_deal(deck, rng)
        players.append(Player(deck=rest, energy_types=deck.energy, hand=hand))
    for player in players:
        player.zone_next = draw_zone(player, rng)
    game = Game(players=players, rng=rng, first_player=first, setup_player=first,
                options=options)
    game.say(f"P{first} goes first")
    return game

# ------------------------------------------------------------------------------ legal actions


def legal_actions(game: Game) -> list[int]:
    """The current player's legal action ids, ascending. Never empty before the game is over."""
    if game.over:
        return []
    if game.pending:
        return [A.choose(j) for j in range(A.NUM_SLOTS) if choice_ok(game, game.pending[0], j)]
    if game.phase is Phase.SETUP:
        return setup_actions(game)
    return main_actions(game)


def action_mask(game: Game) -> list[bool]:
    """``legal_actions`` as a boolean list of length NUM_ACTIONS."""
    mask = [False] * A.NUM_ACTIONS
    for a in legal_actions(game):
        mask[a] = True
    return mask


def choice_ok(game: Game, choice: Choice, slot: int) -> bool:
    player = game.players[choice.player]
    mon = player.slots[slot]
    if slot == 0 or mon is None:
        return False
    if choice.kind is ChoiceKind.ATTACH_BENCH:
        return mon.card.type == choice.energy
    return True


def setup_actions(game: Game) -> list[int]:
    """Place a Basic (Active first, then Bench) while a spot is free; END once an Active is
    placed."""
    me = game.players[game.setup_player]
    legal = []
    if me.active is not None:
        legal.append(A.END)
    if me.active is None or me.first_empty_bench() is not None:
        legal += [A.play(i) for i, c in enumerate(me.hand) if c.is_basic]
    return legal


def main_actions(game: Game) -> list[int]:
    p = game.turn_player
    me = game.players[p]
    legal = [A.END]
    legal += [A.attack(k) for k in range(A.NUM_ATTACKS) if can_attack(game, k)]
    if me.zone_current is not None:
        legal += [A.attach(j) for j, _ in me.in_play()]
    for i, card in enumerate(me.hand):
        if can_play(game, p, card, None):
            legal.append(A.play(i))
    for i, card in enumerate(me.hand):
        legal += [A.play_on(i, j) for j in range(A.NUM_SLOTS) if can_play(game, p, card, j)]
    legal += [A.ability(j) for j in range(A.NUM_SLOTS) if can_use_ability(game, p, j)]
    if can_retreat(game):
        legal += [A.retreat(j) for j in me.bench_slots()]
    return sorted(legal)


def can_pay(energy: list[int], cost: tuple[int, ...]) -> bool:
    """Each typed symbol needs its own type; Colorless takes any energy left over."""
    if any(energy[t] < n for t, n in enumerate(cost) if t != EType.COLORLESS):
        return False
    return sum(energy) - (sum(cost) - cost[EType.COLORLESS]) >= cost[EType.COLORLESS]


def can_attack(game: Game, k: int) -> bool:
    """Not Asleep/Paralyzed; the energy pays the cost (also on the first player's first turn,
    which only has no Energy Zone energy)."""
    active = game.players[game.turn_player].active
    if active is None or k >= len(active.card.attacks):
        return False
    if any(s in active.statuses for s in IMMOBILE):
        return False
    return can_pay(active.energy, active.card.attacks[k].cost)


def can_evolve(game: Game, card: Card, mon: PokemonInPlay | None) -> bool:
    """Not on either player's first turn (turns 1, 2), onto the named pre-evolution, not onto a
    Pokémon placed or evolved this turn."""
    return (game.turn > 2 and mon is not None and card.evolves_from == mon.card.name
            and mon.entered_turn != game.turn)


def can_play(game: Game, p: int, card: Card, slot: int | None) -> bool:
    """Hand card ``card`` as PLAY (slot None) or PLAY_ON slot."""
    me = game.players[p]
    if card.is_pokemon:
        if slot is None:
            return card.is_basic and me.first_empty_bench() is not None
        return card.stage > 0 and can_evolve(game, card, me.slots[slot])
    if card.is_supporter and (me.supporter_played or (
            game.turn == 1 and not game.options.first_turn_supporter)):
        return False
    _, condition, targeted = effects.TRAINERS[card.trainer_effect.op]
    if targeted != (slot is not None):
        return False
    return condition(game, p, slot, card.trainer_effect.args)


def can_use_ability(game: Game, p: int, slot: int) -> bool:
    """Once per turn per Pokémon, when its condition holds."""
    mon = game.players[p].slots[slot]
    if mon is None or mon.card.ability is None or mon.ability_used_turn == game.turn:
        return False
    _, condition = effects.ABILITIES[mon.card.ability.op]
    return condition(game, p, slot, mon.card.ability.args)


def retreat_cost(game: Game) -> int:
    me = game.players[game.turn_player]
    return max(0, me.active.card.retreat - me.retreat_discount)


def can_retreat(game: Game) -> bool:
    """Once per turn; not Asleep/Paralyzed; not under Corner; enough energy. (The Bench target
    is checked per slot by the caller.)"""
    me = game.players[game.turn_player]
    active = me.active
    return (not me.retreated and active is not None
            and not any(s in active.statuses for s in IMMOBILE)
            and active.cant_retreat_turn != game.turn
            and active.energy_count() >= retreat_cost(game))

# ------------------------------------------------------------------------------------- step


def step(game: Game, action: int) -> None:
    """Apply the current player's ``action`` (must be legal) and run to the next decision."""
    if action not in legal_actions(game):
        raise ValueError(f"illegal action {A.name(action)} for P{game.current_player}; legal: "
                         f"{[A.name(a) for a in legal_actions(game)]}")
    game.decisions += 1
    kind, index, slot = A.decode(action)
    if game.pending:
        resolve_choice(game, game.pending.pop(0), slot)
    elif game.phase is Phase.SETUP:
        setup_step(game, kind, index)
    elif kind == "end":
        game.say(f"P{game.turn_player} ends the turn")
        game.phase = Phase.END_TURN
    elif kind == "attack":
        attack(game, index)
    elif kind == "attach":
        attach_energy(game, slot)
    elif kind in ("play", "play_on"):
        play_card(game, index, None if kind == "play" else slot)
    elif kind == "ability":
        use_ability(game, slot)
    elif kind == "retreat":
        retreat(game, slot)
    advance(game)


def setup_step(game: Game, kind: str, index: int) -> None:
    me = game.players[game.setup_player]
    if kind == "play":
        card = me.hand.pop(index)
        slot = 0 if me.active is None else me.first_empty_bench()
        me.slots[slot] = PokemonInPlay([card], entered_turn=0)
        return
    game.say(f"P{game.setup_player} placed {describe_in_play(me)}")
    if game.setup_player == game.first_player:
        game.setup_player = 1 - game.first_player
    else:
        game.phase = Phase.START_TURN


def resolve_choice(game: Game, choice: Choice, slot: int) -> None:
    """Answer a pending choice with slot ``slot``."""
    player = game.players[choice.player]
    if choice.kind is ChoiceKind.PROMOTE:
        player.slots[0], player.slots[slot] = player.slots[slot], None
        game.say(f"P{choice.player} promotes {player.active.card.name}")
    elif choice.kind is ChoiceKind.SWITCH_IN:
        old = player.slots[0]
        player.slots[0], player.slots[slot] = player.slots[slot], old
        old.leave_active()
        game.say(f"P{choice.player} switches in {player.active.card.name}")
    else:
        player.slots[slot].energy[choice.energy] += 1
        game.say(f"P{choice.player} attaches {choice.energy.name} to "
                 f"{player.slots[slot].card.name}")


def attach_energy(game: Game, slot: int) -> None:
    me = game.players[game.turn_player]
    me.slots[slot].energy[me.zone_current] += 1
    game.say(f"P{game.turn_player} attaches {me.zone_current.name} to "
             f"{me.slots[slot].card.name}")
    me.zone_current = None


def play_card(game: Game, index: int, slot: int | None) -> None:
    """Play hand card ``index``: a Basic to the Bench, an evolution, or a Trainer."""
    p = game.turn_player
    me = game.players[p]
    card = me.hand.pop(index)
    game.say(f"P{p} plays {card.name}" + ("" if slot is None else f" on slot {slot}"))
    if card.is_pokemon and slot is None:
        me.slots[me.first_empty_bench()] = PokemonInPlay([card], entered_turn=game.turn)
    elif card.is_pokemon:
        evolve(game, me.slots[slot], card)
    else:
        if card.is_supporter:
            me.supporter_played = True
        me.discard.append(card)
        effect_fn, _, _ = effects.TRAINERS[card.trainer_effect.op]
        effect_fn(game, p, slot, card.trainer_effect.args)


def evolve(game: Game, mon: PokemonInPlay, card: Card) -> None:
    """Damage and energy stay; Special Conditions and effects on it end."""
    mon.cards.append(card)
    mon.entered_turn = game.turn
    mon.ability_used_turn = -1
    mon.leave_active()


def use_ability(game: Game, slot: int) -> None:
    p = game.turn_player
    mon = game.players[p].slots[slot]
    mon.ability_used_turn = game.turn
    game.say(f"P{p} uses {mon.card.ability_name} of {mon.card.name}")
    effect_fn, _ = effects.ABILITIES[mon.card.ability.op]
    effect_fn(game, p, slot, mon.card.ability.args)


def retreat(game: Game, bench_slot: int) -> None:
    """Discard energy equal to the cost, lowest EType first; swap with Bench ``bench_slot``."""
    me = game.players[game.turn_player]
    old = me.active
    to_pay = retreat_cost(game)
    for t in range(len(old.energy)):
        paid = min(to_pay, old.energy[t])
        old.energy[t] -= paid
        to_pay -= paid
    me.slots[0], me.slots[bench_slot] = me.slots[bench_slot], old
    old.leave_active()
    me.retreated = True
    game.say(f"P{game.turn_player} retreats {old.card.name} for {me.active.card.name}")


def attack(game: Game, k: int) -> None:
    """Use attack ``k``: Confused flips first (tails: nothing happens); the effect gives the base
    damage; if the attack prints damage and the base is > 0, Giovanni's bonus and weakness
    (+20) are added and the total goes to the opponent's Active. Then the turn ends."""
    p = game.turn_player
    attacker = game.players[p].active
    atk: Attack = attacker.card.attacks[k]
    game.say(f"P{p} {attacker.card.name} uses {atk.name}")
    game.phase = Phase.AFTER_ATTACK
    if Status.CONFUSED in attacker.statuses and not game.rng.coin():
        game.say(f"P{p} is confused: the attack fails")
        return
    base = effects.ATTACKS[atk.effect.op](game, p, atk, atk.effect.args)
    defender = game.players[1 - p].active
    if atk.does_damage and base > 0:
        damage = base + game.players[p].active_damage_bonus
        if defender.card.weakness is not None and defender.card.weakness == attacker.card.type:
            damage += WEAKNESS_BONUS
        defender.damage += damage
        game.say(f"{defender.card.name} takes {damage}")

# ------------------------------------------------------------------------------- the flow


def advance(game: Game) -> None:
    """Run the automatic parts until a decision is due or the game is over."""
    while not game.over and not game.pending and game.phase not in (Phase.SETUP, Phase.MAIN):
        if game.phase is Phase.AFTER_ATTACK:
            resolve_knockouts(game)
            if not game.over:
                game.phase = Phase.END_TURN
        elif game.phase is Phase.END_TURN:
            end_turn(game)
        elif game.phase is Phase.START_TURN:
            start_turn(game)


def start_turn(game: Game) -> None:
    """Next turn: the Energy Zone moves on (not on turn 1), then draw 1 (on turn 1 only if
    ``options.first_turn_draw``)."""
    game.turn += 1
    me = game.players[game.turn_player]
    if game.turn > 1:
        me.zone_current, me.zone_next = me.zone_next, draw_zone(me, game.rng)
    if game.turn > 1 or game.options.first_turn_draw:
        me.draw()
    game.phase = Phase.MAIN
    game.say(f"turn {game.turn}: P{game.turn_player}")


def end_turn(game: Game) -> None:
    """Unused energy and this turn's effects end; checkup; knock-outs; the turn limit."""
    me = game.players[game.turn_player]
    me.zone_current = None
    me.supporter_played = me.retreated = False
    me.active_damage_bonus = me.retreat_discount = 0
    checkup(game)
    resolve_knockouts(game)
    if game.over:
        return
    if game.turn >= game.options.turn_limit:
        finish(game, None, f"turn limit {game.options.turn_limit}: draw")
        return
    game.phase = Phase.START_TURN


def checkup(game: Game) -> None:
    """Pokémon Checkup: the Active of the player whose turn ended, then the other's. Per
    Pokémon: Poisoned 10; Burned 20 then a coin (heads cures); Asleep a coin (heads wakes);
    Paralyzed is cured if its owner's turn just ended."""
    ended = game.turn_player
    for p in (ended, 1 - ended):
        mon = game.players[p].active
        if mon is None:
            continue
        if Status.POISONED in mon.statuses:
            mon.damage += 10
        if Status.BURNED in mon.statuses:
            mon.damage += 20
            if game.rng.coin():
                mon.statuses.discard(Status.BURNED)
        if Status.ASLEEP in mon.statuses and game.rng.coin():
            mon.statuses.discard(Status.ASLEEP)
        if Status.PARALYZED in mon.statuses and p == ended:
            mon.statuses.discard(Status.PARALYZED)


def resolve_knockouts(game: Game) -> None:
    """Every Pokémon with damage >= HP is knocked out (opponent of the turn player first):
    its opponent scores 1 (2 for an ex), its cards go to the discard pile. Then the win check
    (where both players meet a win condition at once, the one player with a Pokémon left in
    play wins, else it is a draw); then each player without an Active promotes (CHOOSE j), the
    turn player's opponent first."""
    order = (1 - game.turn_player, game.turn_player)
    for p in order:
        player = game.players[p]
        for j, mon in player.in_play():
            if mon.damage >= mon.card.hp:
                player.slots[j] = None
                player.discard.extend(mon.cards)
                game.players[1 - p].points += 2 if mon.card.is_ex else 1
                game.say(f"P{p} {mon.card.name} is knocked out")
    wins = [game.players[p].points >= WIN_POINTS or not game.players[1 - p].has_pokemon()
            for p in (0, 1)]
    if all(wins):
        alive = [game.players[p].has_pokemon() for p in (0, 1)]
        if alive[0] != alive[1]:
            finish(game, alive.index(True), f"both players win at once: P{alive.index(True)}, "
                                            "with a Pokémon left, wins")
        else:
            finish(game, None, "both players win at once: draw")
    elif any(wins):
        finish(game, wins.index(True), f"P{wins.index(True)} wins")
    else:
        game.pending += [Choice(ChoiceKind.PROMOTE, p) for p in order
                         if game.players[p].active is None]


def finish(game: Game, winner: int | None, text: str) -> None:
    game.phase = Phase.OVER
    game.winner = winner
    game.pending.clear()
    game.say(text)


def describe_in_play(player: Player) -> str:
    names = [("-" if m is None else m.card.name) for m in player.slots]
    return f"Active {names[0]}, Bench {', '.join(names[1:])}"
