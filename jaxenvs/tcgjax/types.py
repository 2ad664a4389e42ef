"""TCGJax's parameters and state (``env`` wires them into the gymnax environments)."""

from __future__ import annotations

import jax
from flax import struct

from jaxenvs.tcgjax._src.state import GameState
from jaxenvs.tcgjax.constants import RuleOptions

#: Decisions of one game are far fewer; the default never truncates a game.
MAX_STEPS = 10_000


@struct.dataclass
class TCGJaxParams:
    """Environment parameters (arrays and scalars; changing them does not recompile, a pool
    of another size does)."""

    decks: dict[str, jax.Array]
    """The deck pool: ``cards`` int32[N, 20] (card table indices), ``energy`` int32[N, 3]
    (Energy Zone types, -1 padded), ``num_energy`` int32[N] (``env.deck_pool``). ``make``
    takes a list of decks or a JSON file of them (``cards.load_decks``); the default is the
    six sample decks (``env.DECK_NAMES``)."""
    deck0: int = 3
    """Player 0's deck, an index into the pool (default lightning-pikachu-zapdos), or -1: drawn
    from the pool at each reset."""
    deck1: int = 5
    """Player 1's deck (default water-blastoise), as ``deck0``."""
    agent_seat: int = 0
    """``TCGJax``: the agent's seat, 0 or 1 (who goes first is the game's coin)."""
    opponent: int = 0
    """``TCGJax``: 0 random legal, 1 scripted."""
    max_steps_in_episode: int = MAX_STEPS
    """Truncation limit in env steps."""
    turn_limit: int = RuleOptions.turn_limit
    """Turns (both players' counted) after which an undecided game is a draw: 30, or 50 as in
    some of the app's battles (``RuleOptions``; ``RULES.md`` section 10)."""
    first_turn_draw: bool = RuleOptions.first_turn_draw
    """The first player draws on turn 1 (sources disagree; ``RULES.md`` section 10)."""
    first_turn_supporter: bool = RuleOptions.first_turn_supporter
    """The first player may play a Supporter on turn 1 (sources disagree)."""

    @property
    def rule_options(self) -> RuleOptions:
        """The game's ``RuleOptions`` (values traced under ``jit``)."""
        return RuleOptions(turn_limit=self.turn_limit, first_turn_draw=self.first_turn_draw,
                           first_turn_supporter=self.first_turn_supporter)


@struct.dataclass
class TCGJaxState:
    """An episode: the game, its keys (raw key data, uint32[2]) and counters."""

    game: GameState
    game_key: jax.Array
    """The game's random stream key data."""
    opponent_key: jax.Array
    """The random opponent's key data."""
    opponent_decisions: jax.Array
    """Decisions the opponent took so far (int32)."""
    time: jax.Array
    """Env steps so far (int32)."""
    mask: jax.Array
    """bool[NUM_ACTIONS]: ``engine.legal_action_mask(game)``, kept so that each decision
    computes it once (the step checks the action with it, the observation shows it)."""
