"""The game's numbers that both engines follow (``RULES.md`` gives each with its source), and
the options where the public sources disagree."""

from __future__ import annotations

from dataclasses import dataclass

#: Points that win the game.
WIN_POINTS = 3
#: Turns, both players' counted as the app counts them (15 each), after which an undecided
#: game is a draw.
TURN_LIMIT = 30
#: Cards in the opening hand.
OPENING_HAND = 5
#: Damage added when the attacker's type is the defender's weakness.
WEAKNESS_BONUS = 20


@dataclass(frozen=True)
class RuleOptions:
    """The rules a game is played by where public sources disagree (``RULES.md`` section 10);
    the defaults are the choices made there."""

    turn_limit: int = TURN_LIMIT
    """Turns (both players' counted) after which an undecided game is a draw (sources give 30
    or 50)."""
    first_turn_draw: bool = True
    """The first player draws on turn 1."""
    first_turn_supporter: bool = True
    """The first player may play a Supporter on turn 1."""
