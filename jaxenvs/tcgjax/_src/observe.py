"""What a player sees: the observation pytree, and the opponent policies that read the state.

The observation of player ``me`` (a dict of arrays; "both" axes are ordered me, opponent):

=====================  ===============  ======================================================
key                    shape, dtype     content
=====================  ===============  ======================================================
action_mask            bool[68]         the legal actions (``actions.py``), all False if over
current_player         int32            who decides now (0/1; meaningful in self-play)
me                     int32            the observing player's seat
hand                   int32[10]        own hand, card indices (``tables``), -1 padded
deck                   int32[20]        own deck's cards in ascending index (order hidden)
stack                  int32[2, 4, 3]   both players' evolution stacks per slot (-1 empty)
damage                 int32[2, 4]      damage per slot
energy                 int32[2, 4, 10]  attached energy per slot and EType
status                 bool[2, 4, 5]    Special Conditions (``state.STATUSES``)
slot_turns             int32[2, 4, 3]   entered / ability used / can't-retreat turn per slot
discard                int32[2, 20]     both discard piles in order (public)
counts                 int32[2, 3]      deck size, hand size, points
zone                   int32[2, 5]      Zone current, next (-1 none), energy types (-1 pad)
turn_flags             int32[2, 4]      Supporter played, retreated, Giovanni bonus, X Speed
game                   int32[8]         turn, phase, first player, setup player, #pending,
                                        first pending kind, its player, its energy (-1 none)
=====================  ===============  ======================================================

Hidden: the opponent's hand (only its size) and both decks' order. During SETUP the
opponent's Pokémon in play are hidden too (stack -1, zeros), since the real game reveals
both placements at once.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from gymnax.environments import spaces

from jaxenvs._src import branches, legal_draw
from jaxenvs._src.keys import fast_key
from jaxenvs.tcgjax import actions as A
from jaxenvs.tcgjax._src import engine
from jaxenvs.tcgjax._src.state import ATTACH_BENCH, SETUP, GameState, current_player, player
from jaxenvs.tcgjax._src.tables import NUM_CARDS

I32 = jnp.int32


def observation(state: GameState, me, mask=None) -> dict:
    """Player ``me``'s view of ``state`` (see the module docstring); ``mask``: its legal
    actions, ``engine.legal_action_mask(state)``, if the caller has them."""
    pl = state.players
    order = jnp.stack([me, 1 - me])
    own = player(state, me)
    hide = (jnp.arange(2) == 1) & (state.phase == SETUP)

    def both(x, fill):
        x = x[order]
        return jnp.where(hide.reshape((2,) + (1,) * (x.ndim - 1)), fill, x)

    turns = jnp.stack([pl.entered_turn, pl.ability_used_turn, pl.cant_retreat_turn], axis=-1)
    zone = jnp.concatenate([pl.zone_current[:, None], pl.zone_next[:, None], pl.energy_types],
                           axis=1)
    counts = jnp.stack([pl.deck_size, pl.hand_size, pl.points], axis=1)
    flags = jnp.stack([pl.supporter_played.astype(I32), pl.retreated.astype(I32),
                       pl.active_damage_bonus, pl.retreat_discount], axis=1)
    game = jnp.stack([state.turn, state.phase, state.first_player, state.setup_player,
                      state.num_pending, state.pending_kind[0], state.pending_player[0],
                      state.pending_energy[0]]).astype(I32)
    return {
        "action_mask": engine.legal_action_mask(state) if mask is None else mask,
        "current_player": current_player(state).astype(I32),
        "me": jnp.asarray(me, I32),
        "hand": own.hand,
        "deck": sorted_deck(own.deck, own.deck_size),
        "stack": both(pl.stack, -1),
        "damage": both(pl.damage, 0),
        "energy": both(pl.energy, 0),
        "status": both(pl.status, False),
        "slot_turns": both(turns, -1),
        "discard": pl.discard[order],
        "counts": counts[order],
        "zone": zone[order],
        "turn_flags": flags[order],
        "game": game,
    }


def sorted_deck(deck, deck_size):
    """int32[20]: the first ``deck_size`` cards of ``deck`` in ascending index, -1 after (the
    deck's order hidden). Env by env (``branches.by_batching``), each card is placed at its
    rank, counted for all 20 at once as a sum over the rows of their 20 x 20 compares (the
    cards vector-wide): in TCGJax's CPU kernel a sort, rewritten there as 20 x 20 compares
    (``jaxenvs._src.cpu_kernels.kernel_rewrite``) summed along each row, would be much of the
    observation's time, and placing by rank is cheaper than a loop over the deck's cards
    counting each one's rank (``docs/game-engines-on-cpu.md``, "Scatters and sorts in
    kernels")."""
    last = jnp.where(jnp.arange(deck.shape[0]) < deck_size, deck, NUM_CARDS)

    def by_rank(last):
        key = last * deck.shape[0] + jnp.arange(deck.shape[0])  # ties: deck order
        rank = jnp.sum(key[:, None] < key[None, :], axis=0, dtype=I32)
        return jnp.zeros(deck.shape, I32).at[rank].set(last, unique_indices=True)

    ordered = branches.by_batching(by_rank, jnp.sort, last,
                                   result_shapes=jax.ShapeDtypeStruct(deck.shape, I32))
    return jnp.where(ordered == NUM_CARDS, -1, ordered)


def observation_space() -> spaces.Dict:
    """Bounds of every entry (inclusive; booleans as 0..1)."""
    big = 1000

    def box(shape, low=-1, high=big, dtype=jnp.int32):
        return spaces.Box(low, high, shape, dtype)

    return spaces.Dict({
        "action_mask": box((A.NUM_ACTIONS,), 0, 1, jnp.bool_),
        "current_player": spaces.Discrete(2), "me": spaces.Discrete(2),
        "hand": box((A.HAND_MAX,), -1, NUM_CARDS - 1), "deck": box((20,), -1, NUM_CARDS - 1),
        "stack": box((2, 4, 3), -1, NUM_CARDS - 1), "damage": box((2, 4), 0),
        "energy": box((2, 4, 10), 0), "status": box((2, 4, 5), 0, 1, jnp.bool_),
        "slot_turns": box((2, 4, 3)), "discard": box((2, 20), -1, NUM_CARDS - 1),
        "counts": box((2, 3), 0), "zone": box((2, 5)), "turn_flags": box((2, 4), 0),
        "game": box((8,)),
    })


def random_action(mask, key, decision):
    """The random opponent (``RULES.md`` section 8): decision ``j`` takes legal action
    ``w mod #legal`` of the ascending list of ``mask``, where ``w = hi * 2**32 + lo`` is the
    64-bit number made of the two words of ``key_data(fold_in(key, j))``
    (``engine.uniform_below``): uniform up to a bias below ``#legal / 2**64``, and one
    threefry hash per decision, where ``jax.random.randint`` takes five. The legal actions are
    counted and the drawn one found with the mask read as words (``legal_draw``)."""
    sub = jax.random.fold_in(fast_key(key), decision)
    legal = legal_draw.legal_words(mask)
    return legal_draw.nth(legal, engine.uniform_below(sub, jnp.maximum(legal.total, 1)))


def scripted_action(state: GameState, mask):
    """The scripted opponent (``reference/policies.py``: ``ScriptedPolicy``); ``mask`` is
    ``engine.legal_action_mask(state)``."""
    ids = jnp.arange(A.NUM_ACTIONS)
    me = player(state, current_player(state))
    tops = engine.top_cards(me)

    def lowest(m):
        return jnp.where(jnp.any(m), jnp.argmax(m), A.END).astype(I32)

    hp_left = engine._card("hp", tops) - me.damage
    score = jnp.where(mask[A.CHOOSE_BASE:], hp_left * 8 + (3 - jnp.arange(4)), -1)
    choose = jnp.where(state.pending_kind[0] == ATTACH_BENCH, lowest(mask),
                       A.CHOOSE_BASE + jnp.argmax(score))
    placing = lowest(mask & (ids != A.END))
    hand_card = jnp.concatenate([jnp.full(A.PLAY_BASE, -1), jnp.arange(A.HAND_MAX),
                                 jnp.repeat(jnp.arange(A.HAND_MAX), A.NUM_SLOTS),
                                 jnp.full(A.NUM_ACTIONS - A.ABILITY_BASE, -1)])
    card = jnp.where(hand_card >= 0, me.hand[jnp.maximum(hand_card, 0)], -1)
    kind = jnp.asarray(engine.ACTION_KIND)
    evolve = mask & (kind == 4) & engine._card("is_pokemon", card) & (card >= 0)
    attach = mask & (kind == 2)
    basic = mask & (kind == 3) & engine._card("is_basic", card) & (card >= 0)
    attack = mask & (kind == 1)
    turn = jnp.select([jnp.any(evolve), jnp.any(attach), jnp.any(basic), jnp.any(attack)],
                      [lowest(evolve), lowest(attach), lowest(basic),
                       (A.NUM_ACTIONS - 1 - jnp.argmax(attack[::-1]))], A.END)
    return jnp.where(state.num_pending > 0, choose,
                     jnp.where(state.phase == SETUP, placing, turn)).astype(I32)

