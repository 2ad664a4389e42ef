"""The JAX engine: ``new_game``, ``legal_action_mask`` and ``step`` on ``GameState``.

The rules of ``RULES.md``, stage by stage as the reference engine (``reference/rules.py``,
``reference/effects.py``) states them, pure and jittable: every function takes and returns a
``GameState`` of fixed shapes, and ``jax.vmap`` batches them. Random decisions come from the
game's key as ``rng.py`` defines the stream: call ``k`` uses ``fold_in(key, k)`` and the state
keeps ``k`` (``rng_counter``); a call the reference makes only under a condition is made (and
counted) here under the same condition, so both engines draw the same answers. (The key is
used as ``jaxenvs._src.keys.fast_key``: the same answers, computed faster.)

``step(state, action, key)`` applies one legal action of ``current_player`` and runs the
automatic flow (after-attack knock-outs, end of turn, checkup, start of the next turn) to the
next decision, as the reference's ``step`` does. ``key`` is the game's key
(``jax.random.key(seed)``), the same for every step of a game. An illegal action is not
checked (its result is unspecified): take actions from ``legal_action_mask``.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxenvs._src import barrier, branches
from jaxenvs._src.keys import fast_key
from jaxenvs.tcgjax import actions as A
from jaxenvs.tcgjax._src.state import (AFTER_ATTACK, ASLEEP, ATTACH_BENCH, BURNED, CONFUSED,
                                       END_TURN, MAIN, MAX_PENDING, NEVER, OVER, PARALYZED,
                                       POISONED, PROMOTE, SETUP, STACK_SIZE, START_TURN, SWITCH_IN,
                                       GameState, PlayerState, empty_player, player, set_player,
                                       stack_players, turn_player)
from jaxenvs.tcgjax._src.tables import NUM_CARDS, card_arrays, card_index
from jaxenvs.tcgjax.cards import DECK_SIZE, Deck
from jaxenvs.tcgjax.constants import OPENING_HAND, WEAKNESS_BONUS, WIN_POINTS, RuleOptions
from jaxenvs.tcgjax.effects import BONUS_CONDITIONS, EType, Op
from jaxenvs.tcgjax.rng import PERMUTATION_SIZE

I32 = jnp.int32
HAND_MAX, NUM_SLOTS = A.HAND_MAX, A.NUM_SLOTS
#: ``PlayerState``'s leaves indexed by slot first (``damage``, the turns and the like are in
#: ``slot_facts``).
SLOT_FIELDS = ("stack", "energy", "status", "slot_facts")


#: Rows of the card tables as ``_card`` reads them: a power of two above the card count, so
#: that there is a padding row for -1.
CARD_ROWS = 1 << NUM_CARDS.bit_length()


@functools.cache
def _card_rows(field: str) -> np.ndarray:
    """Card fact ``field``'s table, padded to ``CARD_ROWS`` rows with copies of card 0's."""
    table = getattr(card_arrays(), field)
    return np.concatenate([table, np.repeat(table[:1], CARD_ROWS - len(table), axis=0)])


def _card(field: str, idx):
    """Card fact ``field`` (of ``tables.CardArrays``) of card index ``idx`` (any shape; -1
    entries read card 0). Read at ``idx & (CARD_ROWS - 1)``, an index the compiler knows to be
    in the padded table (-1 reads a padding row, card 0's), so that it drops the read's bounds
    checks, which ``max(idx, 0)`` on the unpadded table would leave in each of the step's many
    card reads (``docs/game-engines-on-cpu.md``, "Scatters and sorts in kernels")."""
    return jnp.asarray(_card_rows(field))[jnp.asarray(idx) & (CARD_ROWS - 1)]


def _max_arg(op: Op, position: int) -> int:
    """The largest argument ``position`` of ``op`` in the table (a static loop bound)."""
    t = card_arrays()
    rows = np.concatenate([t.trainer, t.ability, t.attack_effect.reshape(-1, 4)])
    return int(rows[rows[:, 0] == op][:, 1 + position].max(initial=0))


def tree_select(pred, a, b):
    """``a`` where ``pred`` else ``b``, leaf by leaf (a leaf that is the same object in both
    stays that object)."""
    return jax.tree.map(lambda x, y: x if x is y else jnp.where(pred, x, y), a, b)


def materialize(state: GameState) -> GameState:
    """``state`` unchanged, computed in full before anything uses it, in every form
    (``barrier.materialize_everywhere``, counting on ``decisions``): a game's coin and the
    phase it decides would otherwise be recomputed for every entry of every wide array (deck,
    hand, mask) that depends on them, which under ``vmap`` would be most of a step's time."""
    return barrier.materialize_everywhere(state, state.decisions)


def update(state: GameState, p, fn) -> GameState:
    """``state`` with player ``p`` replaced by ``fn(player p)``."""
    me = player(state, p)
    return set_player(state, p, fn(me), me)

# ------------------------------------------------------------------------- random stream


def _sub(key, state: GameState, offset=0):
    return jax.random.fold_in(key, state.rng_counter + offset)


def flips(key, state: GameState, m: int, needed):
    """bool[m]: the coins calls ``rng_counter``, ``rng_counter + 1``, ... would give (drawing
    nothing: the caller counts the calls it uses), all False unless ``needed``. One vectorized
    draw, the same bits as m separate ones and far fewer operations. Behind a branch, since
    most calls need none (no coin attack, no Burned or Asleep Active at checkup): each coin is
    two threefry hashes, and where the step runs env by env the branch skips them."""

    def draw(key, counter):
        subs = jax.vmap(lambda i: jax.random.fold_in(key, counter + i))(jnp.arange(m))
        return jax.vmap(lambda sub: jax.random.bernoulli(sub, 0.5))(subs)

    return branches.cond(needed, draw, lambda key, counter: jnp.zeros(m, jnp.bool_), key,
                         state.rng_counter, result_shapes=jax.ShapeDtypeStruct((m,), jnp.bool_))


def coins(key, state: GameState, n):
    """``n`` (traced, at most 4) coins: (state counting n calls, number of heads)."""
    heads = jnp.sum(flips(key, state, 4, n > 0) & (jnp.arange(4) < n))
    return state.replace(rng_counter=state.rng_counter + n), heads


def coins_if(key, state: GameState, conds):
    """A coin for each true entry of ``conds`` (a list), in order, each counted only if made:
    (state, [heads and cond for each])."""
    drawn = flips(key, state, len(conds), jnp.any(jnp.stack(conds)))
    used, heads = I32(0), []
    for cond in conds:
        heads.append(cond & jnp.any(drawn & (jnp.arange(len(conds)) == used)))
        used = used + cond
    return state.replace(rng_counter=state.rng_counter + used), heads


def coin_if(key, state: GameState, cond):
    """One coin if ``cond`` (counted only then): (state, heads and cond)."""
    state, (heads,) = coins_if(key, state, [cond])
    return state, heads


def randint_if(key, state: GameState, n, cond=True):
    """``randint(n)`` if ``cond`` (counted only then)."""
    r = uniform_below(_sub(key, state), jnp.maximum(n, 1))
    return state.replace(rng_counter=state.rng_counter + cond), r


def uniform_below(sub, n):
    """int32 in ``0..n-1`` (``1 <= n < 2**16``) from key ``sub`` (``rng.py``'s randint): its
    two words ``hi, lo`` as the 64-bit number ``hi * 2**32 + lo``, mod ``n``, in 32-bit
    arithmetic. ``sub`` is already a hash (``fold_in`` of the call's number), so this hashes
    no more, where ``jax.random.randint`` hashes four times (its key split in two, a draw from
    each). Every turn draws the next Energy Zone energy with it, and the random opponent each
    decision, so the hashes saved are a noticeable part of a TCGJax step
    (``docs/game-engines-on-cpu.md``, "Random numbers")."""
    hi, lo = jax.random.key_data(sub)
    n = jnp.asarray(n).astype(jnp.uint32)
    two_32_mod_n = (jnp.uint32(0xFFFFFFFF) % n + 1) % n
    return (((hi % n) * two_32_mod_n + lo % n) % n).astype(I32)


def permutation(key, state: GameState, n):
    """``permutation(n)``: int32[20], the permutation in the first ``n`` entries, -1 after.

    ``jax.random.permutation(sub, 20)`` is one stable sort of ``arange(20)`` by 20 random
    32-bit keys (``bits`` of the second half of ``split(sub)``; one round suffices for 20
    entries); ``stable_order`` gives the same order without a sort."""
    _, sort_key = jax.random.split(_sub(key, state))
    # in memory before the m x m compares read them: fused into the count, the threefry
    # hash of each key would be recomputed for every key it is compared with
    bits = barrier.materialize(jax.random.bits(sort_key, (PERMUTATION_SIZE,), jnp.uint32),
                               state.decisions)
    return state.replace(rng_counter=state.rng_counter + 1), stable_order(bits, n)


def stable_order(sort_keys, n):
    """int32[m]: the indices ``0..n-1`` ordered by ``sort_keys[:n]`` (ties: lower index first),
    -1 after. By counting, for each index, the kept ones that sort before it (m x m compares):
    XLA's CPU backend runs a sort element by element, which under ``vmap`` would be the
    engine's largest cost."""
    i = jnp.arange(sort_keys.shape[0])
    keep = i < n
    before = (sort_keys[None, :] < sort_keys[:, None]) | (
        (sort_keys[None, :] == sort_keys[:, None]) & (i[None, :] < i[:, None]))
    place = jnp.sum(before & keep[None, :], axis=1)
    at = keep[:, None] & (place[:, None] == i[None, :])  # [index, place]
    return jnp.where(keep, jnp.sum(jnp.where(at, i[:, None], 0), axis=0), -1).astype(I32)

# --------------------------------------------------------------------------- list helpers


def shift(arr, n: int):
    """``arr`` moved up by ``n`` entries, -1 after."""
    return jnp.concatenate([arr[n:], jnp.full(n, -1, arr.dtype)])


def remove_at(arr, i):
    """``arr`` without entry ``i``, the rest moved up, -1 at the end (selects only: a traced
    index would make a gather, slow under ``vmap``; so do ``append`` and ``set_at``)."""
    return jnp.where(jnp.arange(arr.shape[0]) < i, arr, shift(arr, 1))


def set_at(arr, i, x):
    """``arr.at[i].set(x)`` on the first axis (``i`` outside the array: unchanged)."""
    hit = jnp.arange(arr.shape[0]) == i
    return jnp.where(hit.reshape((-1,) + (1,) * (arr.ndim - 1)), x, arr)


def _hit2(arr, i, j):
    return (jnp.arange(arr.shape[0]) == i)[:, None] & (jnp.arange(arr.shape[1]) == j)[None, :]


def set_in(arr, i, j, x):
    """``arr.at[i, j].set(x)`` for a 2-D ``arr`` (outside the array: unchanged)."""
    return jnp.where(_hit2(arr, i, j), x, arr)


def add_at(arr, i, j, x):
    """``arr.at[i, j].add(x)`` for a 2-D ``arr`` and indices in range."""
    return arr + jnp.where(_hit2(arr, i, j), x, 0).astype(arr.dtype)


def get_at(arr, i):
    """``arr[i]`` on the first axis, ``i`` in range."""
    hit = (jnp.arange(arr.shape[0]) == i).reshape((-1,) + (1,) * (arr.ndim - 1))
    return jnp.sum(jnp.where(hit, arr, 0), axis=0).astype(arr.dtype)


def append(arr, size, x, cond=True):
    """(arr with ``x`` at ``size`` if ``cond``, new size)."""
    return set_at(arr, jnp.where(cond, size, arr.shape[0]), x), size + cond


def gather_shuffled(arr, perm):
    """``[arr[p] for p in perm]`` over the valid (>= 0) entries of ``perm``, -1 after."""
    return jnp.where(perm >= 0, arr[jnp.maximum(perm, 0)], -1)

# ------------------------------------------------------------------------- player helpers


def top_cards(me: PlayerState):
    """int32[4]: the card of each slot (the top of its stack), -1 for empty slots."""
    depth = jnp.sum(me.stack >= 0, axis=-1)
    top = jnp.take_along_axis(me.stack, jnp.maximum(depth - 1, 0)[..., None], axis=-1)[..., 0]
    return jnp.where(depth > 0, top, -1)


def occupied(me: PlayerState):
    return me.stack[..., 0] >= 0


def draw(me: PlayerState, cond=True) -> PlayerState:
    """Draw the top card unless the deck is empty or the hand is full (and ``cond``)."""
    ok = cond & (me.deck_size > 0) & (me.hand_size < HAND_MAX)
    hand, hand_size = append(me.hand, me.hand_size, me.deck[0], ok)
    deck = jnp.where(ok, remove_at(me.deck, 0), me.deck)
    return me.replace(hand=hand, hand_size=hand_size, deck=deck, deck_size=me.deck_size - ok)


def take_into_hand(me: PlayerState, card, cond=True) -> PlayerState:
    """A card an effect puts into the hand: discarded instead if the hand is full."""
    room = me.hand_size < HAND_MAX
    hand, hand_size = append(me.hand, me.hand_size, card, cond & room)
    discard, discard_size = append(me.discard, me.discard_size, card, cond & ~room)
    return me.replace(hand=hand, hand_size=hand_size, discard=discard, discard_size=discard_size)


_EMPTY = empty_player()


def clear_slot(me: PlayerState, j, cond=True) -> PlayerState:
    """Empty slot ``j`` (if ``cond``): every slot field back to its padding value."""
    return me.replace(**{f: set_at(getattr(me, f), jnp.where(cond, j, NUM_SLOTS),
                                   getattr(_EMPTY, f)[0]) for f in SLOT_FIELDS})


def swap_slots(me: PlayerState, a, b) -> PlayerState:
    def swap(x):
        return set_at(set_at(x, a, get_at(x, b)), b, get_at(x, a))

    return me.replace(**{f: swap(getattr(me, f)) for f in SLOT_FIELDS})


def leave_active(me: PlayerState, j) -> PlayerState:
    """Slot ``j`` moved to the Bench or evolved: Special Conditions and Corner end."""
    return me.replace(status=set_at(me.status, j, False),
                      cant_retreat_turn=set_at(me.cant_retreat_turn, j, NEVER))


def place(me: PlayerState, slot, card, turn) -> PlayerState:
    """A Basic from outside play into empty slot ``slot``."""
    return me.replace(stack=set_in(me.stack, slot, 0, card),
                      entered_turn=set_at(me.entered_turn, slot, turn))


def first_empty_bench(me: PlayerState):
    """The lowest empty Bench slot, 4 if none."""
    free = ~occupied(me) & (jnp.arange(NUM_SLOTS) > 0)
    return jnp.where(jnp.any(free), jnp.argmax(free), NUM_SLOTS)


def push_choice(state: GameState, kind, who, energy=-1, cond=True) -> GameState:
    n = state.num_pending

    def put(arr, x):
        return set_at(arr, jnp.where(cond, n, MAX_PENDING), x)

    return state.replace(pending_kind=put(state.pending_kind, kind),
                         pending_player=put(state.pending_player, who),
                         pending_energy=put(state.pending_energy, energy), num_pending=n + cond)


def pop_choice(state: GameState) -> GameState:
    return state.replace(pending_kind=remove_at(state.pending_kind, 0),
                         pending_player=remove_at(state.pending_player, 0),
                         pending_energy=remove_at(state.pending_energy, 0),
                         num_pending=state.num_pending - 1)

# ----------------------------------------------------------------------------------- setup


def opening_deal(key, state: GameState, deck):
    """(state, hand[10], deck[20]): ``randint(#Basics)`` picks the guaranteed Basic in deck-list
    order, ``permutation(19)`` shuffles the other 19, the hand takes 4 more from the top."""
    basic = _card("is_basic", deck)
    state, r = randint_if(key, state, jnp.sum(basic))
    pick = jnp.argmax(jnp.cumsum(basic) == r + 1)
    state, perm = permutation(key, state, DECK_SIZE - 1)
    rest = gather_shuffled(remove_at(deck, pick), perm)
    hand = jnp.full(HAND_MAX, -1, I32).at[0].set(deck[pick])
    hand = hand.at[1:OPENING_HAND].set(rest[:OPENING_HAND - 1])
    new_deck = jnp.concatenate([rest[OPENING_HAND - 1:], jnp.full(OPENING_HAND - 1, -1, I32)])
    return state, hand, new_deck


def deck_arrays(deck: Deck) -> tuple[np.ndarray, np.ndarray, int]:
    """(card indices int32[20] in list order, energy types int32[3] -1 padded, #types)."""
    idx = card_index()
    types = np.full(3, -1, np.int32)
    types[:len(deck.energy)] = [int(t) for t in deck.energy]
    return np.array([idx[c.id] for c in deck.cards], np.int32), types, len(deck.energy)


def new_game(key, decks, energy_types, num_energy_types, deck_ids=(-1, -1),
             options=RuleOptions()) -> GameState:
    """A game at its first decision, as the reference's ``new_game``.

    ``decks`` int32[2, 20] (card indices in deck-list order), ``energy_types`` int32[2, 3],
    ``num_energy_types`` int32[2] (see ``deck_arrays``); ``options`` a ``RuleOptions`` (its
    values may be traced). Random calls: coin (heads: player 0 goes first), opening deal of
    player 0 then 1, each player's first Zone energy (0 then 1).
    """
    key = fast_key(key)
    base = empty_player()
    state = GameState.from_fields(
        players=jax.tree.map(jnp.asarray, stack_players(base, base)), first_player=I32(0),
        turn=I32(0), phase=I32(SETUP), setup_player=I32(0),
        pending_kind=jnp.full(MAX_PENDING, -1, I32), pending_player=jnp.full(MAX_PENDING, -1, I32),
        pending_energy=jnp.full(MAX_PENDING, -1, I32), num_pending=I32(0), winner=I32(-1),
        decisions=I32(0), rng_counter=I32(0), turn_limit=jnp.asarray(options.turn_limit, I32),
        first_turn_draw=jnp.asarray(options.first_turn_draw, jnp.bool_),
        first_turn_supporter=jnp.asarray(options.first_turn_supporter, jnp.bool_),
        deck_ids=jnp.asarray(deck_ids, I32))
    state, heads = coin_if(key, state, True)
    first = jnp.where(heads, 0, 1).astype(I32)
    for p in (0, 1):
        state, hand, deck = opening_deal(key, state, jnp.asarray(decks[p], I32))
        me = player(state, p).replace(
            hand=hand, hand_size=I32(OPENING_HAND), deck=deck,
            deck_size=I32(DECK_SIZE - OPENING_HAND), energy_types=jnp.asarray(energy_types[p], I32),
            num_energy_types=jnp.asarray(num_energy_types[p], I32))
        state = set_player(state, p, me)
    for p in (0, 1):
        me = player(state, p)
        state, r = randint_if(key, state, me.num_energy_types)
        state = set_player(state, p, me.replace(zone_next=me.energy_types[r]))
    return state.replace(first_player=first, setup_player=first)


def setup_decision(state: GameState, action) -> GameState:
    """``step`` for a SETUP decision of a game still in SETUP afterwards (the first player's
    placement, or the second player's PLAY): the flow has nothing to run."""
    return setup_step(state.replace(decisions=state.decisions + 1), action)


def setup_step(state: GameState, action) -> GameState:
    """PLAY i: a Basic to the Active Spot if empty, else the lowest empty Bench spot. END:
    the first player's placement is done, then the other's (then turn 1 starts)."""
    p = state.setup_player
    me = player(state, p)
    i = action - A.PLAY_BASE
    is_play = action != A.END
    slot = jnp.where(occupied(me)[0], first_empty_bench(me), 0)
    placed = place(me.replace(hand=remove_at(me.hand, i), hand_size=me.hand_size - 1), slot,
                   me.hand[jnp.clip(i, 0, HAND_MAX - 1)], 0)
    state = set_player(state, p, tree_select(is_play, placed, me), me)
    done_first = ~is_play & (p == state.first_player)
    return state.replace(
        setup_player=jnp.where(done_first, 1 - state.first_player, p),
        phase=jnp.where(~is_play & ~done_first, START_TURN, state.phase))

# ------------------------------------------------------------------------- legal actions


def can_pay(energy, cost):
    """Each typed symbol needs its own type; Colorless takes any energy left over (batched
    over leading axes of ``cost``)."""
    typed = jnp.arange(cost.shape[-1]) != EType.COLORLESS
    enough = jnp.all((energy >= cost) | ~typed, axis=-1)
    left = jnp.sum(energy) - jnp.sum(jnp.where(typed, cost, 0), axis=-1)
    return enough & (left >= cost[..., EType.COLORLESS])


def _immobile(me: PlayerState):
    return me.status[0, ASLEEP] | me.status[0, PARALYZED]


def retreat_cost(me: PlayerState):
    return jnp.maximum(0, _card("retreat", top_cards(me)[0]) - me.retreat_discount)


class Board(NamedTuple):
    """What the legality of playing a hand card reads, computed once per mask (``main_mask``)
    rather than for each card: the turn player's slots (0 Active, 1..3 Bench) and flags."""

    occupied: jax.Array
    """bool[4]: a Pokémon is in the slot."""
    names: jax.Array
    """int32[4]: the name of its card (the top of its stack)."""
    groups: jax.Array
    """int32[4]: its card's ``name_groups`` bits (the Trainers that name it)."""
    types: jax.Array
    """int32[4]: its type."""
    can_evolve: jax.Array
    """bool[4]: it may evolve now (in play since before this turn, and from turn 3 on)."""
    damaged: jax.Array
    """bool[4]: it has damage."""
    bench_free: jax.Array
    """bool: a Bench spot is empty."""
    opponent_bench: jax.Array
    """bool: the opponent has a Benched Pokémon."""
    no_supporter: jax.Array
    """bool: no Supporter may be played (one was this turn, or it is turn 1 and
    ``first_turn_supporter`` is off)."""


def board_of(state: GameState, p) -> Board:
    """Player ``p``'s ``Board``."""
    me, opp = player(state, p), player(state, 1 - p)
    tops = top_cards(me)
    here = occupied(me)
    return Board(occupied=here, names=_card("name", tops), groups=_card("name_groups", tops),
                 types=_card("type", tops),
                 can_evolve=(state.turn > 2) & here & (me.entered_turn != state.turn),
                 damaged=here & (me.damage > 0), bench_free=first_empty_bench(me) < NUM_SLOTS,
                 opponent_bench=jnp.any(occupied(opp)[1:]),
                 no_supporter=me.supporter_played | (
                     (state.turn == 1) & ~state.first_turn_supporter))


def trainer_ok(board: Board, card):
    """bool[4 + 1]: may Trainer ``card`` be played onto slot j (0..3) (targeted Trainers), and
    with no target (last entry; the others); its effect decides (``reference/effects.py``:
    TRAINERS)."""
    op, a, b = (_card("trainer", card)[k] for k in range(3))
    heal_ok = board.damaged & ((b == 0) | (board.types == b - 1))
    typed_ok = board.occupied & (board.types == a)
    named = board.occupied & ((board.groups >> b) & 1 == 1)  # in NAME_GROUPS[b] (NAMING_OPS)
    targeted_ok = jnp.select([op == Op.HEAL, op == Op.COIN_UNTIL_TAILS_ATTACH,
                              op == Op.ZONE_ATTACH_NAMED], [heal_ok, typed_ok, named], False)
    untargeted_ok = jnp.select(
        [op == Op.SWITCH_OPPONENT_ACTIVE, op == Op.ACTIVE_TO_HAND,
         op == Op.MOVE_BENCH_ENERGY_TO_ACTIVE,
         (op == Op.HEAL) | (op == Op.COIN_UNTIL_TAILS_ATTACH) | (op == Op.ZONE_ATTACH_NAMED)
         | (op == Op.NONE)],
        [board.opponent_bench, named[0] & jnp.any(board.occupied[1:]), named[0], False], True)
    ok = jnp.concatenate([targeted_ok, untargeted_ok[None]])
    return ok & ~(_card("is_supporter", card) & board.no_supporter)


def ability_ok(state: GameState, p):
    """bool[4]: may the ability of slot j be used now."""
    me, opp = player(state, p), player(state, 1 - p)
    tops = top_cards(me)
    ability = _card("ability", tops)
    active_typed = occupied(me)[0] & (_card("type", tops[0]) == ability[:, 1])
    is_active = (jnp.arange(NUM_SLOTS) == 0) & occupied(opp)[0]
    opp_bench = jnp.any(occupied(opp)[1:])
    op = ability[:, 0]
    cond = jnp.select([op == Op.ZONE_ATTACH_TO_ACTIVE, op == Op.POISON_IF_ACTIVE,
                       op == Op.HEAL_EACH, op == Op.SWITCH_OPPONENT_ACTIVE,
                       (op == Op.ZONE_ATTACH_SELF) | (op == Op.INFLICT_STATUS)],
                      [active_typed, is_active, jnp.any(me.damage > 0), opp_bench, True], False)
    return (occupied(me) & _card("has_ability", tops) & (me.ability_used_turn != state.turn)
            & cond)


def card_ok(card, board: Board):
    """bool[5]: may hand card ``card`` be played onto slot 0..3 (PLAY_ON: evolve, or a
    targeted Trainer), and with no target (last entry, PLAY: a Basic onto the Bench or
    another Trainer). A branch: env by env, a Pokémon card skips the Trainer checks."""
    def pokemon_ok(board, card):
        evolve = (board.can_evolve & (_card("stage", card) > 0)
                  & (_card("evolves_from", card) == board.names))
        return jnp.concatenate([evolve, (_card("is_basic", card) & board.bench_free)[None]])

    return branches.cond(_card("is_pokemon", card), pokemon_ok, trainer_ok, board, card,
                         result_shapes=jax.ShapeDtypeStruct((NUM_SLOTS + 1,), jnp.bool_))


def main_mask(state: GameState):
    p = turn_player(state)
    me = player(state, p)
    tops = top_cards(me)
    active = tops[0]
    attack_ok = (occupied(me)[0] & ~_immobile(me)
                 & (jnp.arange(A.NUM_ATTACKS) < _card("num_attacks", active))
                 & can_pay(me.energy[0], _card("attack_cost", active)))
    attach_ok = (me.zone_current >= 0) & occupied(me)
    # the cards in hand only: env by env, a loop over them (``branches.first_rows``)
    per_card = branches.first_rows(lambda i, hand, board: card_ok(hand[i], board), HAND_MAX,
                                   me.hand_size, me.hand, board_of(state, p))
    can_retreat = (~me.retreated & occupied(me)[0] & ~_immobile(me)
                   & (me.cant_retreat_turn[0] != state.turn)
                   & (jnp.sum(me.energy[0]) >= retreat_cost(me)))
    return jnp.concatenate([
        jnp.ones(1, bool), attack_ok, attach_ok, per_card[:, NUM_SLOTS],
        per_card[:, :NUM_SLOTS].reshape(-1), ability_ok(state, p),
        can_retreat & occupied(me)[1:], jnp.zeros(NUM_SLOTS, bool)])


def setup_mask(state: GameState):
    me = player(state, state.setup_player)
    has_active = occupied(me)[0]
    room = ~has_active | (first_empty_bench(me) < NUM_SLOTS)
    play = (jnp.arange(HAND_MAX) < me.hand_size) & _card("is_basic", me.hand) & room
    mask = jnp.zeros(A.NUM_ACTIONS, bool).at[A.END].set(has_active)
    return mask.at[A.PLAY_BASE:A.PLAY_ON_BASE].set(play)


def choice_mask(state: GameState):
    me = player(state, state.pending_player[0])
    ok = occupied(me) & (jnp.arange(NUM_SLOTS) > 0)
    ok &= (state.pending_kind[0] != ATTACH_BENCH) | (
        _card("type", top_cards(me)) == state.pending_energy[0])
    return jnp.zeros(A.NUM_ACTIONS, bool).at[A.CHOOSE_BASE:].set(ok)


def legal_action_mask(state: GameState):
    """bool[NUM_ACTIONS]: the current player's legal actions (all False once over)."""
    kind = jnp.where(state.num_pending > 0, 0, jnp.where(state.phase == SETUP, 1, 2))
    mask = branches.switch(kind, (choice_mask, setup_mask, main_mask), state,
                           result_shapes=jax.ShapeDtypeStruct((A.NUM_ACTIONS,), jnp.bool_))
    return mask & (state.phase != OVER)

# ---------------------------------------------------------------------------- main actions


def resolve_choice(state: GameState, slot) -> GameState:
    """Answer the first pending choice with slot ``slot``."""
    kind, who, energy = state.pending_kind[0], state.pending_player[0], state.pending_energy[0]
    state = pop_choice(state)
    me = player(state, who)

    def promote(me, slot, energy):
        return clear_slot(swap_slots(me, 0, slot), slot)

    def switch_in(me, slot, energy):
        return leave_active(swap_slots(me, 0, slot), slot)

    def attach(me, slot, energy):
        return me.replace(energy=add_at(me.energy, slot, jnp.maximum(energy, 0), 1))

    which = jnp.where(kind == PROMOTE, 0, jnp.where(kind == SWITCH_IN, 1, 2))
    new = branches.switch_in_place(which, (promote, switch_in, attach), me, slot, energy)
    return set_player(state, who, new, me)


def attach_energy(state: GameState, slot) -> GameState:
    p = turn_player(state)
    return update(state, p, lambda me: me.replace(
        energy=add_at(me.energy, slot, me.zone_current, 1), zone_current=I32(-1)))


def _draw_n(me: PlayerState, n, most: int) -> PlayerState:
    """``n`` (at most ``most``) draws at once: each draw stops at an empty deck or a full hand,
    so they take the top ``m`` cards, ``m = min(n, deck size, room in hand)``."""
    m = jnp.clip(jnp.minimum(jnp.minimum(n, me.deck_size), HAND_MAX - me.hand_size), 0, most)
    deck = jnp.select([m == k for k in range(1, most + 1)],
                      [shift(me.deck, k) for k in range(1, most + 1)], me.deck)
    taken = jnp.arange(HAND_MAX) - me.hand_size  # which drawn card lands at each hand entry
    hand = jnp.select([(taken == k) & (k < m) for k in range(most)],
                      [jnp.broadcast_to(me.deck[k], (HAND_MAX,)) for k in range(most)], me.hand)
    return me.replace(hand=hand, hand_size=me.hand_size + m, deck=deck,
                      deck_size=me.deck_size - m)


class Played(NamedTuple):
    """What a Trainer's effect reads besides the state (``trainer_effect``)."""

    key: jax.Array
    p: jax.Array
    """The player who played it."""
    slot: jax.Array
    """Its target slot (0 for an untargeted Trainer)."""
    a: jax.Array
    """The effect's first argument."""
    b: jax.Array
    """Its second."""
    op: jax.Array
    live: jax.Array
    """The effect is really played (``trainer_effect``)."""


def trainer_effect(key, state: GameState, p, slot, effect, live=True) -> GameState:
    """The Trainer's effect (``reference/effects.py``, TRAINERS), by opcode, one branch per
    opcode (``branches.switch_in_place``). ``live``: the effect is really played (False where
    ``step``'s result ignores it: under ``vmap`` every branch runs, and the coin loop then
    need not). ``Op.NONE`` (a Pokémon card played) runs none of them (``branches.when``):
    env by env, one loop entered rather than the switch's one per opcode."""
    played = Played(key, jnp.asarray(p, I32), jnp.asarray(slot, I32), effect[1], effect[2],
                    effect[0], jnp.asarray(live))

    def by_opcode(s, t):
        return branches.switch_in_place(jnp.asarray(_TRAINER_BRANCH)[t.op],
                                        tuple(_TRAINER_EFFECTS.values()), s, t)

    return branches.when(effect[0] != Op.NONE, by_opcode, state, played)


def _on_me(fn):
    """A Trainer effect that changes only its player's fields: ``fn(me, a)``."""
    return lambda s, t: update(s, t.p, lambda me: fn(me, t.a))


def _switch_opponent(s: GameState, t: Played) -> GameState:
    return push_choice(s, SWITCH_IN, 1 - t.p)


def _heal(s: GameState, t: Played) -> GameState:
    return update(s, t.p, lambda me: me.replace(damage=set_at(
        me.damage, t.slot, jnp.maximum(0, get_at(me.damage, t.slot) - t.a))))


def _active_to_hand(s: GameState, t: Played) -> GameState:
    def to_hand(me):
        for c in me.stack[0][::-1]:
            me = take_into_hand(me, c, c >= 0)
        return clear_slot(me, 0)

    return push_choice(update(s, t.p, to_hand), PROMOTE, t.p)


def heads_until_tails(key, state: GameState, needed, loop=True):
    """Coins until the first tails if ``needed`` (counted only then): (state, heads). The
    first 8 coins in one draw; a loop only after 8 heads, and only if ``loop`` (False where
    the result is ignored: under ``vmap`` the loop runs while any env needs it)."""
    first = flips(key, state, 8, needed)
    run = jnp.where(jnp.all(first), 8, jnp.argmin(first)).astype(I32)

    def flip(carry):  # the loop carries only the counter and the heads, not the state
        k, heads, _ = carry
        coin = jax.random.bernoulli(jax.random.fold_in(key, k), 0.5)
        return k + 1, heads + coin, coin

    k, heads, _ = jax.lax.while_loop(lambda c: c[2], flip,
                                     (state.rng_counter + jnp.minimum(run + 1, 8), run,
                                      loop & needed & (run == 8)))
    return state.replace(rng_counter=jnp.where(needed, k, state.rng_counter)), heads


def _coin_until_tails(s: GameState, t: Played) -> GameState:
    s, heads = heads_until_tails(t.key, s, True, t.live & (t.op == Op.COIN_UNTIL_TAILS_ATTACH))
    return update(s, t.p, lambda me: me.replace(energy=add_at(me.energy, t.slot, t.a, heads)))


def deck_pokemon(me: PlayerState, etype, basic):
    """bool[20]: the deck's Pokémon of type ``etype - 1`` (``etype`` 0: any type), only the
    Basic ones if ``basic`` (RANDOM_POKEMON_TO_HAND's arguments)."""
    deck = me.deck
    return ((jnp.arange(DECK_SIZE) < me.deck_size) & _card("is_pokemon", deck)
            & ((etype == 0) | (_card("type", deck) == etype - 1))
            & (_card("is_basic", deck) | (basic == 0)))


def take_from_deck(me: PlayerState, fits, r, cond) -> PlayerState:
    """If ``cond``: the ``r``-th (from 0, in deck order) card that ``fits`` goes to the hand."""
    pos = jnp.argmax(jnp.cumsum(fits) == r + 1)
    taken = take_into_hand(me.replace(deck=remove_at(me.deck, pos),
                                      deck_size=me.deck_size - 1), me.deck[pos])
    return tree_select(cond, taken, me)


def _random_pokemon(s: GameState, t: Played) -> GameState:
    me = player(s, t.p)
    fits = deck_pokemon(me, t.a, t.b)
    n = jnp.sum(fits)
    s, r = randint_if(t.key, s, n, n > 0)
    return set_player(s, t.p, take_from_deck(me, fits, r, n > 0), me)


def _shuffle_draw(s: GameState, t: Played) -> GameState:
    opp = base = player(s, 1 - t.p)
    i = jnp.arange(DECK_SIZE)
    from_hand = opp.hand[jnp.clip(i - opp.deck_size, 0, HAND_MAX - 1)]
    both = jnp.where(i < opp.deck_size, opp.deck,
                     jnp.where(i < opp.deck_size + opp.hand_size, from_hand, -1))
    n = opp.deck_size + opp.hand_size
    s, perm = permutation(t.key, s, n)
    opp = opp.replace(deck=gather_shuffled(both, perm), deck_size=n,
                      hand=jnp.full(HAND_MAX, -1, I32), hand_size=I32(0))
    opp = _draw_n(opp, t.a, _max_arg(Op.OPPONENT_SHUFFLE_DRAW, 0))
    return set_player(s, 1 - t.p, opp, base)


def _move_bench_energy(s: GameState, t: Played) -> GameState:
    """Every energy of type ``a`` on the Bench moves to the Active."""
    def move(me):
        column = me.energy[:, t.a]
        on_bench = jnp.sum(column[1:])
        moved = jnp.where(jnp.arange(NUM_SLOTS) == 0, column[0] + on_bench, 0)
        return me.replace(energy=jnp.where(jnp.arange(me.energy.shape[1]) == t.a,
                                           moved[:, None], me.energy))

    return update(s, t.p, move)


#: ``trainer_effect``'s branches by opcode (``Op.NONE`` has none).
_TRAINER_EFFECTS = {
    Op.DRAW: _on_me(lambda me, a: _draw_n(me, a, _max_arg(Op.DRAW, 0))),
    Op.SWITCH_OPPONENT_ACTIVE: _switch_opponent,
    Op.ACTIVE_DAMAGE_BONUS: _on_me(
        lambda me, a: me.replace(active_damage_bonus=me.active_damage_bonus + a)),
    Op.HEAL: _heal,
    Op.ACTIVE_TO_HAND: _active_to_hand,
    Op.COIN_UNTIL_TAILS_ATTACH: _coin_until_tails,
    Op.RANDOM_POKEMON_TO_HAND: _random_pokemon,
    Op.RETREAT_DISCOUNT: _on_me(
        lambda me, a: me.replace(retreat_discount=me.retreat_discount + a)),
    Op.OPPONENT_SHUFFLE_DRAW: _shuffle_draw,
    Op.MOVE_BENCH_ENERGY_TO_ACTIVE: _move_bench_energy,
    Op.ZONE_ATTACH_NAMED: lambda s, t: update(
        s, t.p, lambda me: me.replace(energy=add_at(me.energy, t.slot, t.a, 1))),
}
#: Opcode -> its branch's index in ``_TRAINER_EFFECTS`` (0 for the opcodes of no Trainer).
_TRAINER_BRANCH = np.array([list(_TRAINER_EFFECTS).index(op) if op in _TRAINER_EFFECTS else 0
                            for op in Op], np.int32)


def play_card(key, state: GameState, index, slot, live=True) -> GameState:
    """Hand card ``index`` (PLAY: ``slot`` -1; PLAY_ON: slot): a Basic to the first empty
    Bench spot, an evolution onto ``slot``, or a Trainer (then its effect; ``live``: see
    ``trainer_effect``)."""
    p = turn_player(state)
    me = base = player(state, p)
    card = get_at(me.hand, index)
    me = me.replace(hand=remove_at(me.hand, index), hand_size=me.hand_size - 1)
    target = jnp.maximum(slot, 0)

    def bench(me, card, target, turn):
        return place(me, first_empty_bench(me), card, turn)

    def evolve(me, card, target, turn):
        evolved = leave_active(me, target)
        depth = jnp.sum(get_at(me.stack, target) >= 0)
        return evolved.replace(
            stack=set_in(evolved.stack, target, jnp.minimum(depth, 2), card),
            entered_turn=set_at(evolved.entered_turn, target, turn),
            ability_used_turn=set_at(evolved.ability_used_turn, target, NEVER))

    def trainer(me, card, target, turn):
        discard, discard_size = append(me.discard, me.discard_size, card)
        return me.replace(discard=discard, discard_size=discard_size,
                          supporter_played=me.supporter_played | _card("is_supporter", card))

    is_pokemon = _card("is_pokemon", card)
    which = jnp.where(is_pokemon, jnp.where(slot < 0, 0, 1), 2)
    me = branches.switch_in_place(which, (bench, evolve, trainer), me, card, target,
                                  state.turn)
    state = set_player(state, p, me, base)
    effect = jnp.where(is_pokemon, 0, _card("trainer", card))
    return trainer_effect(key, state, p, target, effect, live)


def use_ability(key, state: GameState, slot) -> GameState:
    """The ability of slot ``slot`` (``reference/effects.py``, ABILITIES)."""
    p = turn_player(state)
    me = base = player(state, p)
    op, a, b = (_card("ability", top_cards(me)[slot])[k] for k in range(3))
    me = me.replace(ability_used_turn=set_at(me.ability_used_turn, slot, state.turn))
    target = jnp.where(op == Op.ZONE_ATTACH_SELF, slot, 0)
    attach = (op == Op.ZONE_ATTACH_TO_ACTIVE) | (op == Op.ZONE_ATTACH_SELF)
    me = me.replace(
        energy=jnp.where(attach, add_at(me.energy, target, a, 1), me.energy),
        damage=jnp.where(op == Op.HEAL_EACH, jnp.maximum(0, me.damage - a), me.damage))
    state = set_player(state, p, me, base)
    state, heads = coin_if(key, state, (op == Op.INFLICT_STATUS) & (b == 1))
    opp = player(state, 1 - p)
    condition = jnp.where(op == Op.POISON_IF_ACTIVE, POISONED, a)
    inflict = (op == Op.POISON_IF_ACTIVE) | ((op == Op.INFLICT_STATUS) & ((b == 0) | heads))
    status = jnp.where(inflict, opp.status.at[0].set(with_status(opp.status[0], condition)),
                       opp.status)
    state = set_player(state, 1 - p, opp.replace(status=status), opp)
    return push_choice(state, SWITCH_IN, 1 - p, cond=op == Op.SWITCH_OPPONENT_ACTIVE)


def retreat(state: GameState, bench_slot) -> GameState:
    """Discard the cost, lowest EType first; swap with Bench ``bench_slot``."""
    p = turn_player(state)
    me = base = player(state, p)
    energy = me.energy[0]
    before = jnp.cumsum(energy) - energy
    paid = jnp.clip(retreat_cost(me) - before, 0, energy)
    me = me.replace(energy=me.energy.at[0].set(energy - paid), retreated=jnp.bool_(True))
    me = leave_active(swap_slots(me, 0, bench_slot), bench_slot)
    return set_player(state, p, me, base)


def extra_energy(energy, cost, etype):
    """Energy of ``etype`` left after paying ``cost``, Colorless paid by other types first."""
    other_cost = jnp.sum(jnp.where((jnp.arange(cost.shape[0]) != etype)
                                   & (jnp.arange(cost.shape[0]) != EType.COLORLESS), cost, 0))
    other = jnp.sum(energy) - energy[etype] - other_cost
    return energy[etype] - cost[etype] - jnp.maximum(0, cost[EType.COLORLESS] - other)


def attack_effect(key, state: GameState, p, k):
    """(state, base damage): the attack's effect (``reference/effects.py``, ATTACKS)."""
    active = top_cards(player(state, p))[0]
    damage = _card("attack_damage", active)[k]
    effect = _card("attack_effect", active)[k]
    op, a, b, c = effect[0], effect[1], effect[2], effect[3]
    by_coin = (op == Op.DISCARD_DEFENDER_ENERGY) | (op == Op.DISCARD_OPPONENT_HAND)
    n_coins = jnp.select([op == Op.COIN_OR_NOTHING,
                          (op == Op.COINS_ZONE_ATTACH_BENCH) | (op == Op.COINS_DAMAGE) | by_coin,
                          (op == Op.COIN_BONUS) | (op == Op.INFLICT_STATUS)
                          | (op == Op.HEAL_SELF)], [1, a, b], 0)
    state, heads = coins(key, state, n_coins)
    state, run = heads_until_tails(key, state, op == Op.COIN_UNTIL_TAILS_DAMAGE)
    me, opp = player(state, p), player(state, 1 - p)
    held = opp.energy[0]  # the opponent's Active's energy, by type
    fits = deck_pokemon(me, a, b)
    # at most one randint: the energy, the hand card or the deck card it picks
    n_pick = jnp.select([op == Op.DISCARD_DEFENDER_ENERGY, op == Op.DISCARD_OPPONENT_HAND],
                        [jnp.sum(held), opp.hand_size], jnp.sum(fits))
    pick = (((by_coin & (heads >= a)) | (op == Op.RANDOM_POKEMON_TO_HAND)) & (n_pick > 0))
    state, unit = randint_if(key, state, n_pick, pick)
    me, opp = base_me, base_opp = player(state, p), player(state, 1 - p)
    bench = occupied(me) & (jnp.arange(NUM_SLOTS) > 0)
    bench_of_type = bench & ((_card("type", top_cards(me)) == b) | (c == 1))  # c: any type
    opp_bench = occupied(opp) & (jnp.arange(NUM_SLOTS) > 0)
    cost = _card("attack_cost", active)[k]
    extra = extra_energy(me.energy[0], cost, a)
    evolved_now = (_card("stage", active) > 0) & (me.entered_turn[0] == state.turn)
    condition_holds = jnp.stack([me.damage[0] > 0, opp.damage[0] > 0,
                                 opp.status[0, POISONED],
                                 _card("stage", top_cards(opp)[0]) > 0, evolved_now,
                                 False])  # BONUS_CONDITIONS; no Tool card exists
    base = jnp.select(
        [op == Op.EXTRA_ENERGY_BONUS, op == Op.COIN_BONUS, op == Op.DAMAGE_PER_OWN_BENCH,
         op == Op.COINS_DAMAGE, op == Op.COIN_OR_NOTHING, op == Op.CONDITIONAL_BONUS,
         op == Op.BONUS_PER_DEFENDER_ENERGY, op == Op.COIN_UNTIL_TAILS_DAMAGE],
        [damage + jnp.where(extra >= b, c, 0), damage + jnp.where(heads == b, a, 0),
         a * jnp.sum(bench_of_type), b * heads, jnp.where(heads > 0, damage, 0),
         damage + jnp.where(condition_holds[jnp.clip(a, 0, len(BONUS_CONDITIONS) - 1)], b, 0),
         damage + a * jnp.sum(opp.energy[0]), a * run + jnp.where(b == 1, damage, 0)],
        damage)
    inflict = (op == Op.INFLICT_STATUS) & (heads >= b)
    me = _draw_n(me, jnp.where(op == Op.DRAW, a, 0), _max_arg(Op.DRAW, 0))
    kept = jnp.where(c == 1, 0, me.energy[0])  # DISCARD_OWN_ENERGY's ``all``
    me = me.replace(
        energy=jnp.select([op == Op.DISCARD_OWN_ENERGY, op == Op.ZONE_ATTACH_SELF],
                          [me.energy.at[0].set(kept.at[a].add(-jnp.minimum(b, kept[a]))),
                           me.energy.at[0, a].add(1)], me.energy),
        damage=jnp.select([(op == Op.HEAL_SELF) & (heads >= b), op == Op.SELF_DAMAGE,
                           (op == Op.COIN_BONUS) & (heads < b)],
                          [me.damage.at[0].set(jnp.maximum(0, me.damage[0] - a)),
                           me.damage.at[0].add(a), me.damage.at[0].add(c)], me.damage),
        status=jnp.where(inflict & (c == 1), me.status.at[0].set(with_status(me.status[0], a)),
                         me.status))
    stripped = jnp.sum(jnp.cumsum(held) <= unit)  # the type of the energy ``unit`` picks
    strip = (op == Op.DISCARD_DEFENDER_ENERGY) & pick
    opp = opp.replace(
        energy=jnp.where(strip, opp.energy.at[0, stripped].add(-1), opp.energy),
        cant_retreat_turn=jnp.where(op == Op.DEFENDER_CANT_RETREAT,
                                    opp.cant_retreat_turn.at[0].set(state.turn + 1),
                                    opp.cant_retreat_turn),
        damage=jnp.where((op == Op.OPPONENT_BENCH_DAMAGE) & opp_bench, opp.damage + a,
                         opp.damage),
        status=jnp.where(inflict & (c == 0),
                         opp.status.at[0].set(with_status(opp.status[0], a)), opp.status))
    moves = ((op == Op.RANDOM_POKEMON_TO_HAND) | (op == Op.DISCARD_OPPONENT_HAND)
             | (op == Op.DISCARD_DECK_TOPS))
    me, opp = branches.rarely(moves, _moved_cards, (me, opp), op, a, fits, unit, pick)
    state = set_player(set_player(state, p, me, base_me), 1 - p, opp, base_opp)
    dance = (op == Op.COINS_ZONE_ATTACH_BENCH) & jnp.any(bench_of_type)
    for i in range(MAX_PENDING):
        state = push_choice(state, ATTACH_BENCH, p, b, dance & (i < heads))
    return state, base


def _moved_cards(players, op, a, fits, unit, pick):
    """The cards RANDOM_POKEMON_TO_HAND, DISCARD_OPPONENT_HAND and DISCARD_DECK_TOPS move
    between decks, hands and discard piles: (attacker, opponent). Few attacks move any, so
    ``attack_effect`` runs this only for them (``branches.rarely``)."""
    me, opp = players
    me = take_from_deck(me, fits, unit, (op == Op.RANDOM_POKEMON_TO_HAND) & pick)
    opp = _discard_hand_card(opp, unit, (op == Op.DISCARD_OPPONENT_HAND) & pick)
    tops = jnp.where(op == Op.DISCARD_DECK_TOPS, a, 0)
    return tuple(_discard_deck_tops(x, tops, _max_arg(Op.DISCARD_DECK_TOPS, 0))
                 for x in (me, opp))


def _discard_hand_card(me: PlayerState, i, cond) -> PlayerState:
    """If ``cond``: hand card ``i`` goes to the discard pile."""
    discard, discard_size = append(me.discard, me.discard_size, get_at(me.hand, i), cond)
    return me.replace(hand=jnp.where(cond, remove_at(me.hand, i), me.hand),
                      hand_size=me.hand_size - cond, discard=discard, discard_size=discard_size)


def _discard_deck_tops(me: PlayerState, n, most: int) -> PlayerState:
    """The top ``n`` (at most ``most``) cards of the deck, all if fewer, to the discard pile."""
    m = jnp.minimum(n, me.deck_size)
    discard, discard_size = me.discard, me.discard_size
    for k in range(most):
        discard, discard_size = append(discard, discard_size, me.deck[k], k < m)
    deck = jnp.select([m == k for k in range(1, most + 1)],
                      [shift(me.deck, k) for k in range(1, most + 1)], me.deck)
    return me.replace(deck=deck, deck_size=me.deck_size - m, discard=discard,
                      discard_size=discard_size)


def with_status(flags, condition):
    """A Pokémon's status ``flags`` with ``condition`` added: Asleep, Paralyzed and Confused
    replace one another (``reference/state.py``, ``add_status``)."""
    exclusive = jnp.arange(flags.shape[0]) >= ASLEEP
    return jnp.where((condition >= ASLEEP) & exclusive, False, flags).at[condition].set(True)


def attack(key, state: GameState, k) -> GameState:
    """Confused flips first (tails: nothing happens); the effect gives the base damage; if the
    attack prints damage and the base is > 0, Giovanni's bonus and weakness are added."""
    p = turn_player(state)
    state = state.replace(phase=I32(AFTER_ATTACK))
    attacker = top_cards(player(state, p))[0]
    confused = player(state, p).status[0, CONFUSED]
    state, heads = coin_if(key, state, confused)
    hit, base = attack_effect(key, state, p, k)
    opp = player(hit, 1 - p)
    defender = top_cards(opp)[0]
    amount = (base + player(hit, p).active_damage_bonus
              + jnp.where(_card("weakness", defender) == _card("type", attacker),
                          WEAKNESS_BONUS, 0))
    lands = _card("attack_does_damage", attacker)[k] & (base > 0)
    hit = set_player(hit, 1 - p, opp.replace(damage=opp.damage.at[0].add(
        jnp.where(lands, amount, 0))), opp)
    return tree_select(~confused | heads, hit, state)

# --------------------------------------------------------------------------------- the flow


def finish(state: GameState, winner, cond) -> GameState:
    over = state.replace(phase=I32(OVER), winner=jnp.asarray(winner, I32),
                         pending_kind=jnp.full(MAX_PENDING, -1, I32),
                         pending_player=jnp.full(MAX_PENDING, -1, I32),
                         pending_energy=jnp.full(MAX_PENDING, -1, I32), num_pending=I32(0))
    return tree_select(cond, over, state)


def resolve_knockouts(state: GameState) -> GameState:
    """Knock out every Pokémon with damage >= HP: its cards go to its owner's discard pile (slot
    order, Basic first), the opponent scores 1 (2 for an ex). Then the win check, else the
    promotions, the turn player's opponent first. (Both players at once: only the promotions'
    order depends on whose turn it is.) Most calls find nothing to do (no knock-out, both
    Actives in place: then no win and no promotion either), so the work is behind a branch
    (``branches.when``), which a step run env by env skips."""
    pl = state.players
    out = occupied(pl) & (pl.damage >= _card("hp", top_cards(pl)))
    return branches.when(jnp.any(out) | ~jnp.all(occupied(pl)[:, 0]), _knock_out, state, out)


def _knock_out(state: GameState, out) -> GameState:
    """``resolve_knockouts`` of the Pokémon ``out`` (bool[2, 4])."""
    pl = state.players
    tops = top_cards(pl)
    cards = pl.stack.reshape(2, -1)
    goes = jnp.repeat(out, STACK_SIZE, axis=1) & (cards >= 0)
    pos = jnp.where(goes, pl.discard_size[:, None] + jnp.cumsum(goes, axis=1) - 1, DECK_SIZE)
    discard = jax.vmap(lambda d, i, c: d.at[i].set(c, mode="drop"))(pl.discard, pos, cards)
    scored = jnp.sum(jnp.where(out, jnp.where(_card("is_ex", tops), 2, 1), 0), axis=1)

    def clear(field):
        x, empty = getattr(pl, field), getattr(_EMPTY, field)[0]
        return jnp.where(out.reshape(out.shape + (1,) * (x.ndim - 2)), empty, x)

    pl = pl.replace(discard=discard, discard_size=pl.discard_size + jnp.sum(goes, axis=1),
                    points=pl.points + scored[::-1], **{f: clear(f) for f in SLOT_FIELDS})
    state = state.replace(players=pl)
    alive = jnp.any(occupied(pl), axis=1)
    wins = (pl.points >= WIN_POINTS) | ~alive[::-1]
    both, either = wins[0] & wins[1], wins[0] | wins[1]
    tp = turn_player(state)
    for q in (1 - tp, tp):
        state = push_choice(state, PROMOTE, q, -1, ~either & ~occupied(pl)[q, 0])
    # both at once: the one player with a Pokémon left wins, else a draw
    winner = jnp.where(both, jnp.where(alive[0] != alive[1], jnp.argmax(alive), -1),
                       jnp.argmax(wins))
    return finish(state, winner, either)


def checkup(key, state: GameState) -> GameState:
    """The ended turn's player's Active, then the other's: Poisoned 10; Burned 20 then a coin
    (heads cures); Asleep a coin (heads wakes); Paralyzed cured if its owner's turn ended.
    Only an Active with one of these four has anything done (a branch, ``branches.when``)."""
    affected = jnp.any(state.players.status[:, 0, :CONFUSED])
    return branches.when(affected, _checkup, state, key)


def _checkup(state: GameState, key) -> GameState:
    """``checkup``."""
    ended = turn_player(state)
    actives = [player(state, q).status[0] & occupied(player(state, q))[0]
               for q in (ended, 1 - ended)]
    state, heads = coins_if(key, state, [st[c] for st in actives for c in (BURNED, ASLEEP)])
    for i, q in enumerate((ended, 1 - ended)):
        me = player(state, q)
        here = occupied(me)[0]
        st = actives[i]
        damage = me.damage[0] + 10 * st[POISONED] + 20 * st[BURNED]
        cured, woke = heads[2 * i], heads[2 * i + 1]
        status = me.status[0].at[BURNED].set(st[BURNED] & ~cured)
        status = status.at[ASLEEP].set(st[ASLEEP] & ~woke)
        status = status.at[PARALYZED].set(me.status[0, PARALYZED] & (q != ended))
        status = jnp.where(here, status, me.status[0])
        state = set_player(state, q, me.replace(damage=me.damage.at[0].set(damage),
                                                status=me.status.at[0].set(status)), me)
    return state


def end_turn(key, state: GameState) -> GameState:
    """Unused energy and this turn's effects end; checkup; knock-outs; the turn limit."""
    p = turn_player(state)
    state = update(state, p, lambda me: me.replace(
        zone_current=I32(-1), supporter_played=jnp.bool_(False), retreated=jnp.bool_(False),
        active_damage_bonus=I32(0), retreat_discount=I32(0)))
    state = resolve_knockouts(checkup(key, state))
    running = state.phase != OVER
    state = finish(state, -1, running & (state.turn >= state.turn_limit))
    return state.replace(phase=jnp.where(state.phase == OVER, state.phase, START_TURN))


def start_turn(key, state: GameState) -> GameState:
    """Next turn: the Energy Zone moves on (not on turn 1), then draw 1 (on turn 1 only if
    ``first_turn_draw``)."""
    state = state.replace(turn=state.turn + 1)
    p = turn_player(state)
    me = base = player(state, p)
    moves = state.turn > 1
    state, r = randint_if(key, state, me.num_energy_types, moves)
    me = me.replace(zone_current=jnp.where(moves, me.zone_next, me.zone_current),
                    zone_next=jnp.where(moves, me.energy_types[r], me.zone_next))
    return set_player(state, p, draw(me, moves | state.first_turn_draw), base).replace(
        phase=I32(MAIN))


def advance(key, state: GameState) -> GameState:
    """Run the automatic parts until a decision is due or the game is over (each stage at
    most once: after an attack, the end of the turn, the start of the next). ``step``'s
    action and the first two stages end in ``materialize``, so each later stage reads its
    input from buffers rather than recomputing it."""
    def due(s, phase):
        return (s.phase == phase) & (s.num_pending == 0)

    def after_attack(s):
        s = resolve_knockouts(s)
        return s.replace(phase=jnp.where(s.phase == OVER, s.phase, END_TURN))

    state = materialize(branches.when(due(state, AFTER_ATTACK), after_attack, state))
    state = materialize(branches.when(due(state, END_TURN), lambda s, k: end_turn(k, s), state,
                                      key))
    return branches.when(due(state, START_TURN), lambda s, k: start_turn(k, s), state, key)


ACTION_KIND = np.array([("end", "attack", "attach", "play", "play_on", "ability", "retreat",
                         "choose").index(A.decode(a).kind) for a in range(A.NUM_ACTIONS)])
ACTION_INDEX = np.array([A.decode(a).index for a in range(A.NUM_ACTIONS)])
ACTION_SLOT = np.array([A.decode(a).slot for a in range(A.NUM_ACTIONS)])


#: ``step``'s branch for each action: PLAY and PLAY_ON share one (``play_card``), so the
#: compiled step holds one copy of it (under ``vmap`` every branch runs, so also half the work).
ACTION_BRANCH = np.array([0, 1, 2, 3, 3, 4, 5, 6])[ACTION_KIND]
CHOICE_BRANCH, SETUP_BRANCH = 6, 7


class Move(NamedTuple):
    """What ``step``'s branches read besides the state."""

    key: jax.Array
    index: jax.Array
    """The action's hand card or attack (``ACTION_INDEX``)."""
    slot: jax.Array
    """Its slot (``ACTION_SLOT``)."""
    action: jax.Array
    live: jax.Array
    """The action is ``play_card``'s (PLAY or PLAY_ON): a Trainer's effect is really played
    (``trainer_effect``)."""


#: ``step``'s branches (``ACTION_BRANCH``, then ``CHOICE_BRANCH`` and ``SETUP_BRANCH``).
_ACTIONS = (
    lambda s, m: s.replace(phase=I32(END_TURN)),
    lambda s, m: attack(m.key, s, m.index),
    lambda s, m: attach_energy(s, m.slot),
    lambda s, m: play_card(m.key, s, m.index, m.slot, m.live),
    lambda s, m: use_ability(m.key, s, m.slot),
    lambda s, m: retreat(s, m.slot),
    lambda s, m: resolve_choice(s, m.slot),
    lambda s, m: setup_step(s, m.action),
)


def step(state: GameState, action, key) -> GameState:
    """Apply the current player's legal ``action`` and run on to the next decision. The
    action's rule is a branch of ``branches.switch_in_place``: env by env, it updates the state
    in place, where a ``lax.switch`` copied every leaf the rule leaves alone. The result is
    materialized (``materialize``): the legal-action mask, read from it next, would otherwise
    recompute the step's last selects for each of its entries under ``vmap``."""
    key = fast_key(key)
    action = jnp.asarray(action, I32)
    state = state.replace(decisions=state.decisions + 1)
    index = jnp.asarray(ACTION_INDEX)[action]
    slot = jnp.asarray(ACTION_SLOT)[action]
    branch = jnp.where(state.num_pending > 0, CHOICE_BRANCH,
                       jnp.where(state.phase == SETUP, SETUP_BRANCH,
                                 jnp.asarray(ACTION_BRANCH)[action]))
    move = Move(key, index, slot, action, branch == 3)
    state = branches.switch_in_place(branch, _ACTIONS, state, move)
    return materialize(advance(key, materialize(state)))
