"""Python side of the Showdown reference: one Node process running ``harness.js``, JSON lines.

``ShowdownProcess`` starts ``node harness.js`` and speaks one JSON object per line each way. It
creates battles from packed teams and a Gen 5 LCG seed (four 16-bit words), applies both sides'
choices, and returns a *report* after each decision::

    {"turn", "ended", "winner", "request_state", "last_damage",
     "sides": [{"id", "pokemon_left", "last_move", "last_selected_move",
                "last_selected_move_slot", "side_conditions", "request", "legal": ["move 1", ...],
                "pokemon": [{"team_index", "species", "hp", "maxhp", "status", "status_state",
                             "boosts", "volatiles", "moves": [{"id", "pp", "maxpp", "disabled"}],
                             "active", "fainted", "types", "stored_stats", "modified_stats",
                             "transformed", "last_move", ...}, ...]}, ...],
     "log": [protocol lines since the last report],
     "rng": [{"fn", "args", "result", "raw": [LCG outputs], "caller"?}, ...]}

``sides[i]["pokemon"]`` is in Showdown's current party order (a switch swaps two entries), which
is the order ``switch j`` refers to; ``team_index`` is the Pokémon's place in the team as given.
``rng`` lists every call into the battle's PRNG since the last report, outermost calls only:
``random`` (args ``[n]`` or ``[m, n]``), ``randomChance`` (``[a, b]``), ``sample`` (args: the list
length; result: the index drawn), ``shuffle`` (args: length, start, end; result: the new order as
indices into the old list).

``play_random`` plays a whole battle inside Node with uniformly random legal choices drawn from a
second Gen 5 LCG (``policy_seed``), which is the fast way to record many trajectories.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

#: The folder holding ``package.json``, the lock file and ``harness.js``.
REFERENCE_DIR = Path(__file__).resolve().parent
HARNESS = REFERENCE_DIR / "harness.js"
#: The Showdown version the lock file pins; the harness reports what it loaded.
SHOWDOWN_VERSION = "0.11.11"
DEFAULT_FORMAT = "gen1randombattle"


def _install_hint() -> str:
    try:
        where = os.path.relpath(REFERENCE_DIR)
    except ValueError:
        where = str(REFERENCE_DIR)
    return f"npm ci --prefix {where}"


class ReferenceUnavailable(RuntimeError):
    """Node or the pinned ``pokemon-showdown`` package is missing; the message says what to run."""


class ShowdownError(RuntimeError):
    """The harness rejected a command (bad choice, bad team, unknown battle...)."""


def reference_problem(node: str = "node") -> str | None:
    """Why the reference cannot run here (a sentence naming what to install), or None if it can."""
    if shutil.which(node) is None:
        return (f"Node.js ({node!r}) is not on PATH: install Node >= 18, then run "
                f"`{_install_hint()}`")
    if not (REFERENCE_DIR / "node_modules" / "pokemon-showdown" / "package.json").exists():
        return (f"pokemon-showdown is not installed in {REFERENCE_DIR}: run `{_install_hint()}`")
    return None


Seed = Sequence[int]


def _seed(seed: Seed) -> list[int]:
    words = [int(w) for w in seed]
    if len(words) != 4 or not all(0 <= w < 1 << 16 for w in words):
        raise ValueError(f"a Gen 5 LCG seed is four integers in [0, 65536), got {seed!r}")
    return words


@dataclass
class Trajectory:
    """One battle played to its end (or ``max_steps``): inputs and the report after each step."""

    seed: list[int]
    """The battle's Gen 5 LCG seed."""
    teams: tuple[str, str]
    """p1's and p2's packed teams."""
    initial: dict[str, Any] | None
    """The report before the first decision (leads sent out, turn 1)."""
    choices: list[dict[str, str]] = field(default_factory=list)
    """Per decision step: ``{"p1": choice, "p2": choice}``, a side absent when it had to wait."""
    reports: list[dict[str, Any]] = field(default_factory=list)
    """Per decision step: the report after it."""
    winner: str | None = None
    """``"p1"``, ``"p2"``, ``""`` for a tie, None if not ended."""
    policy_seed: list[int] | None = None
    """The seed of the random policy that chose (None if the choices came from elsewhere)."""

    num_decisions: int = 0
    """Decision steps played (also when ``choices`` and ``reports`` were not recorded)."""
    num_choices: int = 0
    """Choices made in them: one or two per decision step (a player waiting makes none)."""

    def rng_calls(self) -> list[dict[str, Any]]:
        """Every PRNG call of the battle, in order."""
        calls = list(self.initial["rng"]) if self.initial else []
        for report in self.reports:
            calls.extend(report["rng"])
        return calls


class ShowdownProcess:
    """A running ``node harness.js``; use as a context manager or call ``close()``.

    Commands are synchronous: each writes one line and reads one answer line.
    """

    def __init__(self, node: str = "node", start: bool = True):
        self.node = node
        self._proc: subprocess.Popen | None = None
        if start:
            self.start()

    # -- process ------------------------------------------------------------------------------

    def start(self) -> None:
        """Starts the Node process (raises ``ReferenceUnavailable`` naming what to install)."""
        if self._proc is not None:
            return
        problem = reference_problem(self.node)
        if problem:
            raise ReferenceUnavailable(problem)
        # stderr goes to a file: a pipe nobody reads could fill up and stall Node
        self._stderr = tempfile.TemporaryFile(mode="w+", encoding="utf-8")
        self._proc = subprocess.Popen(
            [self.node, str(HARNESS)], cwd=REFERENCE_DIR, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=self._stderr, text=True, encoding="utf-8",
            bufsize=1)
        version = self.call("version")["showdown"]
        if version != SHOWDOWN_VERSION:
            self.close()
            raise ReferenceUnavailable(
                f"pokemon-showdown {version} is installed, {SHOWDOWN_VERSION} is pinned: run "
                f"`{_install_hint()}`")

    def close(self) -> None:
        """Ends the Node process."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        proc.stdin.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        self._stderr.close()

    def __enter__(self) -> "ShowdownProcess":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def call(self, cmd: str, **args: Any) -> dict[str, Any]:
        """Sends one command and returns the harness's answer (raises ``ShowdownError``)."""
        if self._proc is None:
            raise RuntimeError("the Showdown process is not running (call start())")
        self._proc.stdin.write(json.dumps({"cmd": cmd, **args}) + "\n")
        self._proc.stdin.flush()
        line = self._proc.stdout.readline()
        if not line:
            self._proc.wait()
            self._stderr.seek(0)
            err = self._stderr.read()
            self.close()
            raise ShowdownError(f"the harness exited during {cmd!r}: {err.strip()}")
        answer = json.loads(line)
        if not answer.pop("ok"):
            raise ShowdownError(f"{cmd}: {answer['error']}")
        return answer

    # -- battles ------------------------------------------------------------------------------

    def new_battle(self, p1: str, p2: str, seed: Seed, format: str = DEFAULT_FORMAT,
                   callers: bool = False) -> tuple[int, dict[str, Any]]:
        """Starts a battle between packed teams ``p1`` and ``p2``; returns (battle id, report).

        ``callers`` adds to each PRNG call the three innermost Showdown frames that made it
        (slower: a stack trace per call).
        """
        answer = self.call("new_battle", format=format, seed=_seed(seed), p1=p1, p2=p2,
                           callers=callers)
        return answer["battle"], answer["report"]

    def choose(self, battle: int, p1: str | None = None, p2: str | None = None) -> dict[str, Any]:
        """Applies the choices (``"move i"``, ``"switch j"``, 1-based) and returns the report."""
        return self.call("choose", battle=battle, p1=p1, p2=p2)["report"]

    def state(self, battle: int) -> dict[str, Any]:
        """The battle's state (a report without ``log`` and ``rng``; consumes neither)."""
        return self.call("state", battle=battle)["state"]

    def check_choices(self, battle: int) -> dict[str, list[str]]:
        """Per side, which of ``move 1-4`` and ``switch 1-6`` Showdown's ``side.choose``
        accepts now (tried and withdrawn, nothing committed; raises if that drew from the PRNG).
        """
        answer = self.call("check_choices", battle=battle)
        if answer["rng_touched"]:
            raise ShowdownError("check_choices drew from the battle PRNG")
        return answer["accepted"]

    def close_battle(self, battle: int) -> None:
        self.call("close", battle=battle)

    def random_battle(self, seed: Seed, teams: tuple[str, str], policy_seed: Seed = (0, 0, 0, 0),
                      format: str = DEFAULT_FORMAT, record: bool = True, callers: bool = False,
                      max_steps: int = 10000) -> Trajectory:
        """Plays a random-vs-random battle in Node; with ``record``, every step's choices and
        report (without, only ``winner`` and ``num_decisions``: the speed measurement)."""
        answer = self.call("play_random", format=format, seed=_seed(seed), p1=teams[0],
                           p2=teams[1], policy_seed=_seed(policy_seed), record=record,
                           callers=callers, max_steps=max_steps, record_rng=record)
        steps = answer["steps"]
        return Trajectory(seed=_seed(seed), teams=(teams[0], teams[1]), initial=answer["initial"],
                          choices=[s["choices"] for s in steps],
                          reports=[s["report"] for s in steps], winner=answer["winner"],
                          policy_seed=_seed(policy_seed), num_decisions=answer["n_steps"],
                          num_choices=answer["n_choices"])

    def replay(self, seed: Seed, teams: tuple[str, str], choices: Sequence[dict[str, str]],
               format: str = DEFAULT_FORMAT) -> Trajectory:
        """Plays ``choices`` step by step from Python and records the reports."""
        battle, initial = self.new_battle(teams[0], teams[1], seed, format)
        traj = Trajectory(seed=_seed(seed), teams=(teams[0], teams[1]), initial=initial)
        try:
            for step in choices:
                report = self.choose(battle, step.get("p1"), step.get("p2"))
                traj.choices.append(dict(step))
                traj.reports.append(report)
            traj.num_decisions = len(traj.choices)
            traj.num_choices = sum(len(step) for step in traj.choices)
            traj.winner = traj.reports[-1]["winner"] if traj.reports else None
        finally:
            self.close_battle(battle)
        return traj

    # -- teams, data, PRNG --------------------------------------------------------------------

    def generate_teams(self, seeds: Sequence[Seed], format: str = DEFAULT_FORMAT
                       ) -> list[dict[str, Any]]:
        """Showdown's random team generator, one team per seed (``Teams.generate``).

        Each team: ``{"packed": str, "sets": [{"species", "level", "moves", "evs", "ivs"}]}``.
        """
        return self.call("generate_teams", format=format,
                         seeds=[_seed(s) for s in seeds])["teams"]

    def dump_data(self, mod: str = "gen1") -> dict[str, Any]:
        """Species, moves, type chart and per-species learnable moves of a Showdown mod."""
        return self.call("dump_data", mod=mod)

    def validate(self, team: str, format: str = "gen1ou") -> list[str]:
        """Showdown's validator's problems with an exported or packed team (empty: legal)."""
        return self.validated(team, format)[0]

    def validated(self, team: str, format: str = "gen1ou"
                  ) -> tuple[list[str], list[dict[str, Any]]]:
        """Showdown's validator's problems with a team, and the sets as it leaves them (EVs,
        IVs and level filled where the text gives none; ``import_team``'s form)."""
        answer = self.call("validate", format=format, team=team)
        return answer["problems"], answer["sets"]

    def format_rules(self, format: str) -> dict[str, Any]:
        """A format's rule table (``rules``: rule ids; ``complex_bans``) and its other fields
        (``fields``: each as text)."""
        return self.call("format_rules", format=format)

    def import_team(self, team: str) -> list[dict[str, Any]] | None:
        """Showdown's own parse of an exported or packed team (``Teams.import``)."""
        return self.call("import_team", team=team)["sets"]

    def prng_stream(self, seed: Seed, calls: Sequence[Sequence[Any]]) -> list[Any]:
        """Results of PRNG calls on a fresh Gen 5 LCG: ``("next",)``, ``("random", n)``,
        ``("random", m, n)``, ``("randomChance", a, b)``, ``("sample", length)`` (the index),
        ``("shuffle", length[, start, end])`` (the shuffled ``range(length)``)."""
        return self.call("prng_stream", seed=_seed(seed), calls=[list(c) for c in calls])["results"]

    def damage(self, p1: str, p2: str, cases: Sequence[dict[str, Any]], seed: Seed = (0, 0, 0, 1),
               format: str = DEFAULT_FORMAT) -> list[dict[str, Any]]:
        """Showdown's ``getDamage`` for each case, at every damage roll 217..255 (see
        ``damage`` in ``harness.js``). A case: ``{"attacker": "p1"|"p2", "move": id,
        "crit": bool, "attacker_stats"?: {...}, "defender_stats"?: {...},
        "attacker_volatiles"?: [...], "defender_volatiles"?: [...]}`` on the leads of a new
        battle between packed teams ``p1`` and ``p2``."""
        return self.call("damage", format=format, seed=_seed(seed), p1=p1, p2=p2,
                         cases=list(cases))["cases"]
