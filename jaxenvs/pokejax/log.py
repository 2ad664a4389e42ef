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

The engine keeps no event record, so the lines are read off the difference between
consecutive states, with the action order Showdown uses (switches first, then move priority,
then Speed, a tie settled by the step's first ``random(0, 2)``; a faint ends the turn). The
kinds in ``EXACT_KINDS`` are checked against Showdown's own log line by line
(``tests/pokejax/test_log.py``): ``|switch|``, ``|move|`` (user, move, target), ``|cant|``,
``|-status|`` (Pokémon, status), ``|-start|``, ``|-mustrecharge|``, ``|faint|``, ``|turn|``,
``|win|`` and ``|tie|``. Two readings the states cannot tell apart are settled by the likelier
one: a paralysed Pokémon with no PP that left all HP alone was fully paralysed (not a 1/256
miss of Struggle), and a second action without PP use after a faint ran only if the HP of
the next state cannot be reached without it.

The ``INFERRED_KINDS`` may differ from Showdown's. The damage each move dealt is the value
that, replayed with the moves' recoil, drain, healing and burn/poison damage, ends at the next
state's HP (the first fitting value, starting from the plain HP difference); ``|-damage|``
and ``|-heal|`` show the HP along that replay. When several values fit (a hit healed back by
the target's own drain, say) it may pick a wrong one, and with it ``|-miss|`` (and the move
line's ``[miss]``: a move that needs a hit and changed nothing), ``|-crit|`` (damage out of
reach without a critical hit at the highest roll), ``|-supereffective|``/``|-resisted|`` (a
damaging move that hit) and ``|-immune|`` (a poison move on a Poison type reads the same as a
miss). ``|-boost|``/``|-unboost|`` and ``|-fail|`` are not written. Names are species names
(Showdown shows nicknames; the state has none) and players are ``p1`` and ``p2``.
"""

from __future__ import annotations

import jax
import numpy as np

from jaxenvs.pokejax import damage as dmg
from jaxenvs.pokejax import moves as mv
from jaxenvs.pokejax import prng
from jaxenvs.pokejax.data import gen1
from jaxenvs.pokejax.state import NO_WINNER, P1, P2, STATUSES, VOLATILES, BattleState
from jaxenvs.pokejax.turn import FIRST_SWITCH

#: The line kinds whose every line equals Showdown's (see the module docstring; for ``move``
#: and ``-status`` the first three and two arguments).
EXACT_KINDS = ("switch", "move", "cant", "-status", "-start", "-mustrecharge", "faint",
               "turn", "win", "tie")
#: The line kinds written by inference (module docstring), which may differ from Showdown's.
INFERRED_KINDS = ("-damage", "-heal", "-crit", "-miss", "-immune", "-supereffective",
                  "-resisted")
#: The moves whose lines this module reads off the states (their effects are damage, fixed
#: damage, recoil, drain, healing, stat stages, paralysis, burn and poison, screens, Focus
#: Energy, Self-Destruct and Hyper Beam's recharge). Other moves (sleep, confusion, flinch,
#: two-turn, multi-hit, Rest, Substitute, ...) show lines (``|-curestatus|``, ``|-prepare|``,
#: ``|-hitcount|``, ``|-activate|``, ...) that are not written yet.
LOGGED_MOVES: frozenset[str] = frozenset((
    "pound", "karatechop", "megapunch", "scratch", "visegrip", "cut", "gust", "wingattack",
    "slam", "vinewhip", "megakick", "hornattack", "tackle", "watergun", "hydropump", "surf",
    "peck", "drillpeck", "strength", "razorleaf", "rockthrow", "earthquake", "quickattack",
    "eggbomb", "waterfall", "swift", "dizzypunch", "crabhammer", "rockslide", "triattack",
    "slash", "sonicboom", "dragonrage", "seismictoss", "nightshade", "superfang", "struggle",
    "takedown", "doubleedge", "submission", "absorb", "megadrain", "leechlife", "swordsdance",
    "agility", "amnesia", "growth", "meditate", "sharpen", "harden", "withdraw", "barrier",
    "acidarmor", "doubleteam", "growl", "leer", "tailwhip", "stringshot", "screech",
    "sandattack", "smokescreen", "kinesis", "flash", "acid", "bubblebeam", "aurorabeam",
    "constrict", "bubble", "psychic", "thunderwave", "stunspore", "glare", "bodyslam",
    "thundershock", "thunderbolt", "thunderpunch", "lick", "ember", "flamethrower",
    "firepunch", "fireblast", "poisonsting", "sludge", "smog", "poisonpowder", "poisongas",
    "selfdestruct", "explosion", "recover", "softboiled", "reflect", "lightscreen",
    "focusenergy", "hyperbeam"))
#: ``|-start|`` effect names of the volatiles that announce themselves.
_STARTS = {"reflect": "Reflect", "lightscreen": "Light Screen",
           "focusenergy": "move: Focus Energy", "confusion": "confusion"}
_RECHARGE = 1 << VOLATILES.index("mustrecharge")
_D = gen1()
_POISON = _D.type_index["Poison"]
_PSN = STATUSES.index("psn")
_SWITCH_ORDER, _MOVE_ORDER = 103, 200


def _np(state: BattleState) -> BattleState:
    return jax.tree_util.tree_map(np.asarray, state)


class _Step:
    """One decision, from ``a`` to ``b`` with ``actions``: its lines."""

    def __init__(self, a: BattleState, b: BattleState, actions: np.ndarray):
        self.a, self.b, self.actions = a, b, [int(x) for x in actions]
        self.lines: list[str] = []
        self.status = {(s, t): int(a.status[s, t]) for s in range(2) for t in range(6)}
        """Status ids as the lines go (a move's status shows from its ``|-status|`` on)."""
        self.start: dict[tuple[int, int], int] = {}
        """HP of the Pokémon on the field once the switches are done (``run``)."""

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

    # -- the order of the actions ---------------------------------------------------------
    def order(self) -> list[int]:
        """The sides that had an action this decision, in Showdown's order."""
        a = self.a
        acting = [s for s in range(2) if int(a.request[s]) != 0]
        if len(acting) < 2:
            return acting
        keys = []
        for s in range(2):
            act = self.actions[s]
            user = int(a.party[s, 0])
            switching = act >= FIRST_SWITCH or int(a.request[s]) == 2
            move = int(a.moves[s, user, min(act, 3)])
            locked = bool(int(a.volatiles[s, user]) & _RECHARGE)
            priority = 0 if switching or locked else int(mv.MOVE_PRIORITY[move])
            keys.append((-(_SWITCH_ORDER if switching else _MOVE_ORDER), priority,
                         int(a.mod_stats[s, user, 4])))
        if keys[0] != keys[1]:
            return [0, 1] if keys[0] > keys[1] else [1, 0]
        _, r = prng.random(np.asarray(a.rng), 0, 2)  # the step's first draw: the tie-break
        return [int(r), 1 - int(r)]

    # -- events ----------------------------------------------------------------------------
    def newly_fainted(self, side: int) -> bool:
        t = int(self.b.party[side, 0])
        return bool(self.b.fainted[side, t]) and not bool(self.a.fainted[side, t])

    def ran(self, side: int, plans: list[dict]) -> bool:
        """Whether ``side``'s action, second in the order after ``plans[0]``, ran (a faint
        in the first action ends the turn): it did if it used PP or no Pokémon fainted;
        otherwise if only its running explains the HP of the next state."""
        a, b = self.a, self.b
        user = int(a.party[side, 0])
        if bool(np.any(a.pp[side, user] != b.pp[side, user])) or \
                not any(self.newly_fainted(s) for s in range(2)):
            return True
        return self.damage_dealt(plans[:1]) is None and self.damage_dealt(plans) is not None

    def plan(self, side: int) -> dict:
        """What ``side``'s move action was: a ``cant`` (recharge, full paralysis) or a move,
        with what the state difference says of it."""
        a, b = self.a, self.b
        foe = 1 - side
        user, target = int(a.party[side, 0]), int(b.party[foe, 0])
        p = {"side": side, "user": user, "foe": foe, "target": target, "move": None,
             "damaging": False}
        used_pp = bool(np.any(a.pp[side, user] != b.pp[side, user]))
        struggle = not bool(np.any((a.moves[side, user] > 0) & (a.pp[side, user] > 0)))
        if int(a.volatiles[side, user]) & _RECHARGE:
            return {**p, "cant": "recharge"}
        # Struggle uses no PP: a paralysed struggler that left every HP alone was (almost
        # surely: the other reading is a 1/256 miss) fully paralysed
        unmoved = all(int(a.hp[k]) == int(b.hp[k]) for k in ((side, user), (foe, target)))
        if not used_pp and (not struggle or (STATUSES[int(a.status[side, user])] == "par"
                                             and unmoved)):
            return {**p, "cant": STATUSES[int(b.status[side, user])]}
        move = mv.STRUGGLE if struggle else int(a.moves[side, user, min(self.actions[side], 3)])
        self_target = bool(mv.MOVE_SELF_TARGET[move])
        immune = not bool(mv.MOVE_IGNORE_IMMUNITY[move]) and bool(
            dmg.immune(mv.MOVE_TYPE[move], a.types[foe, target]))
        # a poison move on a Poison type (Showdown rolls the hit first: a miss reads the same)
        immune |= int(mv.MOVE_STATUS[move]) == _PSN and bool(
            np.any(a.types[foe, target] == _POISON)) and int(a.status[foe, target]) == 0
        damaging = int(mv.MOVE_POWER[move]) > 0 and not self_target and not immune
        return {**p, "cant": None, "move": move, "self_target": self_target, "immune": immune,
                "damaging": damaging}

    def play(self, p: dict, dealt: int, hp: dict, emit: bool) -> None:
        """Runs plan ``p`` dealing ``dealt`` to its target on the HP table ``hp`` (writing
        its lines if ``emit``)."""
        a = self.a
        side, user, foe, target, move = p["side"], p["user"], p["foe"], p["target"], p["move"]
        me, them = (side, user), (foe, target)
        lines = []
        if move is None:
            lines.append(f"|cant|{self.ident(*me)}|{p['cant']}")
        else:
            aim = me if p["self_target"] else them
            hit = dealt > 0 if p["damaging"] else (not p["immune"] and self._effect_seen(p))
            needs_roll = p["damaging"] or int(mv.MOVE_ACCURACY[move]) > 0
            miss = not p["immune"] and not hit and needs_roll and not self._blocked(p)
            name = _D.move(_D.move_names[move])["name"]
            lines.append(f"|move|{self.ident(*me)}|{name}|{self.ident(*aim)}"
                         + ("|[miss]" if miss else ""))
            if miss:
                lines.append(f"|-miss|{self.ident(*me)}")
            if p["immune"]:
                lines.append(f"|-immune|{self.ident(*them)}")
            if dealt > 0:
                lines += self._hit(p, dealt)
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
            if bool(mv.MOVE_SELFDESTRUCT[move]):
                hp[me] = 0
            maxhp = int(a.maxhp[me])
            if bool(mv.MOVE_HEAL_HALF[move]) and hit and hp[me] < maxhp:
                hp[me] = min(hp[me] + maxhp // 2, maxhp)
                lines.append(f"|-heal|{self.ident(*me)}|{self.health(hp[me], *me)}")
            lines += self._status_and_volatiles(p, hit and not miss)
        # a burn's or poison's damage after the move (if its target stands) or a cancelled one
        status = STATUSES[int(self.status[me])]
        if status in ("brn", "psn") and hp[me] > 0 and (move is None or hp[them] > 0):
            hp[me] -= min(max(int(a.maxhp[me]) // 16, 1), hp[me])
            lines.append(f"|-damage|{self.ident(*me)}|{self.health(hp[me], *me)}|[from] {status}")
        if emit:
            self.lines += lines

    def _effect_seen(self, p) -> bool:
        """A non-damaging move changed something where it aims (its target's stat stages
        or status; or its user's stages, volatiles or HP)."""
        a, b = self.a, self.b
        if p["self_target"]:
            me = (p["side"], p["user"])
            return bool(np.any(a.boosts[me] != b.boosts[me]) or a.volatiles[me] != b.volatiles[me]
                        or a.hp[me] != b.hp[me])
        them = (p["foe"], p["target"])
        return bool(np.any(a.boosts[them] != b.boosts[them]) or a.status[them] != b.status[them])

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

    def _status_and_volatiles(self, p, hit) -> list[str]:
        a, b = self.a, self.b
        side, user, foe, target, move = p["side"], p["user"], p["foe"], p["target"], p["move"]
        out = []
        if int(a.status[foe, target]) == 0 and int(b.status[foe, target]) != 0:
            self.status[foe, target] = int(b.status[foe, target])
            out.append(f"|-status|{self.ident(foe, target)}|"
                       f"{STATUSES[int(b.status[foe, target])]}")
        had = int(a.volatiles[side, user])
        if bool(b.fainted[side, user]):  # fainting cleared them: what the move gave
            gained = int(mv.MOVE_VOLATILE[move]) & ~had if hit else 0
            if hit and bool(mv.MOVE_RECHARGE[move]) and not bool(b.fainted[foe, target]):
                gained |= _RECHARGE
        else:
            gained = int(b.volatiles[side, user]) & ~had
        for i, v in enumerate(VOLATILES):
            if gained >> i & 1 and v in _STARTS:
                out.append(f"|-start|{self.ident(side, user)}|{_STARTS[v]}")
        if gained & _RECHARGE:
            out.append(f"|-mustrecharge|{self.ident(side, user)}")
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

        saved = dict(self.status)
        for first in candidates(plans[0]):
            hp = dict(start)
            self.play(plans[0], first, hp, emit=False)
            dealt = [first]
            if len(plans) == 2:
                p = plans[1]
                target = (p["foe"], p["target"])
                second = hp[target] - final[target] if p["damaging"] else 0
                if second < 0 or hp[(p["side"], p["user"])] == 0:  # it moved: it stood
                    self.status = dict(saved)
                    continue
                self.play(p, second, hp, emit=False)
                dealt.append(second)
            self.status = dict(saved)
            if hp == final:
                return dealt
        self.status = saved
        return None

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
                # a burned or poisoned Pokémon is hurt as it comes in
                status = STATUSES[self.status[side, t]]
                if status in ("brn", "psn"):
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
        plans = [self.plan(s) for s in movers]
        if len(movers) == 2 and not self.ran(movers[1], plans):
            movers, plans = movers[:1], plans[:1]
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
