"""Card effects: one function per opcode, plus the condition that makes it usable.

Trainer effects take ``(game, p, slot, args)`` (``slot`` is the target, or None when the card
takes none); their conditions ``(game, p, slot, args) -> bool``. Ability effects take
``(game, p, slot, args)``. Attack effects take ``(game, p, attack, args)`` and return the
attack's base damage before modifiers (``rules.attack`` adds Giovanni and weakness).
``RULES.md`` states each effect; the tests in ``tests/tcgjax/test_effects.py`` pin them.
"""

from __future__ import annotations

from jaxenvs.tcgjax.cards import Attack
from jaxenvs.tcgjax.effects import NAME_GROUPS, EType, Op
from jaxenvs.tcgjax.reference.state import Choice, ChoiceKind, Game, Status, shuffle

# ---------------------------------------------------------------------------------- trainers


def draw(game: Game, p: int, slot, args) -> None:
    """Professor's Research: draw ``n`` cards, one at a time, each obeying the hand limit."""
    for _ in range(args[0]):
        game.players[p].draw()


def switch_opponent_active(game: Game, p: int, slot, args) -> None:
    """Sabrina: the opponent chooses (CHOOSE j, their decision) a Bench Pokémon to swap in."""
    game.pending.append(Choice(ChoiceKind.SWITCH_IN, 1 - p))


def opponent_has_bench(game: Game, p: int, slot, args) -> bool:
    return bool(game.players[1 - p].bench_slots())


def active_damage_bonus(game: Game, p: int, slot, args) -> None:
    """Giovanni: +amount to this turn's attack damage against the opponent's Active."""
    game.players[p].active_damage_bonus += args[0]


def heal(game: Game, p: int, slot, args) -> None:
    """Potion, Erika: heal ``amount`` from the target."""
    game.players[p].slots[slot].heal(args[0])


def heal_target_ok(game: Game, p: int, slot, args) -> bool:
    """A damaged Pokémon of yours, of the required type (``args[1] - 1``; 0 means any)."""
    mon = game.players[p].slots[slot]
    return (mon is not None and mon.damage > 0
            and (args[1] == 0 or mon.card.type == args[1] - 1))


def active_to_hand(game: Game, p: int, slot, args) -> None:
    """Koga: the Active (named in the group: Muk or Weezing) goes to the hand, top card
    first, then the cards under it; attached energy is discarded; the player then promotes
    (CHOOSE j)."""
    me = game.players[p]
    mon = me.slots[0]
    me.slots[0] = None
    for card in reversed(mon.cards):
        me.take_into_hand(card)
    game.pending.append(Choice(ChoiceKind.PROMOTE, p))


def active_named_and_bench(game: Game, p: int, slot, args) -> bool:
    me = game.players[p]
    return (me.active is not None and me.active.card.name in NAME_GROUPS[args[1]]
            and bool(me.bench_slots()))


def move_bench_energy_to_active(game: Game, p: int, slot, args) -> None:
    """Lt. Surge: every energy of ``type`` on your Benched Pokémon moves to your Active."""
    me = game.players[p]
    for j in me.bench_slots():
        me.active.energy[args[0]] += me.slots[j].energy[args[0]]
        me.slots[j].energy[args[0]] = 0


def active_in_group(game: Game, p: int, slot, args) -> bool:
    """Your Active is named in ``NAME_GROUPS[group]`` (Raichu, Electrode or Electabuzz)."""
    active = game.players[p].active
    return active is not None and active.card.name in NAME_GROUPS[args[1]]


def zone_attach_named(game: Game, p: int, slot, args) -> None:
    """Brock: one energy of ``type`` onto the target (besides the turn's Zone energy)."""
    game.players[p].slots[slot].energy[args[0]] += 1


def target_in_group(game: Game, p: int, slot, args) -> bool:
    """The target is named in ``NAME_GROUPS[group]`` (Golem or Onix)."""
    mon = game.players[p].slots[slot]
    return mon is not None and mon.card.name in NAME_GROUPS[args[1]]


def coin_until_tails_attach(game: Game, p: int, slot, args) -> None:
    """Misty: flip until tails; each heads attaches one energy of ``type`` to the target."""
    mon = game.players[p].slots[slot]
    heads = 0
    while game.rng.coin():
        heads += 1
        mon.energy[args[0]] += 1
    game.say(f"P{p} Misty: {heads} heads")


def target_of_type(game: Game, p: int, slot, args) -> bool:
    mon = game.players[p].slots[slot]
    return mon is not None and mon.card.type == args[0]


def random_pokemon_to_hand(game: Game, p: int, slot, args) -> None:
    """Poké Ball (``basic``), Find a Friend (``type`` {G}), Twinkly Call: ``randint(n)`` over
    the ``n`` Pokémon of the deck of type ``args[0] - 1`` (0: any) that are Basic if
    ``args[1]``, in deck order, picks the one for the hand; nothing happens (and nothing is
    drawn from the random source) if the deck has none."""
    me = game.players[p]
    fits = [i for i, c in enumerate(me.deck) if c.is_pokemon
            and (args[0] == 0 or c.type == args[0] - 1) and (c.is_basic or not args[1])]
    if fits:
        me.take_into_hand(me.deck.pop(fits[game.rng.randint(len(fits))]))


def retreat_discount(game: Game, p: int, slot, args) -> None:
    """X Speed: this turn the Active's retreat cost is ``amount`` lower (stacks)."""
    game.players[p].retreat_discount += args[0]


def opponent_shuffle_draw(game: Game, p: int, slot, args) -> None:
    """Red Card: the opponent's hand goes under their deck, the deck is shuffled, they draw n."""
    opp = game.players[1 - p]
    opp.deck = shuffle(opp.deck + opp.hand, game.rng)
    opp.hand = []
    for _ in range(args[0]):
        opp.draw()


def always(game: Game, p: int, slot, args) -> bool:
    return True


#: op -> (effect, condition, takes a target slot)
TRAINERS = {
    Op.DRAW: (draw, always, False),
    Op.SWITCH_OPPONENT_ACTIVE: (switch_opponent_active, opponent_has_bench, False),
    Op.ACTIVE_DAMAGE_BONUS: (active_damage_bonus, always, False),
    Op.HEAL: (heal, heal_target_ok, True),
    Op.ACTIVE_TO_HAND: (active_to_hand, active_named_and_bench, False),
    Op.COIN_UNTIL_TAILS_ATTACH: (coin_until_tails_attach, target_of_type, True),
    Op.RANDOM_POKEMON_TO_HAND: (random_pokemon_to_hand, always, False),
    Op.RETREAT_DISCOUNT: (retreat_discount, always, False),
    Op.OPPONENT_SHUFFLE_DRAW: (opponent_shuffle_draw, always, False),
    Op.MOVE_BENCH_ENERGY_TO_ACTIVE: (move_bench_energy_to_active, active_in_group, False),
    Op.ZONE_ATTACH_NAMED: (zone_attach_named, target_in_group, True),
}

# --------------------------------------------------------------------------------- abilities


def zone_attach_to_active(game: Game, p: int, slot, args) -> None:
    """Psy Shadow: one energy of ``type`` (not the turn's Zone energy) onto the Active."""
    game.players[p].active.energy[args[0]] += 1


def active_is_type(game: Game, p: int, slot, args) -> bool:
    active = game.players[p].active
    return active is not None and active.card.type == args[0]


def poison_if_active(game: Game, p: int, slot, args) -> None:
    """Gas Leak: the opponent's Active becomes Poisoned."""
    game.players[1 - p].active.add_status(Status.POISONED)


def is_active(game: Game, p: int, slot, args) -> bool:
    return slot == 0 and game.players[1 - p].active is not None


def zone_attach_to_itself(game: Game, p: int, slot, args) -> None:
    """Volt Charge: one energy of ``type`` (not the turn's Zone energy) onto this Pokémon."""
    game.players[p].slots[slot].energy[args[0]] += 1


def heal_each(game: Game, p: int, slot, args) -> None:
    """Powder Heal: heal ``amount`` from each of your Pokémon."""
    for mon in game.players[p].slots:
        if mon is not None:
            mon.heal(args[0])


def any_damaged(game: Game, p: int, slot, args) -> bool:
    """One of your Pokémon has damage (else healing would change nothing; ours, RULES.md)."""
    return any(mon is not None and mon.damage > 0 for mon in game.players[p].slots)


def status_ability(game: Game, p: int, slot, args) -> None:
    """Sleep Pendulum: as the attacks' ``inflict_status``."""
    inflict(game, p, args)


#: op -> (effect, condition); an ability is usable once per turn per Pokémon.
ABILITIES = {
    Op.ZONE_ATTACH_TO_ACTIVE: (zone_attach_to_active, active_is_type),
    Op.POISON_IF_ACTIVE: (poison_if_active, is_active),
    Op.ZONE_ATTACH_SELF: (zone_attach_to_itself, always),
    Op.HEAL_EACH: (heal_each, any_damaged),
    Op.SWITCH_OPPONENT_ACTIVE: (switch_opponent_active, opponent_has_bench),
    Op.INFLICT_STATUS: (status_ability, always),
}

# ----------------------------------------------------------------------------------- attacks


def plain(game: Game, p: int, attack: Attack, args) -> int:
    """No effect text: the printed damage."""
    return attack.damage


def defender_cant_retreat(game: Game, p: int, attack: Attack, args) -> int:
    """Corner: the opponent's Active cannot retreat during the next turn."""
    game.players[1 - p].active.cant_retreat_turn = game.turn + 1
    return attack.damage


def opponent_bench_damage(game: Game, p: int, attack: Attack, args) -> int:
    """Blizzard: ``amount`` to each opponent Benched Pokémon (no weakness, no Giovanni)."""
    opp = game.players[1 - p]
    for j in opp.bench_slots():
        opp.slots[j].damage += args[0]
    return attack.damage


def extra_energy(energy: list[int], cost: tuple[int, ...], etype: int) -> int:
    """Energy of ``etype`` left over after paying ``cost``, paying Colorless with other types
    first."""
    other = sum(energy) - energy[etype] - sum(
        n for t, n in enumerate(cost) if t not in (etype, EType.COLORLESS))
    colorless_from_etype = max(0, cost[EType.COLORLESS] - other)
    return energy[etype] - cost[etype] - colorless_from_etype


def extra_energy_bonus(game: Game, p: int, attack: Attack, args) -> int:
    """Hydro Bazooka: +bonus if at least ``count`` extra energy of ``type`` is attached."""
    etype, count, bonus = args
    extra = extra_energy(game.players[p].active.energy, attack.cost, etype)
    return attack.damage + (bonus if extra >= count else 0)


def discard_own_energy(game: Game, p: int, attack: Attack, args) -> int:
    """Ember, Crimson Storm, Psydrive: discard ``count`` energy of ``type`` (as many as there
    are, if fewer); Thunderbolt (``all``): every energy."""
    energy = game.players[p].active.energy
    if args[2]:
        energy[:] = [0] * len(energy)
    energy[args[0]] -= min(args[1], energy[args[0]])
    return attack.damage


def coin_bonus(game: Game, p: int, attack: Attack, args) -> int:
    """Tropical Swing (one coin), KO Crab (two): flip ``coins``, all heads +bonus; Thunder
    Punch: otherwise the attacker takes ``recoil`` (as ``self_damage``)."""
    bonus, coins, recoil = args
    if sum(game.rng.coin() for _ in range(coins)) == coins:
        return attack.damage + bonus
    game.players[p].active.damage += recoil
    return attack.damage


def coins_zone_attach_bench(game: Game, p: int, attack: Attack, args) -> int:
    """Inferno Dance: flip ``coins``; per heads the attacker chooses (CHOOSE j) a Benched
    Pokémon of ``type`` to get one such energy. Without one, the energy is lost."""
    coins, etype = args[0], args[1]
    heads = sum(game.rng.coin() for _ in range(coins))
    me = game.players[p]
    targets = [j for j in me.bench_slots() if me.slots[j].card.type == etype]
    game.say(f"P{p} Inferno Dance: {heads} heads")
    if targets:
        game.pending.extend(Choice(ChoiceKind.ATTACH_BENCH, p, EType(etype))
                            for _ in range(heads))
    return attack.damage


def damage_per_own_bench(game: Game, p: int, attack: Attack, args) -> int:
    """Circle Circuit: ``per`` for each of your Benched Pokémon of ``type``; Do the Wave
    (``any``): for each of them."""
    per, etype, any_type = args
    me = game.players[p]
    return per * sum(any_type or me.slots[j].card.type == etype for j in me.bench_slots())


def heal_self(game: Game, p: int, attack: Attack, args) -> int:
    """Giant Bloom: heal ``amount`` from the attacker; Happy Punch (``coin``): on heads."""
    if not args[1] or game.rng.coin():
        game.players[p].active.heal(args[0])
    return attack.damage


def coins_damage(game: Game, p: int, attack: Attack, args) -> int:
    """Thundering Hurricane: ``per`` for each heads of ``coins`` coins."""
    return args[1] * sum(game.rng.coin() for _ in range(args[0]))


def inflict_status(game: Game, p: int, attack: Attack, args) -> int:
    """Poison Powder, Sleep Powder, Ice Beam (one coin), Collapse (on the attacker), ...: the
    Special Condition ``CONDITIONS[condition]``, only on heads if ``coin``, on the opponent's
    Active or, ``on_self``, on the attacker (replacing Asleep, Paralyzed or Confused)."""
    inflict(game, p, args)
    return attack.damage


def inflict(game: Game, p: int, args) -> None:
    condition, coin, on_self = args
    if not coin or game.rng.coin():
        game.players[p if on_self else 1 - p].active.add_status(list(Status)[condition])


def self_damage(game: Game, p: int, attack: Attack, args) -> int:
    """Heat Tackle, Double-Edge, ...: the attacker also takes ``amount`` (no modifiers)."""
    game.players[p].active.damage += args[0]
    return attack.damage


def coin_or_nothing(game: Game, p: int, attack: Attack, args) -> int:
    """Sky Attack, Surprise Attack, ...: one coin, tails the attack does nothing."""
    return attack.damage if game.rng.coin() else 0


def draw_cards(game: Game, p: int, attack: Attack, args) -> int:
    """Pay Day: draw ``n`` cards, as Professor's Research does."""
    draw(game, p, None, args)
    return attack.damage


def conditional_bonus(game: Game, p: int, attack: Attack, args) -> int:
    """Fight Back, Second Strike, Venoshock, Cross-Cut, Beginning Bolt, Metal Arms: +bonus if
    the condition ``BONUS_CONDITIONS[condition]`` holds. No Pokémon Tool exists among the
    cards, so "has a Tool attached" never does."""
    condition, bonus = args[0], args[1]
    me, opp = game.players[p].active, game.players[1 - p].active
    holds = (me.damage > 0, opp.damage > 0, Status.POISONED in opp.statuses,
             opp.card.stage > 0, me.card.stage > 0 and me.entered_turn == game.turn,
             False)[condition]
    return attack.damage + (bonus if holds else 0)


def bonus_per_defender_energy(game: Game, p: int, attack: Attack, args) -> int:
    """Psychic (Alakazam, Jynx): +per for each energy attached to the opponent's Active."""
    return attack.damage + args[0] * game.players[1 - p].active.energy_count()


def zone_attach_self(game: Game, p: int, attack: Attack, args) -> int:
    """Amass, Growth Spurt, Plasma Hurricane: one energy of ``type`` onto the attacker."""
    game.players[p].active.energy[args[0]] += 1
    return attack.damage


def discard_defender_energy(game: Game, p: int, attack: Attack, args) -> int:
    """Hyper Beam; Crunch, Drill Run (``coin``: on heads only): discard a random energy of the
    opponent's Active, the one ``randint(n)`` picks among its ``n`` counted in type order."""
    if args[0] and not game.rng.coin():
        return attack.damage
    energy = game.players[1 - p].active.energy
    if sum(energy):
        k = game.rng.randint(sum(energy))
        t = next(t for t in range(len(energy)) if k < sum(energy[:t + 1]))
        energy[t] -= 1
    return attack.damage


def coin_until_tails_damage(game: Game, p: int, attack: Attack, args) -> int:
    """Continuous Lick; Spiral Rush (``more``): ``per`` for each heads before the first tails,
    added to the printed damage if ``more``."""
    per, more = args[0], args[1]
    heads = 0
    while game.rng.coin():
        heads += 1
    return per * heads + (attack.damage if more else 0)


def discard_deck_tops(game: Game, p: int, attack: Attack, args) -> int:
    """Shoegaze: the top ``n`` cards of each player's deck (all, if fewer) are discarded,
    the attacker's first."""
    for player in (game.players[p], game.players[1 - p]):
        player.discard += player.deck[:args[0]]
        del player.deck[:args[0]]
    return attack.damage


def discard_opponent_hand(game: Game, p: int, attack: Attack, args) -> int:
    """Diving Swipe; Shadow Claw (``coin``: on heads only): ``randint(n)`` over the ``n``
    cards of the opponent's hand, in hand order, picks the one discarded; no call if the hand
    is empty."""
    opp = game.players[1 - p]
    if (not args[0] or game.rng.coin()) and opp.hand:
        opp.discard.append(opp.hand.pop(game.rng.randint(len(opp.hand))))
    return attack.damage


def random_pokemon_to_hand_attack(game: Game, p: int, attack: Attack, args) -> int:
    """Find a Friend, Cry for Help, Twinkly Call: as Poké Ball with their filter."""
    random_pokemon_to_hand(game, p, None, args)
    return attack.damage


ATTACKS = {
    Op.NONE: plain,
    Op.DRAW: draw_cards,
    Op.DEFENDER_CANT_RETREAT: defender_cant_retreat,
    Op.OPPONENT_BENCH_DAMAGE: opponent_bench_damage,
    Op.EXTRA_ENERGY_BONUS: extra_energy_bonus,
    Op.DISCARD_OWN_ENERGY: discard_own_energy,
    Op.COIN_BONUS: coin_bonus,
    Op.COINS_ZONE_ATTACH_BENCH: coins_zone_attach_bench,
    Op.DAMAGE_PER_OWN_BENCH: damage_per_own_bench,
    Op.HEAL_SELF: heal_self,
    Op.COINS_DAMAGE: coins_damage,
    Op.INFLICT_STATUS: inflict_status,
    Op.SELF_DAMAGE: self_damage,
    Op.COIN_OR_NOTHING: coin_or_nothing,
    Op.CONDITIONAL_BONUS: conditional_bonus,
    Op.BONUS_PER_DEFENDER_ENERGY: bonus_per_defender_energy,
    Op.ZONE_ATTACH_SELF: zone_attach_self,
    Op.DISCARD_DEFENDER_ENERGY: discard_defender_energy,
    Op.COIN_UNTIL_TAILS_DAMAGE: coin_until_tails_damage,
    Op.DISCARD_DECK_TOPS: discard_deck_tops,
    Op.DISCARD_OPPONENT_HAND: discard_opponent_hand,
    Op.RANDOM_POKEMON_TO_HAND: random_pokemon_to_hand_attack,
}
