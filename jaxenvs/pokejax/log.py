"""A JAX battle as Showdown protocol lines: ``protocol_log(states, actions)``.

``states`` is one battle's ``BattleState`` after each decision, stacked on a leading axis
(``[0]``: the start, leads out, as ``turn.start`` leaves it; ``[k]``: after decision ``k``),
and ``actions`` int[K, 2] the actions given to ``turn.step``. The result is, per decision, the
lines Showdown's battle log would hold, in Showdown's formats (the exact, owner's lines: the
harness's log), so a JAX battle reads like a Showdown battle log::

    |switch|p1a: Staryu|Staryu, L51|103/103
    |move|p1a: Staryu|Take Down|p2a: Cloyster
    |-damage|p2a: Cloyster|161/172
    |-damage|p1a: Staryu|101/103|[from] Recoil

The engine keeps no event record, so the lines are read off the difference between consecutive
states, with the action order Showdown uses (switches first, then move priority, then Speed, a
tie settled by ``random(0, 2)``; a faint ends the turn). What the states cannot say (later
turns of Rage, Thrash, a trapping move or Bide, and Struggle, use no PP and may change nothing;
a faint clears what a move did) is replayed: a move turn is run again with the engine's own
functions up to its second action (``_replay``: ``commitChoices``, the order and its draws,
the first action, each action's ``BeforeMove`` and move), which gives the order, whether a
faint in the first action ended the turn, whether ``BeforeMove`` stopped each move (and
whether by full paralysis: its roll drawn), Metronome's picks (the draws after
``BeforeMove``), the move Mimic copied, and whether a substitute broke. A stopped move was
frozen, asleep (or woke up), partially trapped, flinched, recharging, held by Disable, hit
itself in confusion or was fully paralysed, in that order, where the state before and what
the earlier action of the turn did say so. A biding Pokémon's last ``BeforeMove`` handler is
Bide's (its counter went down; on its last turn it hit the foe with what it stored): no move
line, ``|-activate|`` or ``|-end|``. A Metronome or Mirror Move action writes its own move
line, then one for each move it called (Mirror Move calls the foe's last move). The kinds in
``EXACT_KINDS`` are checked against Showdown's own log line by line
(``tests/pokejax/test_log.py``): ``|switch|``, ``|move|`` (user, move, target; a charging turn
has no target), ``|cant|`` (``frz``, ``slp``, ``partiallytrapped``, ``flinch``, ``recharge``,
``Disable|<move>``, ``par``), ``|-status|`` (Pokémon, status), ``|-curestatus|`` (waking up, a
thaw, Haze's cure), ``|-start|`` (screens, Focus Energy, Mist, Substitute, confusion (Thrash's
``[silent]`` one too), Leech Seed, Disable, Conversion's type change, Mimic, Bide), ``|-end|``
(Disable, confusion, a broken Substitute, what Haze ends, Bide), ``|-prepare|``,
``|-mustrecharge|``, ``|-clearallboost|`` (Haze), ``|-transform|``, ``|faint|``, ``|turn|``,
``|win|`` and ``|tie|``. Readings the states and the replay cannot tell apart are settled by
the likelier one: a Mimic that left its slot alone missed, unless the foe has that move too
(then it copied it). Known gap: a volatile given to a Pokémon that faints later in the same
turn is not seen, except the confusion the turn's first action gives the second mover (the
replay shows it).

The ``INFERRED_KINDS`` may differ from Showdown's. The damage each move dealt is the value
that, replayed with the moves' recoil, drain, healing, Substitute and burn/poison damage,
ends at the next state's HP and substitutes (the first fitting value, starting from the plain
HP difference); ``|-damage|`` and ``|-heal|`` show the HP along that replay (a Toxic
counter is not counted). When several values fit (a hit healed back by the target's own
drain, say) it may pick a wrong one, and with it ``|-miss|`` (and the move line's
``[miss]``: a move that needs a hit and changed nothing), ``|-crit|`` (damage out of reach
without a critical hit at the highest roll), ``|-supereffective|``/``|-resisted|`` (a
damaging move that hit) and ``|-immune|`` (a poison move on a Poison type reads the same as a
miss). ``|-activate|`` (confusion; a substitute taking a hit; Bide) is inferred too: a multi-hit
move's hits on a substitute are not counted. ``|-boost|``/``|-unboost|``, ``|-fail|`` and
``|-hitcount|`` are not written. Names are species names (Showdown shows nicknames; the state
has none) and players are ``p1`` and ``p2``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxenvs.pokejax._src import conditions as cond
from jaxenvs.pokejax._src import damage as dmg
from jaxenvs.pokejax._src import moves as mv
from jaxenvs.pokejax._src import prng, turn
from jaxenvs.pokejax._src.state import (CANNOT_MOVE, NO_WINNER, P1, P2, REQ_MOVE, STATUSES,
                                        VOLATILES, BattleState)
from jaxenvs.pokejax._src.turn import FIRST_SWITCH
from jaxenvs.pokejax.data import gen1

#: The line kinds whose every line equals Showdown's (see the module docstring; for ``move``
#: and ``-status`` the first three and two arguments).
EXACT_KINDS = ("switch", "move", "cant", "-status", "-curestatus", "-start", "-end",
               "-prepare", "-mustrecharge", "-clearallboost", "-transform", "faint", "turn",
               "win", "tie")
#: The line kinds written by inference (module docstring), which may differ from Showdown's.
INFERRED_KINDS = ("-damage", "-heal", "-crit", "-miss", "-immune", "-supereffective",
                  "-resisted", "-activate")
#: The moves whose lines this module reads off the states (and the replay): damage (multi-hit
#: included), fixed and one-hit-KO damage, recoil, drain, healing, stat stages, every status
#: (Rest's sleep, Toxic, freezing and thawing), confusion, flinching, two-turn moves, screens,
#: Focus Energy, Mist, Substitute, Leech Seed, Self-Destruct, Hyper Beam's recharge, Haze,
#: Conversion, Transform, the partial trapping moves (Wrap, Bind, Clamp, Fire Spin: the
#: trapper's later turns and the target's ``|cant|``), and Thrash and Petal Dance (their later
#: turns, and the confusion their end gives), and Disable (also a new Disable just after the
#: old one ran out, and the move it stops later in the same turn), Bide (its later turns: Bide's
#: own ``BeforeMove`` handler), Mirror Move and Metronome (the moves they call; Metronome's
#: picks replayed), Rage (its later turns, which use no PP, replayed) and Mimic (the copied
#: move replayed, also when its user then faints): all 165.
LOGGED_MOVES: frozenset[str] = frozenset((
    "pound", "karatechop", "megapunch", "scratch", "visegrip", "cut", "gust", "wingattack",
    "slam", "vinewhip", "megakick", "hornattack", "tackle", "watergun", "hydropump", "surf",
    "peck", "drillpeck", "strength", "razorleaf", "rockthrow", "earthquake", "quickattack",
    "eggbomb", "waterfall", "swift", "dizzypunch", "crabhammer", "rockslide", "triattack",
    "slash", "payday", "sonicboom", "dragonrage", "seismictoss", "nightshade", "superfang",
    "psywave", "struggle", "takedown", "doubleedge", "submission", "absorb", "megadrain",
    "leechlife", "dreameater", "counter", "fissure", "horndrill", "guillotine", "jumpkick",
    "highjumpkick", "swordsdance", "agility", "amnesia", "growth", "meditate", "sharpen",
    "harden", "withdraw", "barrier", "acidarmor", "doubleteam", "defensecurl", "minimize",
    "growl", "leer", "tailwhip", "stringshot", "screech", "sandattack", "smokescreen",
    "kinesis", "flash", "acid", "bubblebeam", "aurorabeam", "constrict", "bubble", "psychic",
    "thunderwave", "stunspore", "glare", "bodyslam", "thundershock", "thunderbolt",
    "thunderpunch", "thunder", "lick", "ember", "flamethrower", "firepunch", "fireblast",
    "icebeam", "blizzard", "icepunch", "poisonsting", "sludge", "smog", "poisonpowder",
    "poisongas", "toxic", "spore", "sleeppowder", "hypnosis", "lovelykiss", "sing", "rest",
    "supersonic", "confuseray", "psybeam", "confusion", "bite", "headbutt", "stomp",
    "rollingkick", "hyperfang", "lowkick", "boneclub", "razorwind", "skullbash", "skyattack",
    "solarbeam", "dig", "fly", "doubleslap", "cometpunch", "furyattack", "pinmissile",
    "spikecannon", "barrage", "furyswipes", "doublekick", "twineedle", "bonemerang",
    "leechseed", "mist", "substitute", "splash", "teleport", "roar", "whirlwind",
    "selfdestruct", "explosion", "recover", "softboiled", "reflect", "lightscreen",
    "focusenergy", "hyperbeam", "haze", "conversion", "transform", "wrap", "bind", "clamp",
    "firespin", "thrash", "petaldance", "disable", "bide", "mirrormove", "rage", "metronome",
    "mimic"))
#: ``|-start|`` effect names of the volatiles that announce themselves.
_STARTS = {"reflect": "Reflect", "lightscreen": "Light Screen",
           "focusenergy": "move: Focus Energy", "mist": "Mist", "bide": "Bide"}
#: ``|-start|`` effect names of the volatiles a move announces on its target.
_FOE_STARTS = {"confusion": "confusion", "leechseed": "move: Leech Seed"}
_RECHARGE = 1 << VOLATILES.index("mustrecharge")
_D = gen1()
_POISON = _D.type_index["Poison"]
_PSN, _TOX, _SLP, _FRZ, _PAR = (STATUSES.index(s) for s in ("psn", "tox", "slp", "frz", "par"))
_REST, _SUBSTITUTE, _HAZE, _CONVERSION, _MIMIC, _TRANSFORM = (mv.EFFECTS.index(e) for e in (
    "rest", "substitute", "haze", "conversion", "mimic", "transform"))
#: The volatiles Haze ends, in the order it ends them, with the name its ``|-end|`` shows.
_HAZE_ENDS = (("disable", "Disable"), ("confusion", "confusion"), ("mist", "Mist"),
              ("focusenergy", "move: Focus Energy"), ("leechseed", "move: Leech Seed"),
              ("lightscreen", "Light Screen"), ("reflect", "Reflect"),
              ("residualdmg", "Toxic counter"))
_SWITCH_ORDER, _MOVE_ORDER = 103, 200


def _np(state: BattleState) -> BattleState:
    return jax.tree_util.tree_map(np.asarray, state)


@jax.jit
def _replay(state: BattleState, actions: jax.Array) -> dict:
    """A move turn from ``state`` replayed by the engine's own functions up to its second
    action: ``turn.begin_move_turn`` (``commitChoices``, the cached speeds, the order and its
    draws), then the first action (``turn.run_action``). Returns ``first`` (the side acting
    first), ``halted`` (a faint in the first action ended the turn) and, stacked per action in
    order, ``pre`` (the state as it starts), ``checked`` (after ``BeforeMove``), ``cancelled``
    (``BeforeMove`` stopped the move) and ``used`` (after the move, before a faint clears what
    it did)."""
    start, first = turn.begin_move_turn(state, actions)
    mid, halted = turn.run_action(start, first, actions[first])
    pre = jax.tree_util.tree_map(lambda x, y: jnp.stack([x, y]), start, mid)
    movers = jnp.stack([first, 1 - first])
    checked, cancelled, _ = jax.vmap(cond.before_move)(pre, movers)
    used = jax.vmap(lambda s, side: mv.use_move(s, side)[0])(pre, movers)
    return {"first": first, "halted": halted, "pre": pre, "checked": checked,
            "cancelled": cancelled, "used": used}


class _Step:
    """One decision, from ``a`` to ``b`` with ``actions``: its lines."""

    def __init__(self, a: BattleState, b: BattleState, actions: np.ndarray):
        self.a, self.b, self.actions = a, b, [int(x) for x in actions]
        self.lines: list[str] = []
        self.status = {(s, t): int(a.status[s, t]) for s in range(2) for t in range(6)}
        """Status ids as the lines go (a move's status shows from its ``|-status|`` on)."""
        self.start: dict[tuple[int, int], int] = {}
        """HP of the Pokémon on the field once the switches are done (``run``)."""
        self.subs = {(s, int(a.party[s, 0])): int(a.sub_hp[s, a.party[s, 0]])
                     if self._has(a, s, cond.SUBSTITUTE) else None for s in range(2)}
        """Substitute HP of the Pokémon on the field as the lines go (None: none)."""
        self._replayed: dict | None = None
        self.gained: dict[tuple[int, int], int] = {}
        """Volatiles each move gave its user this decision (Haze ends them again)."""
        self.counted: set[tuple[int, int]] = set()
        """The Pokémon whose Disable and confusion counters ran down this decision."""

    # -- names --------------------------------------------------------------------------
    def ident(self, side: int, t: int) -> str:
        return f"p{side + 1}a: {_D.species(_D.species_names[self.a.species[side, t]])['name']}"

    def health(self, hp: int, side: int, t: int) -> str:
        if hp == 0:
            return "0 fnt"
        status = STATUSES[self.status[side, t]]
        return f"{hp}/{int(self.a.maxhp[side, t])}" + (f" {status}" if status else "")

    def switch_line(self, side: int, t: int) -> str:
        name = _D.species(_D.species_names[self.a.species[side, t]])["name"]
        level = int(self.a.level[side, t])
        details = name if level == 100 else f"{name}, L{level}"
        health = self.health(int(self.a.hp[side, t]), side, t)
        return f"|switch|{self.ident(side, t)}|{details}|{health}"

    # -- the order of the actions, and the turn replayed ------------------------------------
    def replay(self, side: int) -> dict:
        """``_replay`` of this move turn, for the action of ``side``: its states ``pre``,
        ``checked``, ``used``, with ``cancelled``, ``first`` and ``halted``."""
        if self._replayed is None:
            self._replayed = jax.tree_util.tree_map(
                np.asarray, _replay(self.a, np.asarray(self.actions, np.int32)))
        r = self._replayed
        k = 0 if side == int(r["first"]) else 1
        return {key: jax.tree_util.tree_map(lambda x, k=k: x[k], r[key]) if key in (
            "pre", "checked", "used", "cancelled") else r[key] for key in r}

    def selected(self, side: int) -> int:
        """The move ``side``'s action runs (``commitChoices``): the chosen slot's move
        (Struggle without a usable one); a locked, semi-locked or Fight-only Pokémon's previous
        selection; ``CANNOT_MOVE`` for a partially trapped one."""
        return int(self.replay(side)["pre"].last_selected[side])

    def order(self) -> list[int]:
        """The sides that had an action this decision, in Showdown's order: a move turn's as
        replayed; replacements by Speed, a tie settled by ``random(0, 2)``."""
        a = self.a
        if int(a.request[0]) == REQ_MOVE:
            first = int(self.replay(0)["first"])
            return [first, 1 - first]
        acting = [s for s in range(2) if int(a.request[s]) != 0]
        speed = [int(a.mod_stats[s, a.party[s, 0], 4]) for s in range(2)]
        if len(acting) < 2 or speed[0] != speed[1]:
            return sorted(acting, key=lambda s: -speed[s])
        r = int(prng.random(np.asarray(a.rng), 0, 2)[1])
        return [r, 1 - r]

    def _fully_paralysed(self, side: int) -> bool:
        """``BeforeMove`` stopped ``side``'s move with full paralysis, as replayed: it was
        cancelled and drew the paralysis roll (after a confusion roll that did not make it hit
        itself)."""
        r = self.replay(side)
        pre = r["pre"]
        me = (side, int(pre.party[side, 0]))
        rolled = int(r["checked"].rng_calls) - int(pre.rng_calls)
        confusion_roll = self._has(pre, side, cond.CONFUSION) and int(pre.confusion_turns[me]) > 1
        return bool(r["cancelled"]) and int(pre.status[me]) == _PAR and rolled == 1 + int(
            confusion_roll)

    # -- events ----------------------------------------------------------------------------
    @staticmethod
    def _ran(p: dict | None, effect: int) -> bool:
        """Plan ``p`` (if any) ran a move with this effect."""
        return bool(p) and p["move"] is not None and int(mv.MOVE_EFFECT[p["move"]]) == effect

    @staticmethod
    def _has(state: BattleState, side: int, volatile: int, t: int | None = None) -> bool:
        t = int(state.party[side, 0]) if t is None else t
        return bool(int(state.volatiles[side, t]) & volatile)

    def newly_fainted(self, side: int) -> bool:
        t = int(self.b.party[side, 0])
        return bool(self.b.fainted[side, t]) and not bool(self.a.fainted[side, t])

    def _hit_seen(self, p: dict) -> bool:
        """The move of plan ``p`` reached its target (its HP or substitute went down)."""
        them = (p["foe"], p["target"])
        return (self.start[them] > int(self.b.hp[them])
                or int(self.a.sub_hp[them]) != int(self.b.sub_hp[them]))

    def _felled_by_confusion(self, first: dict | None, side: int) -> bool:
        """``first`` (the plan of the action before ``side``'s) confused ``side``'s Pokémon,
        which then fainted, clearing the confusion from the next state: the replayed state
        after ``first``'s move shows it."""
        if not first or first["move"] is None or not self.newly_fainted(side) or self._has(
                self.a, side, cond.CONFUSION):
            return False
        return self._has(self.replay(first["side"])["used"], side, cond.CONFUSION)

    def _caused_by(self, first: dict | None, side: int) -> tuple[int, bool, bool, bool]:
        """What ``first`` (the plan of the action before ``side``'s, if any) did to
        ``side``'s Pokémon before it moved: (its status then, confused, partially trapped,
        flinched)."""
        a, b = self.a, self.b
        me = (side, int(a.party[side, 0]))
        status, new = int(a.status[me]), int(b.status[me])
        confused = self._has(a, side, cond.CONFUSION)
        trapped = self._has(a, side, cond.TRAPPED)
        if not first or first["move"] is None or first["target"] != me[1]:
            return status, confused, trapped, False
        move = first["move"]
        if self._ran(first, _HAZE):  # its status cured, confusion gone
            return 0, False, trapped, False
        hit = self._hit_seen(first)
        if status == 0 and new in (int(mv.MOVE_STATUS[move]), int(mv.MOVE_SECONDARY_STATUS[move])):
            status = new
        if status == _FRZ and new == 0 and bool(mv.MOVE_THAWS[move]) and hit:
            status = 0
        gives = int(mv.MOVE_SECONDARY_VOLATILE[move]) | (cond.CONFUSION if bool(
            mv.MOVE_CONFUSES[move]) else 0)
        if gives & cond.CONFUSION and not confused and (
                self._has(b, side, cond.CONFUSION) or self._felled_by_confusion(first, side)):
            confused = True
        trapped |= bool(mv.MOVE_TRAPS[move]) and hit
        flinched = bool(int(mv.MOVE_SECONDARY_VOLATILE[move]) & cond.FLINCH) and hit
        return status, confused, trapped, flinched

    def plan(self, side: int, first: dict | None = None) -> dict:
        """What ``side``'s move action was, read as Showdown's ``BeforeMove`` runs (frozen,
        asleep, partially trapped, flinched, recharging, Disable, confusion, paralysed):
        a ``cant`` line, nothing (``cannotmove``, waking up, a confusion self-hit), or a move,
        with the lines before it and what the state difference says of it. Whether
        ``BeforeMove`` stopped the move, and whether by full paralysis, is replayed (later
        turns of Rage, Thrash, a trapping move or Bide use no PP, Struggle none at all, and
        may change nothing); ``first``: the plan of the action that ran before it this turn."""
        a, b = self.a, self.b
        foe = 1 - side
        user, target = int(a.party[side, 0]), int(b.party[foe, 0])
        me = (side, user)
        p = {"side": side, "user": user, "foe": foe, "target": target, "move": None,
             "damaging": False, "cant": None, "pre": [], "woke": False, "hurt": False,
             "charge": False, "slept": False, "bide": None, "callers": []}
        if self.actions[side] >= FIRST_SWITCH:  # a switch the turn's faint cancelled
            return p
        selected = self.selected(side)
        if selected == CANNOT_MOVE or self._ran(first, _HAZE) and int(
                b.last_selected[side]) == CANNOT_MOVE:
            return p
        status, confused, trapped, flinched = self._caused_by(first, side)
        used_pp = bool(np.any(a.pp[me] != b.pp[me]))
        biding = self._has(a, side, cond.BIDE)
        calling = selected in (mv.METRONOME, mv.MIRROR_MOVE)
        moved = not bool(self.replay(side)["cancelled"])
        name = self.ident(*me)
        if not moved:
            if status == _FRZ:
                return {**p, "cant": "frz"}
            if status == _SLP:  # it wakes when its counter runs out
                left = int(a.status_turns[me]) - 1 if int(a.status[me]) == _SLP else int(
                    b.status_turns[me]) if int(b.status[me]) == _SLP else 0
                return {**p, "cant": "slp"} if left > 0 else {**p, "woke": True}
            if trapped:
                return {**p, "cant": "partiallytrapped"}
            if flinched:
                return {**p, "cant": "flinch"}
            if self._has(a, side, cond.MUST_RECHARGE):
                return {**p, "cant": "recharge"}
            if status == 0 and first and first["move"] is not None and int(
                    mv.MOVE_STATUS[first["move"]]) == _SLP and int(a.status[me]) == 0 and not (
                        confused and int(b.hp[me]) < int(a.hp[me])):
                return {**p, "woke": True, "slept": True}  # a one-turn sleep: it wakes at once
        pre = []
        self.counted.add(me)
        # Disable and confusion count down as the Pokémon goes to move and end at 0 (their
        # counters say so: a Haze later in the turn ends them too)
        if self._has(a, side, cond.DISABLE) and not self._ran(first, _HAZE):
            if int(a.disable_turns[me]) == 1:
                pre.append(f"|-end|{name}|Disable")
            elif not moved and selected == int(a.disable_move[me]):
                return {**p, "cant": f"Disable|{self.move_name(selected)}"}
        elif first and not moved and self._has(b, side, cond.DISABLE) and int(
                b.disable_move[me]) == selected:
            # the foe's Disable, earlier this turn, hit the move it was about to use
            return {**p, "cant": f"Disable|{self.move_name(selected)}"}
        # a confusion that does not end now may make it hit itself (a roll before paralysis's)
        calms = self._has(a, side, cond.CONFUSION) and int(a.confusion_turns[me]) == 1
        paralysed = not moved and self._fully_paralysed(side)
        if confused:
            if calms:
                pre.append(f"|-end|{name}|confusion")
            else:
                pre.append(f"|-activate|{name}|confusion")
                if not moved and not paralysed:
                    return {**p, "pre": pre, "hurt": True}
        p["pre"] = pre
        if paralysed:
            return {**p, "cant": "par"}
        if biding:  # Bide's handler: it counts a turn down, or ends and hits with what it stored
            last = int(a.bide_turns[me]) == 1
            return {**p, "bide": "end" if last else "activate",
                    "damaging": last and self._hit_seen(p)}
        calls = self._calls(p, selected) if calling else [selected]
        move = calls[-1]
        charging = bool(mv.MOVE_TWO_TURN[move]) and not self._has(
            a, side, cond.TWO_TURN_MOVE) and not used_pp
        self_target = bool(mv.MOVE_SELF_TARGET[move])
        immune = not bool(mv.MOVE_IGNORE_IMMUNITY[move]) and bool(
            dmg.immune(mv.MOVE_TYPE[move], a.types[foe, target]))
        # a poison move on a Poison type (Showdown rolls the hit first: a miss reads the same)
        immune |= int(mv.MOVE_STATUS[move]) in (_PSN, _TOX) and bool(
            np.any(a.types[foe, target] == _POISON)) and int(a.status[foe, target]) == 0
        damaging = int(mv.MOVE_POWER[move]) > 0 and not self_target and not immune and not charging
        return {**p, "move": move, "callers": calls[:-1], "self_target": self_target,
                "immune": immune, "damaging": damaging, "charge": charging}

    def _calls(self, p: dict, selected: int) -> list[int]:
        """The moves a Metronome or Mirror Move action (plan ``p``) used in turn, each calling
        the next (up to ``MAX_CALLS``), as replayed (``moves._execute``): Metronome picks with
        the turn's next draw after ``BeforeMove`` (``sample`` of the metronome moves), Mirror
        Move calls the foe's last move as it stood, and fails without one (or copying Mirror
        Move)."""
        checked = self.replay(p["side"])["checked"]
        rng = np.asarray(checked.rng)
        copied = int(checked.last_move[p["foe"], checked.party[p["foe"], 0]])
        calls = [selected]
        while calls[-1] in (mv.METRONOME, mv.MIRROR_MOVE) and len(calls) <= mv.MAX_CALLS:
            if calls[-1] == mv.METRONOME:
                rng, pick = prng.random(rng, len(mv.METRONOME_MOVES))
                calls.append(int(mv.METRONOME_MOVES[int(pick)]))
            elif copied in (0, mv.MIRROR_MOVE):
                break
            else:
                calls.append(copied)
        return calls

    def move_name(self, move: int) -> str:
        return _D.move(_D.move_names[move])["name"]

    def play(self, p: dict, dealt: int, hp: dict, emit: bool) -> None:
        """Runs plan ``p`` dealing ``dealt`` to its target on the HP table ``hp`` (writing
        its lines if ``emit``)."""
        a = self.a
        side, user, foe, target, move = p["side"], p["user"], p["foe"], p["target"], p["move"]
        me, them = (side, user), (foe, target)
        lines = list(p["pre"])
        if p["cant"]:
            lines.append(f"|cant|{self.ident(*me)}|{p['cant']}")
        if p["woke"]:
            lines.append(f"|-curestatus|{self.ident(*me)}|slp|[msg]")
            self.status[me] = 0
        if p["hurt"]:
            damage = int(cond.confusion_damage(int(a.level[me]), int(a.mod_stats[me][0]),
                                               int(a.mod_stats[me][1])))
            if not self._has(a, side, cond.SUBSTITUTE):
                hp[me] -= min(damage, hp[me])
                lines.append(f"|-damage|{self.ident(*me)}|{self.health(hp[me], *me)}|"
                             f"[from] confusion")
        if p["bide"]:
            lines.append(f"|-{p['bide']}|{self.ident(*me)}|Bide")
            lines += self._deal(p, dealt, hp, emit)
        lines += [f"|move|{self.ident(*me)}|{self.move_name(c)}|{self.ident(*me)}"
                  for c in p["callers"]]
        if p["charge"]:
            name = self.move_name(move)
            lines += [f"|move|{self.ident(*me)}|{name}||[still]",
                      f"|-prepare|{self.ident(*me)}|{name}"]
        elif move is not None:
            aim = me if p["self_target"] else them
            hit = dealt > 0 if p["damaging"] else (not p["immune"] and self._effect_seen(p))
            # moves that change no stage, status or volatile: their own evidence
            effect = int(mv.MOVE_EFFECT[move])
            copied = self._mimicked(p) if effect == _MIMIC else None
            if effect in (_CONVERSION, _MIMIC, _TRANSFORM):
                hit = (self._converted(p) if effect == _CONVERSION else copied is not None
                       if effect == _MIMIC else self._transformed(p))
            needs_roll = p["damaging"] or int(mv.MOVE_ACCURACY[move]) > 0
            miss = not p["immune"] and not hit and needs_roll and not self._blocked(p)
            lines.append(f"|move|{self.ident(*me)}|{self.move_name(move)}|{self.ident(*aim)}"
                         + ("|[miss]" if miss else ""))
            if miss:
                lines.append(f"|-miss|{self.ident(*me)}")
            if effect == _HAZE:
                lines += self._haze(p)
            if effect == _CONVERSION and hit:
                types = "/".join(_D.type_names[x] for x in a.types[them] if int(x))
                lines.append(f"|-start|{self.ident(*me)}|typechange|{types}|"
                             f"[from] move: Conversion|[of] {self.ident(*them)}")
            if copied is not None:
                lines.append(f"|-start|{self.ident(*me)}|Mimic|{self.move_name(copied)}")
            if effect == _TRANSFORM and hit:
                lines.append(f"|-transform|{self.ident(*me)}|{self.ident(*them)}")
            if p["immune"]:
                lines.append(f"|-immune|{self.ident(*them)}")
            lines += self._deal(p, dealt, hp, emit)
            if bool(mv.MOVE_SELFDESTRUCT[move]):
                hp[me] = 0
            maxhp = int(a.maxhp[me])
            if bool(mv.MOVE_HEAL_HALF[move]) and hit and hp[me] < maxhp:
                hp[me] = min(hp[me] + maxhp // 2, maxhp)
                lines.append(f"|-heal|{self.ident(*me)}|{self.health(hp[me], *me)}")
            lines += self._status_and_volatiles(p, hit and not miss, hp)
        # a burn's or poison's damage after the move (if its target stands) or a cancelled one
        status = STATUSES[int(self.status[me])]
        if status in ("brn", "psn", "tox") and hp[me] > 0 and (move is None or hp[them] > 0):
            hp[me] -= min(max(int(a.maxhp[me]) // 16, 1), hp[me])
            lines.append(f"|-damage|{self.ident(*me)}|{self.health(hp[me], *me)}|[from] psn"
                         if status == "tox" else
                         f"|-damage|{self.ident(*me)}|{self.health(hp[me], *me)}|[from] {status}")
        if emit:
            self.lines += lines

    def _deal(self, p: dict, dealt: int, hp: dict, emit: bool) -> list[str]:
        """Plan ``p`` dealing ``dealt`` to its target on the HP table ``hp``: a move's
        critical hit and type effectiveness (not for what Bide stored), the damage, the move's
        drain and recoil; or its substitute taking the hit."""
        a, move = self.a, mv.BIDE if p["bide"] else p["move"]
        me, them = (p["side"], p["user"]), (p["foe"], p["target"])
        lines = []
        if dealt > 0 and self.subs.get(them) is None:
            lines += self._hit(p, dealt) if emit and not p["bide"] else []
            hp[them] -= dealt
            lines.append(f"|-damage|{self.ident(*them)}|{self.health(hp[them], *them)}")
            drain, recoil = mv.MOVE_DRAIN[move], mv.MOVE_RECOIL[move]
            if int(drain[0]) > 0:
                hp[me] = min(hp[me] + max(dealt * int(drain[0]) // int(drain[1]), 1),
                             int(a.maxhp[me]))
                lines.append(f"|-heal|{self.ident(*me)}|{self.health(hp[me], *me)}|"
                             f"[from] drain|[of] {self.ident(*them)}")
            if int(recoil[0]) > 0:
                hp[me] = max(hp[me] - max(dealt * int(recoil[0]) // int(recoil[1]), 1), 0)
                lines.append(f"|-damage|{self.ident(*me)}|{self.health(hp[me], *me)}|"
                             f"[from] Recoil")
        return lines + self._substitute_hit(p, them)

    def _out_of_reach(self, p: dict) -> bool:
        """The target was in Fly's or Dig's semi-invulnerable turn."""
        return any(self._has(x, p["foe"], cond.INVULNERABILITY, p["target"])
                   for x in (self.a, self.b))

    def _converted(self, p: dict) -> bool:
        """Conversion took its target's types: its user has them now, or had them already
        and the target was not out of reach, the only way Conversion misses."""
        a, b = self.a, self.b
        me, them = (p["side"], p["user"]), (p["foe"], p["target"])
        if np.array_equal(a.types[me], a.types[them]):
            return not self._out_of_reach(p)
        return bool(np.array_equal(b.types[me], a.types[them]))

    def _mimicked(self, p: dict) -> int | None:
        """The move Mimic copied into its slot, read off the replayed state after the move
        (a faint later gives its user back its own moves); ``None``: it missed, or the target
        was out of reach in Fly or Dig (the slot kept a move the foe does not have)."""
        r = self.replay(p["side"])
        pre, used = r["pre"], r["used"]
        me, them = (p["side"], p["user"]), (p["foe"], p["target"])
        slot = int(used.last_slot[p["side"]])
        copied = int(used.moves[me][slot])
        if copied == int(pre.moves[me][slot]) and copied not in {int(m) for m in pre.moves[them]}:
            return None
        return copied

    def _transformed(self, p: dict) -> bool:
        """Transform took: its user is transformed now, and into another form if it was
        already."""
        a, b = self.a, self.b
        me = (p["side"], p["user"])
        return bool(b.transformed[me]) and (not bool(a.transformed[me])
                                            or int(b.form[me]) != int(a.form[me]))

    def _haze(self, p: dict) -> list[str]:
        """Haze's lines (the gen1 mod's ``haze.onHit``): for each Pokémon on the field, p1's
        first, the foe's status cured, the user's Toxic turned into poison, and each volatile
        that Haze removes ended, all silently."""
        a = self.a
        out = [f"|-activate|{self.ident(p['side'], p['user'])}|move: Haze",
               "|-clearallboost|[silent]"]
        for side, t in sorted([(p["side"], p["user"]), (p["foe"], p["target"])]):
            name = self.ident(side, t)
            status = STATUSES[self.status[side, t]]
            if side != p["side"] and status:
                out.append(f"|-curestatus|{name}|{status}|[silent]")
                self.status[side, t] = 0
            elif status == "tox":
                out.append(f"|-status|{name}|psn")
                self.status[side, t] = STATUSES.index("psn")
            held = (int(a.volatiles[side, t]) if int(a.party[side, 0]) == t else 0) | \
                self.gained.get((side, t), 0)
            if (side, t) in self.counted:  # what ran out as it went to move is gone
                held &= ~(cond.CONFUSION if int(a.confusion_turns[side, t]) == 1 else 0)
                held &= ~(cond.DISABLE if int(a.disable_turns[side, t]) == 1 else 0)
            out += [f"|-end|{name}|{shown}|[silent]" for bit, shown in _HAZE_ENDS
                    if held & (1 << VOLATILES.index(bit))]
        return out

    def _substitute_hit(self, p: dict, them: tuple[int, int]) -> list[str]:
        """A damaging move against a substitute: ``|-activate|`` if it took the hit, ``|-end|``
        if it broke (the replayed state after the move says, before a faint clears it)."""
        sub = self.subs.get(them)
        if not p["damaging"] or sub is None:
            return []
        used = self.replay(p["side"])["used"]
        if not self._has(used, them[0], cond.SUBSTITUTE, them[1]):
            self.subs[them] = None
            return [f"|-end|{self.ident(*them)}|Substitute"]
        if int(used.sub_hp[them]) != sub:
            return [f"|-activate|{self.ident(*them)}|Substitute|[damage]"]
        return []

    def _effect_seen(self, p) -> bool:
        """A non-damaging move changed something where it aims (its target's stat stages
        or status; or its user's stages, volatiles or HP)."""
        a, b = self.a, self.b
        if p["self_target"]:
            me = (p["side"], p["user"])
            return bool(np.any(a.boosts[me] != b.boosts[me]) or a.volatiles[me] != b.volatiles[me]
                        or a.hp[me] != b.hp[me])
        them = (p["foe"], p["target"])
        return bool(np.any(a.boosts[them] != b.boosts[them]) or a.status[them] != b.status[them]
                    or a.volatiles[them] != b.volatiles[them] or self._disabled_again(p["foe"])
                    or p.get("felled_foe") or p.get("slept_foe"))

    def _disabled_again(self, side: int) -> bool:
        """``side``'s Pokémon is disabled after its Disable ran out this turn (as it went to
        move): a Disable that came after gave it a new one."""
        a, b = self.a, self.b
        me = (side, int(a.party[side, 0]))
        return self._has(a, side, cond.DISABLE) and int(a.disable_turns[me]) == 1 \
            and self._has(b, side, cond.DISABLE)

    def _blocked(self, p) -> bool:
        """A status move whose effect the target could not take (it fails rather than
        misses)."""
        return int(mv.MOVE_STATUS[p["move"]]) > 0 and int(self.a.status[p["foe"], p["target"]]) > 0

    def _hit(self, p, dealt) -> list[str]:
        a = self.a
        move, side, user, foe, target = p["move"], p["side"], p["user"], p["foe"], p["target"]
        them = self.ident(foe, target)
        if int(mv.MOVE_FIXED[move]) != 0:
            return []
        out = []
        if dealt > self._max_damage(side, user, foe, target, move):
            out.append(f"|-crit|{them}")
        mods = int(np.asarray(dmg.type_modifiers(mv.MOVE_TYPE[move], a.types[foe, target])).sum())
        if mods:
            out.append(f"|-supereffective|{them}" if mods > 0 else f"|-resisted|{them}")
        return out

    def _max_damage(self, side, user, foe, target, move) -> int:
        """The most a move does without a critical hit."""
        a = self.a
        physical = bool(mv.MOVE_PHYSICAL[move])
        atk, dfn = (0, 1) if physical else (2, 3)
        stab = bool(np.any(a.types[side, user] == int(mv.MOVE_TYPE[move])))
        screen = int(a.volatiles[foe, target]) & (
            1 << VOLATILES.index("reflect" if physical else "lightscreen"))
        return int(dmg.damage(
            a.level[side, user], mv.MOVE_POWER[move], a.mod_stats[side, user, atk],
            a.mod_stats[foe, target, dfn], a.base_stats[side, user, atk], a.base_stats[foe, target, dfn],
            stab, dmg.type_modifiers(mv.MOVE_TYPE[move], a.types[foe, target]), False,
            dmg.MAX_ROLL, screen > 0, bool(mv.MOVE_SELFDESTRUCT[move]) and physical))

    def _status_and_volatiles(self, p, hit, hp) -> list[str]:
        """The lines of what a move gave: the target's status (or a thaw), Rest's sleep,
        Substitute, and the volatiles that announce themselves on the user or the target."""
        a, b = self.a, self.b
        side, user, foe, target, move = p["side"], p["user"], p["foe"], p["target"], p["move"]
        me, them = (side, user), (foe, target)
        out = []
        gained = int(self.replay(side)["used"].status[them])  # (before a foe's Rest or Haze)
        if self.status[them] == 0 and gained != 0 and gained in (
                int(mv.MOVE_STATUS[move]), int(mv.MOVE_SECONDARY_STATUS[move])):
            self.status[them] = gained
            out.append(f"|-status|{self.ident(*them)}|{STATUSES[gained]}")
        if p.get("slept_foe") and self.status[them] != _SLP:  # a one-turn sleep: the foe
            # wakes as it tries to move
            self.status[them] = _SLP
            out.append(f"|-status|{self.ident(*them)}|slp")
        if int(a.status[them]) == _FRZ and int(b.status[them]) == 0 and bool(
                mv.MOVE_THAWS[move]) and hit:
            self.status[them] = 0
            out.append(f"|-curestatus|{self.ident(*them)}|frz|[msg]")
        if int(mv.MOVE_EFFECT[move]) == _SUBSTITUTE and self.subs.get(me) is None and \
                4 * hp[me] >= int(a.maxhp[me]):
            self.subs[me] = int(a.maxhp[me]) // 4 + 1
            if int(a.maxhp[me]) > 3:
                hp[me] -= min(int(a.maxhp[me]) // 4, hp[me])
            out.append(f"|-start|{self.ident(*me)}|Substitute")
        # (the foe's Haze may have cured the sleep already: the full HP tells then)
        if int(mv.MOVE_EFFECT[move]) == _REST and int(a.status[me]) != _SLP and int(
                self.replay(side)["used"].status[me]) == _SLP:  # (a foe's Haze may cure it)
            self.status[me] = _SLP
            hp[me] = int(a.maxhp[me])
            out.append(f"|-status|{self.ident(*me)}|slp|[from] move: Rest")
        had = int(a.volatiles[me])
        if bool(b.fainted[me]):  # fainting cleared them: what the move gave
            gained = (int(mv.MOVE_VOLATILE[move]) | (cond.BIDE if move == mv.BIDE else 0)
                      ) & ~had if hit else 0
            if hit and bool(mv.MOVE_RECHARGE[move]) and not bool(b.fainted[them]):
                gained |= _RECHARGE
        elif p.get("hazed_after"):  # the foe's Haze then cleared what a self move gave
            gained = int(b.volatiles[me]) & ~had | (
                int(mv.MOVE_VOLATILE[move]) & ~had if p["self_target"] else 0)
        else:
            gained = int(b.volatiles[me]) & ~had
            # a sleep move on a Pokémon that must recharge removes the recharge, and so does
            # a partial trapping move (hit or miss) the foe then uses
            foe_traps = self.actions[foe] < FIRST_SWITCH and bool(
                np.any(a.pp[them] != b.pp[them])) and bool(mv.MOVE_TRAPS[self.selected(foe)])
            if hit and bool(mv.MOVE_RECHARGE[move]) and not bool(b.fainted[them]) and (int(
                    b.status[me]) == _SLP and int(a.status[me]) != _SLP or foe_traps):
                gained |= _RECHARGE
        self.gained[me] = gained
        for i, v in enumerate(VOLATILES):
            if gained >> i & 1 and v in _STARTS:
                out.append(f"|-start|{self.ident(*me)}|{_STARTS[v]}")
        # Thrash and Petal Dance confuse their user as their lock ends (again, if its
        # confusion ran out as it went to move)
        ran_out = self._has(a, side, cond.CONFUSION) and int(a.confusion_turns[me]) == 1
        if self._has(a, side, cond.LOCKED_MOVE) and not self._has(b, side, cond.LOCKED_MOVE) \
                and self._has(b, side, cond.CONFUSION) and (gained & cond.CONFUSION or ran_out):
            out.append(f"|-start|{self.ident(*me)}|confusion|[silent]")
        if gained & _RECHARGE:
            out.append(f"|-mustrecharge|{self.ident(*me)}")
        if int(b.party[foe, 0]) == target and not bool(b.fainted[them]):
            foe_gained = int(b.volatiles[them]) & ~int(a.volatiles[them])
            if them in self.counted and int(a.confusion_turns[them]) == 1 and self._has(
                    b, foe, cond.CONFUSION):  # it ran out as the foe moved, and came anew
                foe_gained |= cond.CONFUSION
            confuses = bool(mv.MOVE_CONFUSES[move]) or bool(
                int(mv.MOVE_SECONDARY_VOLATILE[move]) & cond.CONFUSION)
            if self._has(a, foe, cond.LOCKED_MOVE) and not confuses:
                foe_gained &= ~cond.CONFUSION  # its own Thrash's end confused it
            for i, v in enumerate(VOLATILES):
                if foe_gained >> i & 1 and v in _FOE_STARTS:
                    out.append(f"|-start|{self.ident(*them)}|{_FOE_STARTS[v]}")
            if foe_gained & cond.DISABLE or self._disabled_again(foe):
                out.append(f"|-start|{self.ident(*them)}|Disable|"
                           f"{self.move_name(int(b.disable_move[them]))}")
        elif p.get("felled_foe"):
            out.append(f"|-start|{self.ident(*them)}|confusion")
        return out

    def damage_dealt(self, plans: list[dict]) -> list[int]:
        """The damage each plan's move dealt its target: the values that, played in order,
        end at the HP of the next state (the first mover's searched, the second's then read
        off its target); None if none fits."""
        start = self.start
        final = {k: int(self.b.hp[k]) for k in start}

        def candidates(p):
            if not p["damaging"]:
                return (0,)
            first = self.plain_damage(plans)[0]
            return [first] + [d for d in range(start[(p["foe"], p["target"])] + 1) if d != first]

        saved, subs = dict(self.status), dict(self.subs)
        for first in candidates(plans[0]):
            hp = dict(start)
            self.play(plans[0], first, hp, emit=False)
            dealt = [first]
            if len(plans) == 2:
                p = plans[1]
                target = (p["foe"], p["target"])
                second = hp[target] - final[target] if p["damaging"] else 0
                if second < 0 or hp[(p["side"], p["user"])] == 0:  # it moved: it stood
                    self.status, self.subs = dict(saved), dict(subs)
                    continue
                self.play(p, second, hp, emit=False)
                dealt.append(second)
            fits = hp == final and self._subs_fit()
            self.status, self.subs = dict(saved), dict(subs)
            if fits:
                return dealt
        self.status, self.subs = saved, subs
        return None

    def _subs_fit(self) -> bool:
        """The substitutes as the lines left them are the next state's."""
        b = self.b
        return all((sub is None) == (not self._has(b, s, cond.SUBSTITUTE, t))
                   for (s, t), sub in self.subs.items()
                   if int(b.party[s, 0]) == t and not bool(b.fainted[s, t]))

    def plain_damage(self, plans: list[dict]) -> list[int]:
        """Each damaging move's target's HP loss over the whole decision."""
        b = self.b
        return [max(self.start[p["foe"], p["target"]] - int(b.hp[p["foe"], p["target"]]), 0)
                if p["damaging"] else 0 for p in plans]

    def run(self) -> list[str]:
        a, b = self.a, self.b
        self.lines.append("|")
        order = self.order()
        self.start = {(s, int(x.party[s, 0])): int(a.hp[s, x.party[s, 0]])
                      for x in (a, b) for s in range(2)}
        switch_faint = False
        for side in order:
            t = int(b.party[side, 0])
            if t != int(a.party[side, 0]):
                self.lines.append(self.switch_line(side, t))
                # a badly poisoned Pokémon comes in merely poisoned; a burned or poisoned one
                # is hurt, unless it replaces a fainted one
                status = STATUSES[self.status[side, t]]
                if status == "tox":
                    self.status[side, t] = _PSN
                    self.lines.append(f"|-status|{self.ident(side, t)}|psn|[silent]")
                    status = "psn"
                if status in ("brn", "psn") and int(a.request[side]) != 2:  # (not a replacement)
                    hp = self.start[side, t]
                    hp -= min(max(int(a.maxhp[side, t]) // 16, 1), hp)
                    self.start[side, t] = hp
                    self.lines.append(f"|-damage|{self.ident(side, t)}|"
                                      f"{self.health(hp, side, t)}|[from] {status}")
                    if hp == 0:
                        self.lines.append(f"|faint|{self.ident(side, t)}")
                        switch_faint = True
                        break
        movers = [] if switch_faint else [s for s in order
                                          if int(b.party[s, 0]) == int(a.party[s, 0])]
        if len(movers) == 2 and bool(self.replay(movers[0])["halted"]):
            movers = movers[:1]  # a faint in the first action ended the turn
        plans = []
        for s in movers:
            plans.append(self.plan(s, plans[0] if plans else None))
        if len(plans) == 2:
            plans[0]["slept_foe"] = plans[1]["slept"]
            plans[0]["felled_foe"] = self._felled_by_confusion(plans[0], plans[1]["side"])
            plans[0]["hazed_after"] = self._ran(plans[1], _HAZE)
        if plans:
            hp = dict(self.start)
            for p, dealt in zip(plans, self.damage_dealt(plans) or self.plain_damage(plans)):
                self.play(p, dealt, hp, emit=True)
        for s in (1 - movers[-1], movers[-1]) if movers else ():
            if self.newly_fainted(s):
                self.lines.append(f"|faint|{self.ident(s, int(b.party[s, 0]))}")
        ended = int(b.winner) != NO_WINNER
        if int(b.turn) > int(a.turn) and not ended:
            if int(a.request[0]) == 1 or int(a.request[1]) == 1:
                self.lines += ["|", "|upkeep"]
            self.lines.append(f"|turn|{int(b.turn)}")
        if ended:
            self.lines.append({P1: "|win|p1", P2: "|win|p2"}.get(int(b.winner), "|tie"))
        return self.lines


def start_lines(state: BattleState) -> list[str]:
    """The leads coming out and turn 1 (the state ``turn.start`` returns)."""
    s = _np(state)
    step = _Step(s, s, np.zeros(2, np.int32))
    return (["|start"] + [step.switch_line(side, int(s.party[side, 0])) for side in range(2)]
            + [f"|turn|{int(s.turn)}"])


def protocol_log(states: BattleState, actions) -> list[list[str]]:
    """Per decision (and first the start), the protocol lines (module docstring)."""
    states = _np(states)
    actions = np.asarray(actions)
    n = len(actions)
    at = [jax.tree_util.tree_map(lambda x, k=k: x[k], states) for k in range(n + 1)]
    out = [start_lines(at[0])]
    for k in range(n):
        out.append(_Step(at[k], at[k + 1], actions[k]).run())
    return out
