"""The JAX engine against the reference engine (``lockstep``): the random stream, one step from
many reference positions (L2), and whole games in lock-step (L3).

Tolerance: none. States are compared field for field (L2) or through a 64-bit digest of every
field, the legal-action mask and the rewards after every decision (L3; ``lockstep``), and any
difference fails with the first-divergence report.
"""

import itertools
import random

import jax
import jax.numpy as jnp
import numpy as np
import pytest


from jaxenvs._src.cpu_kernels.threefry import fast_key
from jaxenvs.tcgjax import actions as A
from jaxenvs.tcgjax._src import engine
from jaxenvs.tcgjax._src.state import OVER
from jaxenvs.tcgjax._src.tables import NUM_CARDS, card_arrays
from jaxenvs.tcgjax.cards import card_table, meta_decks, random_deck, sample_decks
from jaxenvs.tcgjax.constants import TURN_LIMIT, RuleOptions
from jaxenvs.tcgjax.reference import (RandomPolicy, Status, action_mask, convert, lockstep,
                                      new_game, rules, step)
from jaxenvs.tcgjax.effects import NAME_GROUPS, NAMING_OPS, EType, normalize_text
from jaxenvs.tcgjax.reference.positions import SYMBOL_TYPES, player, pokemon, position
from jaxenvs.tcgjax.reference.state import game_from_dict
from jaxenvs.tcgjax.rng import JaxKeyRandomSource, PythonRandomSource, ScriptedRandomSource

#: One batch size for every batched call here, so all share one compiled program.
BATCH = 540
DECKS = sample_decks()
PIKACHU_EX, CHARMANDER, VOLTORB, ELECTRODE, MEWTWO_EX, SNORLAX = (
    "A1-096", "A1-033", "A1-099", "A1-100", "A1-129", "A1-211")
BULBASAUR, POTION, SQUIRTLE = "A1-001", "P-A-001", "A1-053"


def test_precomputed_source_is_the_jax_stream():
    for seed in (0, 12345):
        fast, slow = lockstep.sources([seed])[0], JaxKeyRandomSource(seed)
        fast.counter = slow.counter = lockstep.PRECOMPUTED_CALLS - 8  # crosses the table's end
        rnd = random.Random(seed)
        for _ in range(16):
            kind = rnd.choice(("coin", "randint", "permutation"))
            args = () if kind == "coin" else (rnd.randint(1, 20),)
            assert getattr(fast, kind)(*args) == getattr(slow, kind)(*args)
        assert fast.counter == slow.counter


def test_permutation_is_the_jax_stream():
    """The engine's sort-free ``permutation(n)`` is ``rng.py``'s definition (the entries < n of
    ``jax.random.permutation(sub, 20)``, in order), for 5,000 keys and every n."""
    decks = [engine.deck_arrays(DECKS[name]) for name in sorted(DECKS)[:2]]
    start = jax.jit(engine.new_game)(jax.random.key(0), *(np.stack(x) for x in zip(*decks)))

    @jax.jit
    def agree(seeds):
        def one(seed):
            key = jax.random.key(seed)
            state = start.replace(rng_counter=(seed % 97).astype(jnp.int32))
            sub = jax.random.fold_in(key, seed % 97)
            n = seed % 21
            want = jax.random.permutation(sub, 20)
            want = want[jnp.argsort(jnp.where(want < n, 0, 1), stable=True)]
            got = engine.permutation(fast_key(key), state, n)[1]
            return jnp.all(got == jnp.where(jnp.arange(20) < n, want, -1))
        return jax.vmap(one)(seeds)

    assert bool(np.all(agree(jnp.arange(5_000, dtype=jnp.uint32))))


def test_stable_order_breaks_ties_by_index():
    """``stable_order`` is a stable argsort of the first n keys (ties, which 32-bit random keys
    almost never have, forced here with keys in 0..3)."""
    rnd = np.random.default_rng(0)
    for _ in range(200):
        keys = rnd.integers(0, 4, 20).astype(np.uint32)
        n = int(rnd.integers(0, 21))
        want = np.full(20, -1)
        want[:n] = np.argsort(keys[:n], kind="stable")
        assert np.array_equal(engine.stable_order(jnp.asarray(keys), n), want)


def test_card_facts_are_read_for_every_card_and_minus_one_reads_card_0():
    """``engine._card`` (tables padded to a power of two, read without bounds checks) gives
    every fact of every card, and for -1 (an empty entry) card 0's, as the plain table does."""
    tables = card_arrays()
    idx = np.arange(-1, NUM_CARDS)
    for field in tables._fields:
        np.testing.assert_array_equal(engine._card(field, idx),
                                      getattr(tables, field)[np.maximum(idx, 0)], err_msg=field)


def test_materialize_changes_nothing():
    """``engine.materialize`` (a fusion barrier: a loop XLA cannot prove runs once) returns the
    state field for field, alone and under ``vmap`` over games whose decision counts (its loop
    bound) differ, negative ones included. The fields hold random values, none of them
    padding, so a zeroed or stale field would show."""
    decks = [engine.deck_arrays(DECKS[name]) for name in sorted(DECKS)[:2]]
    shapes = jax.eval_shape(engine.new_game, jax.random.key(0),
                            *(np.stack(x) for x in zip(*decks)))
    rnd = np.random.default_rng(0)
    games = jax.tree.map(lambda s: rnd.integers(1, 50, (5,) + s.shape).astype(s.dtype), shapes)
    games = games.replace(decisions=np.arange(-2, 3, dtype=np.int32) * 7)
    one = jax.tree.map(lambda x: x[3], games)
    for got, want in ((jax.jit(jax.vmap(engine.materialize))(games), games),
                      (jax.jit(engine.materialize)(one), one)):
        for a, b in zip(jax.tree.leaves(got), jax.tree.leaves(want)):
            assert a.dtype == b.dtype and np.array_equal(a, b)


def _positions(decks, ids, seed):
    """Every 7th decision position of a random game on the JAX stream of ``seed``."""
    src = lockstep.sources([seed])[0]
    game = new_game(*decks, src)
    policies = [RandomPolicy(PythonRandomSource(seed + p)) for p in (1, 2)]
    out = []
    while not game.over:
        if game.decisions % 7 == 0:
            out.append((game.to_dict(), seed, ids, src))
        step(game, policies[game.current_player](game))
    return out


def _with_statuses(data, rnd):
    """The position with random Special Conditions on both Actives (the sample cards only
    poison; this exercises the checkup's coins, Confused attacks and immobility)."""
    data = {**data, "players": [dict(p) for p in data["players"]]}
    for p in data["players"]:
        slots = list(p["slots"])
        if slots[0] is not None:
            statuses = [s for s in ("poisoned", "burned") if rnd.random() < 0.4]
            statuses += [rnd.choice(("asleep", "paralyzed", "confused"))] * (rnd.random() < 0.6)
            slots[0] = {**slots[0], "statuses": sorted(statuses)}
        p["slots"] = slots
    return data


def _one_step_cases():
    names = sorted(DECKS)
    games = [((DECKS[a], DECKS[b]), (names.index(a), names.index(b)), 100 + s)
             for s, (a, b) in enumerate(itertools.product(names, repeat=2))]
    games += [((random_deck(s), random_deck(s + 1000)), (-1, -1), 200 + s) for s in range(8)]
    rnd = random.Random(0)
    cases = []
    for decks, ids, seed in games:
        for data, seed, ids, src in _positions(decks, ids, seed):
            variants = [data]
            if data["phase"] == "main" and not data["pending"]:
                variants.append(_with_statuses(data, rnd))
            for d in variants:
                game = game_from_dict(d, src)
                cases += [(d, seed, ids, src, a) for a in rules.legal_actions(game)]
    return cases


def _stack(states):
    return jax.tree.map(lambda *xs: np.stack(xs), *states)


def test_one_step_from_reference_positions_with_every_legal_action():
    """L2: from positions of reference play (all 36 pairings, random decks of implemented
    cards, injected Special Conditions), one step of each engine with each legal action gives
    the same next state, field for field, and the same mask and rewards."""
    cases = _one_step_cases()
    assert len(cases) > 4000
    _assert_one_steps_agree(cases)


def _attack_positions(attacker, k: int):
    """Positions where ``attacker`` (a card) can use attack ``k``: paying exactly its cost or
    with 3 extra energy of its own type, unhurt or 20 HP from a knock-out, Confused or not, in
    play since an earlier turn or since this one, against a fresh or nearly knocked-out
    Snorlax, or a Poisoned Electrode, with energy or without, a Bench behind it (one damaged);
    Pokémon of two types and a Trainer in the attacker's deck, a hand and a shorter deck for
    the opponent."""
    symbol = {t: s for s, t in SYMBOL_TYPES.items()}
    own = symbol.get(attacker.type, "W")
    cost = attacker.attacks[k].cost
    paid = "".join((own if t == EType.COLORLESS else symbol[EType(t)]) * n
                   for t, n in enumerate(cost) if n)
    poisoned = (Status.POISONED,)
    defenders = (lambda: pokemon(SNORLAX, energy="LWW"), lambda: pokemon(SNORLAX, damage=140),
                 lambda: pokemon(VOLTORB, ELECTRODE, statuses=poisoned, energy="L"),
                 lambda: pokemon(SNORLAX, damage=140, statuses=poisoned))
    turn = 3
    for (extra, hurt, confused, entered), defender in zip(
            ((0, 0, False, 1), (3, 1, True, turn), (0, 0, False, turn), (3, 1, False, 1)),
            defenders):
        me = pokemon(attacker.id, energy=paid + own * extra,
                     damage=hurt * (attacker.hp - 20),
                     statuses=(Status.CONFUSED,) * confused, entered_turn=entered)
        yield position(player(me, bench=(PIKACHU_EX, CHARMANDER, VOLTORB),
                              deck=(VOLTORB, POTION, BULBASAUR, MEWTWO_EX, BULBASAUR, VOLTORB)),
                       player(defender(), bench=[pokemon(VOLTORB, damage=30), MEWTWO_EX],
                              hand=(POTION, VOLTORB, SNORLAX), deck=(SNORLAX, POTION)),
                       turn=turn)


def test_every_implemented_attack_text_in_both_engines():
    """L2 for each implemented attack text: its first card attacks from the positions of
    ``_attack_positions`` on several seeds, and the JAX engine's step equals the reference's
    field for field (coins, Special Conditions, recoil and knock-outs included)."""
    first = _first_per_text((a.text, (c, k)) for c in card_table().values()
                            for k, a in enumerate(c.attacks) if a.text and a.effect is not None)
    assert len(first) >= 36
    cases = []
    for c, k in first.values():
        for game in _attack_positions(c, k):
            assert A.attack(k) in rules.legal_actions(game), (c, k)
            cases += _seeded_cases(game, A.attack(k))
    _assert_one_steps_agree(cases)


def _first_per_text(pairs) -> dict:
    """Normalized text -> the first value given with it, from (text, value) ``pairs``."""
    first = {}
    for text, value in pairs:
        first.setdefault(normalize_text(text), value)
    return first


def _seeded_cases(game, action, seeds=(0, 1, 2)) -> list:
    """``_assert_one_steps_agree``'s cases: ``action`` from ``game`` on each of ``seeds``."""
    data = {**game.to_dict(), "rng_counter": 0}
    return [(data, seed, (-1, -1), src, action)
            for seed, src in zip(seeds, lockstep.sources(list(seeds)))]


def _ability_positions(holder):
    """Positions where ``holder`` (a card with an ability) is the Active or on the Bench,
    damaged or not (30 on it, 10 on another), with an Active of its type or another, against
    an opponent with a Bench or without, the opponent's Active Poisoned or not."""
    own = {t: s for s, t in SYMBOL_TYPES.items()}.get(holder.type, "W")
    for in_active, hurt, opp_bench in itertools.product((True, False), repeat=3):
        me = pokemon(holder.id, damage=30 * hurt, energy=own)
        other = pokemon(VOLTORB, damage=10 * hurt)
        defender = pokemon(SNORLAX, statuses=(Status.POISONED,) * hurt)
        yield position(player(me if in_active else other,
                              bench=(PIKACHU_EX, other if in_active else me)),
                       player(defender, bench=(VOLTORB, MEWTWO_EX) if opp_bench else ()))


def test_every_implemented_ability_text_in_both_engines():
    """L2 for each implemented ability text: its first card uses it from the positions of
    ``_ability_positions`` where it is usable, on several seeds, and the JAX engine's step
    equals the reference's field for field (coins and pending choices included)."""
    first = _first_per_text((c.ability_text, c) for c in card_table().values()
                            if c.ability_text and c.ability is not None)
    assert len(first) >= 6
    cases = []
    for c in first.values():
        used = 0
        for game in _ability_positions(c):
            slot = 0 if game.players[0].active.card is c else 2
            if A.ability(slot) in rules.legal_actions(game):
                used += 1
                cases += _seeded_cases(game, A.ability(slot))
        assert used >= 2, c
    _assert_one_steps_agree(cases)


def _trainer_positions(trainer):
    """Positions with ``trainer`` (a card) in hand: as Active a damaged Pokémon with energy, a
    Pokémon the Trainer names (Koga, Lt. Surge, Brock) or a fresh {W} one; on the Bench damaged
    {L} and {G} Pokémon with energy, and a named one; the opponent with a Bench and a hand."""
    effect = trainer.trainer_effect
    named = NAME_GROUPS[effect.args[1]][0] if effect.op in NAMING_OPS else "Voltorb"
    named = next(c.id for c in card_table().values() if c.name == named)
    actives = (pokemon(PIKACHU_EX, damage=30, energy="LL"), pokemon(named, energy="L"),
               pokemon(SQUIRTLE))
    for active in actives:
        bench = (pokemon(VOLTORB, damage=20, energy="LW"), pokemon(BULBASAUR, damage=40),
                 pokemon(named, energy="LF"))
        yield position(player(active, bench=bench, hand=(trainer.id, VOLTORB),
                              deck=(BULBASAUR, POTION, VOLTORB)),
                       player(SNORLAX, bench=(VOLTORB,), hand=(POTION, SNORLAX),
                              deck=(VOLTORB, POTION, SNORLAX, MEWTWO_EX)))


def test_every_implemented_trainer_text_in_both_engines():
    """L2 for each implemented Trainer text: its first card is played onto every slot it may
    target from the positions of ``_trainer_positions``, on several seeds, and the JAX
    engine's step equals the reference's field for field."""
    first = _first_per_text((c.trainer_text, c) for c in card_table().values()
                            if c.trainer_text and c.trainer_effect is not None)
    assert len(first) >= 12
    cases = []
    for c in first.values():
        plays = [(game, a) for game in _trainer_positions(c) for a in rules.legal_actions(game)
                 if A.decode(a)[:2] in (("play", 0), ("play_on", 0))]
        assert plays, c
        cases += [case for game, a in plays for case in _seeded_cases(game, a)]
    _assert_one_steps_agree(cases)


def _assert_one_steps_agree(cases):
    """For each case (state dict, seed, deck ids, random source, action), one step of each
    engine gives the same state, field for field, and the same mask and rewards."""
    for start in range(0, len(cases), BATCH):
        chunk = cases[start:start + BATCH]
        expected, states = [], []
        for data, seed, ids, src, action in chunk:
            states.append(convert.from_dict(data, ids))
            src.counter = data["rng_counter"]
            game = game_from_dict(data, src)
            step(game, action)
            after = convert.from_game(game, ids)
            expected.append((after, lockstep.digest(after, np.array(action_mask(game)),
                                                    np.array(game.rewards()))))
        got, digests = lockstep.batch_step(
            jax.tree.map(lambda x: lockstep.pad_games(x, BATCH), _stack(states)),
            lockstep.pad_games(np.array([c[4] for c in chunk], np.int32), BATCH),
            lockstep.pad_games(np.array([c[1] for c in chunk], np.uint32), BATCH))
        got, digests = jax.tree.map(np.asarray, (got, digests))
        for i, (want, want_digest) in enumerate(expected):
            state = jax.tree.map(lambda x: x[i], got)
            if not all(np.array_equal(a, b) for a, b in
                       zip(jax.tree.leaves(state), jax.tree.leaves(want))):
                data, _, _, _, action = chunk[i]
                ref, jx = convert.to_dict(want), convert.to_dict(state)
                diff = {k: (ref[k], jx[k]) for k in ref if ref[k] != jx[k]}
                pytest.fail(f"action {action} from {data}:\n(reference, jax) {diff}")
            assert np.array_equal(digests[i], want_digest), "mask or rewards"


def _assert_agree(run, bad, form):
    if bad:
        report = lockstep.first_divergence(run, bad[0][0], BATCH, form)
        pytest.fail(f"{len(bad)} of {len(run.seeds)} games differ ({form} form); "
                    f"first: {report}")


@pytest.mark.parametrize("form", lockstep.FORMS)
def test_whole_games_in_lock_step(form):
    """L3: 540 games (15 per ordered pairing), same seeds and choices: identical states, masks,
    rewards and outcomes after every decision; in the form the envs run on a CPU, game by
    game, and in the vectorized form of a GPU."""
    run, bad = lockstep.check(BATCH, seed=0, batch=BATCH, form=form)
    _assert_agree(run, bad, form)
    assert {pair for pair in run.deck_ids} == set(lockstep.PAIRS)
    outcomes = set(run.outcomes)
    assert {0, 1, None} <= outcomes


@pytest.mark.parametrize("form", lockstep.FORMS)
def test_whole_games_of_random_decks_in_lock_step(form):
    """L3 over the whole card pool: 1,080 games of random legal decks (``cards.random_deck``,
    each featuring a card with a text) in lock-step. Between them they use every effect text a
    legal deck can hold (6 more are only on cards whose pre-evolution is not implemented: the
    L2 test of every attack text steps those)."""
    run, bad = lockstep.check(2 * BATCH, seed=0, batch=BATCH, form=form, decks="random")
    _assert_agree(run, bad, form)
    assert set(run.used) == lockstep.featured_texts() and {0, 1} <= set(run.outcomes)


@pytest.mark.parametrize("form", lockstep.FORMS)
def test_whole_games_of_the_meta_decks_in_lock_step(form):
    """L3 over the decks people play: 540 games, every ordered pairing of the meta decks
    (``cards.meta_decks``) at least twice, in lock-step."""
    run, bad = lockstep.check(BATCH, seed=0, batch=BATCH, form=form, decks="meta")
    _assert_agree(run, bad, form)
    assert len(set(map(tuple, run.decks))) == len(meta_decks()) ** 2
    assert {0, 1} <= set(run.outcomes)


@pytest.mark.slow
@pytest.mark.parametrize("form", lockstep.FORMS)
def test_many_whole_games_of_random_decks_in_lock_step(form):
    """L3, 10,260 games of random legal decks in each form; between them they use every
    effect text a legal deck can hold."""
    used = set()
    for chunk in range(19):
        run, bad = lockstep.check(BATCH, seed=10**5 + chunk * BATCH, batch=BATCH, form=form,
                                  decks="random")
        _assert_agree(run, bad, form)
        used |= set(run.used)
    assert used == lockstep.featured_texts()


@pytest.mark.slow
@pytest.mark.parametrize("form", lockstep.FORMS)
def test_many_whole_games_in_lock_step(form):
    """L3, 10,260 games: 19 batches of 540 (285 per ordered pairing), in each form."""
    for chunk in range(19):
        _assert_agree(*lockstep.check(BATCH, seed=10**5 + chunk * BATCH, batch=BATCH,
                                      form=form), form)


@pytest.mark.parametrize("form", lockstep.FORMS)
def test_whole_games_by_the_other_rule_options_in_lock_step(form):
    """L3 by the options the sources leave open, all three switched from their defaults: a
    50-turn limit, no turn-1 draw and no turn-1 Supporter (``RULES.md`` section 10). The
    games differ from those by the default rules, and the engines agree on them."""
    options = RuleOptions(turn_limit=50, first_turn_draw=False, first_turn_supporter=False)
    run, bad = lockstep.check(BATCH, seed=0, batch=BATCH, form=form, options=options)
    _assert_agree(run, bad, form)
    assert max(len(actions) for actions in run.actions) > 0
    default = lockstep.reference_run(*lockstep.sample_games(36, seed=0))
    assert [len(a) for a in run.actions[:36]] != [len(a) for a in default.actions]


def test_a_reference_change_is_caught_and_reported(monkeypatch):
    """The lock-step check can fail: with the reference's weakness bonus changed to 30 the
    games differ, and the report names the step and the differing state."""
    monkeypatch.setattr(rules, "WEAKNESS_BONUS", 30)
    run, bad = lockstep.check(36, seed=7, batch=BATCH)
    assert bad
    report = lockstep.first_divergence(run, bad[0][0], BATCH)
    assert "first differs after action" in report and "players: reference" in report
    assert "takes" in report  # the log shows the attack's damage


def test_an_unknown_batched_form_is_refused():
    with pytest.raises(ValueError, match="form must be one of"):
        lockstep.batch_step(None, None, None, form="scan")


def test_the_sourced_rules_hold_in_the_jax_engine():
    """The rules that ``test_rules`` pins from public sources, from the same positions in the
    JAX engine: the first player attacks on turn 1 with energy it has; where both players meet
    a win condition at once, the one with a Pokémon left wins, else it is a draw; an undecided
    game is a draw after turn 30. Each outcome is the reference's and the one the test names."""
    voltorb, squirtle, mewtwo, koffing = "A1-099", "A1-053", "A1-129", "A1-176"
    first_turn = position(player(pokemon(squirtle, energy="W"), zone=(None, "Water")),
                          player(mewtwo), turn=1)
    mask = np.asarray(jax.jit(engine.legal_action_mask)(convert.from_game(first_turn)))
    assert mask[A.attack(0)] and np.array_equal(mask, action_mask(first_turn))

    def poisoned(bench, points):
        return player(pokemon(voltorb, damage=50, statuses=(Status.POISONED,)), bench=bench,
                      points=points)

    ends = {  # position -> the winner the game gives (-1: a draw)
        "both benched": (position(poisoned((koffing,), 2), poisoned((koffing,), 2)), -1),
        "neither benched": (position(poisoned((), 2), poisoned((), 2)), -1),
        "p0 benched": (position(poisoned((koffing,), 2), poisoned((), 2)), 0),
        "p1 benched, 1 point to 3": (position(poisoned((), 2), poisoned((koffing,), 0)), 1),
        "turn limit": (position(player(voltorb), player(mewtwo), turn=TURN_LIMIT), -1),
    }
    step_one = jax.jit(engine.step)
    for name, (game, winner) in ends.items():
        state = convert.from_game(game)
        game.rng = ScriptedRandomSource()  # the end of the game draws nothing
        step(game, A.END)
        after = step_one(state, A.END, jax.random.key(0))
        assert game.over and (-1 if game.winner is None else game.winner) == winner, name
        assert int(after.phase) == OVER and int(after.winner) == winner, name


def test_the_rule_options_hold_in_the_jax_engine():
    """The positions of ``test_rules::test_the_rule_options_where_sources_disagree`` in the
    JAX engine: a 50-turn limit plays on after turn 30 and ends in a draw after turn 50; with
    no turn-1 Supporter, Professor's Research is not legal on turn 1. (The turn-1 draw is
    covered by the lock-step games under these options.)"""
    voltorb, mewtwo, research = "A1-099", "A1-129", "P-A-007"
    longer = RuleOptions(turn_limit=50)
    step_one = jax.jit(engine.step)
    for turn, over in ((TURN_LIMIT, False), (50, True)):
        game = position(player(voltorb, deck=[voltorb]), player(mewtwo, deck=[mewtwo]),
                        turn=turn, options=longer)
        after = step_one(convert.from_game(game), A.END, jax.random.key(0))
        assert (int(after.phase) == OVER) == over and int(after.winner) == -1
    game = position(player(voltorb, hand=[research]), player(mewtwo), turn=1,
                    options=RuleOptions(first_turn_supporter=False))
    mask = np.asarray(jax.jit(engine.legal_action_mask)(convert.from_game(game)))
    assert not mask[A.play(0)] and np.array_equal(mask, action_mask(game))
