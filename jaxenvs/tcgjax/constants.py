"""The game's numbers that both engines follow (``RULES.md`` gives each with its source)."""

#: Points that win the game.
WIN_POINTS = 3
#: Turns, both players' counted as the app counts them (15 each), after which an undecided
#: game is a draw.
TURN_LIMIT = 30
#: Cards in the opening hand.
OPENING_HAND = 5
#: Damage added when the attacker's type is the defender's weakness.
WEAKNESS_BONUS = 20
