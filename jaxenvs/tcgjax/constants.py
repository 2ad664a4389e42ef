"""The game's numbers that both engines follow (``RULES.md`` gives each with its source)."""

#: Points that win the game.
WIN_POINTS = 3
#: Turns (both players together) after which an undecided game is a draw: 30 each.
TURN_LIMIT = 60
#: Cards in the opening hand.
OPENING_HAND = 5
#: Damage added when the attacker's type is the defender's weakness.
WEAKNESS_BONUS = 20
