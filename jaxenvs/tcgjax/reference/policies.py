"""Opponent policies and a game driver for the reference engine.

* ``RandomPolicy``: uniform over the legal actions. It draws ``randint(#legal)`` from its own
  random source (not the game's, so the game's stream does not depend on who plays) and takes
  that index of the ascending list of legal action ids.
* ``ScriptedPolicy``: a fixed heuristic, no randomness (see its docstring).
* ``MixedPolicy``: at each decision a coin of its own source picks ``ScriptedPolicy``'s action
  or ``RandomPolicy``'s: games that evolve and attack far more than random play, with every
  legal action still possible (the lockstep games of random decks use it).
"""

from __future__ import annotations

from typing import Callable

from jaxenvs.tcgjax import actions as A
from jaxenvs.tcgjax.cards import Deck
from jaxenvs.tcgjax.constants import RuleOptions
from jaxenvs.tcgjax.reference.rules import legal_actions, new_game, step
from jaxenvs.tcgjax.reference.state import ChoiceKind, Game, Phase
from jaxenvs.tcgjax.rng import RandomSource

Policy = Callable[[Game], int]


class RandomPolicy:
    """A uniformly random legal action, drawn from ``rng``."""

    def __init__(self, rng: RandomSource):
        self.rng = rng

    def __call__(self, game: Game) -> int:
        legal = legal_actions(game)
        return legal[self.rng.randint(len(legal))]


class ScriptedPolicy:
    """A simple deterministic player.

    * Setup: place every Basic in hand order (the first becomes the Active), then END.
    * Promotion / Sabrina switch-in: the Bench Pokémon with the most HP left (lowest slot on
      ties). Inferno Dance: the lowest legal Bench slot.
    * A turn, the first of these that is legal: evolve (lowest action id), attach energy to the
      Active, play a Basic, attack (the higher attack), END. (Attacking ends the turn, so the
      turn's energy and evolutions come first.)
      It plays no Trainers, abilities or retreats.
    """

    def __call__(self, game: Game) -> int:
        legal = legal_actions(game)
        me = game.players[game.current_player]
        if game.pending:
            if game.pending[0].kind is ChoiceKind.ATTACH_BENCH:
                return legal[0]
            return max(legal, key=lambda a: (me.slots[A.decode(a).slot].hp_left, -a))
        if game.phase is Phase.SETUP:
            return next((a for a in legal if a != A.END), A.END)
        decoded = {a: A.decode(a) for a in legal}
        evolve = [a for a, d in decoded.items()
                  if d.kind == "play_on" and me.hand[d.index].is_pokemon]
        attach = [a for a, d in decoded.items() if d.kind == "attach"]
        basics = [a for a, d in decoded.items() if d.kind == "play" and me.hand[d.index].is_basic]
        attacks = [a for a, d in decoded.items() if d.kind == "attack"]
        for group in (evolve, attach, basics):  # attach(0), the Active, is the lowest id
            if group:
                return group[0]
        return attacks[-1] if attacks else A.END


def play_game(deck0: Deck, deck1: Deck, rng: RandomSource, policies: tuple[Policy, Policy],
              on_step: Callable[[Game, int], None] | None = None,
              options: RuleOptions = RuleOptions()) -> Game:
    """Play a whole game by ``options``: ``policies[p]`` decides for player p.
    ``on_step(game, action)`` is called before each action is applied."""
    game = new_game(deck0, deck1, rng, options)
    while not game.over:
        action = policies[game.current_player](game)
        if on_step is not None:
            on_step(game, action)
        step(game, action)
    return game


class MixedPolicy:
    """``ScriptedPolicy``'s action on heads of ``rng.coin()``, else a ``RandomPolicy`` one
    drawn from the same ``rng``."""

    def __init__(self, rng: RandomSource):
        self.rng = rng
        self.scripted, self.random = ScriptedPolicy(), RandomPolicy(rng)

    def __call__(self, game: Game) -> int:
        return self.scripted(game) if self.rng.coin() else self.random(game)
