"""Gen 1 teams: Showdown's export and packed formats, legality checks, integer arrays.

Parsing follows Showdown's ``Teams.import`` / ``Teams.unpack`` (0.11.11), so a team text means
the same here as in the reference: in an export, missing EVs are 0 and missing IVs 31; in a
packed team an empty IV field means IVs of 31 and an empty level 100. An empty EV field means
0 EVs to the reference battle (``parse``), and 252 in every stat to Showdown's server, whose
validator fills them before a battle (``load_teams``, which reads user teams as the server
does).

``load_team(text)`` parses and checks a team and raises ``TeamError`` listing every problem:
unknown species or moves (with the closest names), moves the species cannot learn in Gen 1
(Showdown's Gen 1 validator's answer, stored per species in ``data/gen1.json``) or cannot
have together (the pairs that validator refuses, stored the same way), a level
below the one that validator asks of the species or of a move, more than 4 moves, repeated
moves, more than 6 Pokémon, items, levels outside 1-100, EVs outside 0-255, IVs outside 0-31
and an HP DV that disagrees with the other DVs, as Showdown's validator checks. Like that
validator it gives Special defense the Special attack EV and IV (Gen 1 has one Special stat).
``load_teams`` reads one or many user teams (text or a file) and checks them by the rules of a
format (``FORMATS``): ``format_problems`` adds the clauses of ``gen1ou`` and ``gen1ubers``.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from jaxenvs.pokejax.data import STATS, Gen1Data, TeamPool, gen1

MAX_TEAM_SIZE = 6
MAX_MOVES = 4


class TeamError(ValueError):
    """A team that cannot be used; ``problems`` lists every reason."""

    def __init__(self, problems: Sequence[str]):
        self.problems = list(problems)
        super().__init__("invalid team:\n  " + "\n  ".join(self.problems))


def to_id(name: str) -> str:
    """Showdown's ``toID``: lower case, letters and digits only."""
    return re.sub(r"[^a-z0-9]+", "", str(name).lower())


@dataclass(frozen=True)
class PokemonSet:
    """One Pokémon of a team, with Showdown ids and its six-stat EVs and IVs."""

    species: str
    """Showdown species id, e.g. ``"mrmime"``."""
    moves: tuple[str, ...]
    """Showdown move ids, in slot order."""
    level: int = 100
    evs: tuple[int, ...] = (0,) * 6
    """``STATS`` order, 0-255 (Gen 1 stat experience as Showdown scales it)."""
    ivs: tuple[int, ...] = (31,) * 6
    """``STATS`` order, 0-31 (Showdown uses IV & 30, so the Gen 1 DV is IV // 2)."""
    name: str = field(default="", compare=False)
    """Nickname ('' = the species name; only the battle log shows it)."""
    item: str = field(default="", compare=False)
    """Item as written (Gen 1 has none; a non-empty item is a problem)."""


def _stats(values: dict[str, int]) -> tuple[int, ...]:
    return tuple(int(values[s]) for s in STATS)


_STAT_NAMES = {"hp": "hp", "atk": "atk", "def": "def", "spa": "spa", "spd": "spd", "spe": "spe",
               "attack": "atk", "defense": "def", "spatk": "spa", "spdef": "spd", "speed": "spe",
               "special": "spa", "spc": "spa", "spec": "spa", "satk": "spa", "sdef": "spd"}


def _number(text: str, default: int = 0) -> int:
    """JavaScript's ``Number(text) || default`` for the integers a team holds."""
    try:
        value = float(text)
    except ValueError:
        return default
    return int(value) if value == value and value else default


def parse_packed(text: str, missing_evs: int = 0) -> list[PokemonSet]:
    """A team in Showdown's packed format (``name|species|item|ability|moves|nature|evs|...``);
    a Pokémon with an empty EV field gets ``missing_evs`` in every stat."""
    sets = []
    for n, chunk in enumerate(text.strip().split("]")):
        fields = chunk.split("|")
        if len(fields) < 11:
            raise TeamError([f"packed Pokémon {n + 1} has {len(fields)} '|' fields, needs 11+: "
                             f"{chunk!r}"])
        name, species, item, _ability, moves, _nature, evs, _gender, ivs, _shiny, level = \
            fields[:11]
        ev_list = evs.split(",") if evs else []
        iv_list = ivs.split(",") if ivs else []
        sets.append(PokemonSet(
            species=to_id(species or name),
            name=name,
            item=item,
            moves=tuple(to_id(m) for m in moves.split(",") if m),
            evs=tuple(_number(ev_list[k]) if k < len(ev_list) else 0 for k in range(6))
            if ev_list else (missing_evs,) * 6,
            ivs=tuple((31 if iv_list[k] == "" else _number(iv_list[k]))
                      if k < len(iv_list) else 31 for k in range(6)) if ivs else (31,) * 6,
            level=int(level) if level else 100,
        ))
    return sets


def parse_export(text: str) -> list[PokemonSet]:
    """A team in Showdown's export (teambuilder text) format."""
    sets: list[PokemonSet] = []
    current: dict | None = None

    def finish():
        if current is not None:
            sets.append(PokemonSet(species=current["species"], name=current["name"],
                                   item=current["item"], moves=tuple(current["moves"]),
                                   level=current["level"], evs=_stats(current["evs"]),
                                   ivs=_stats(current["ivs"])))

    for line in text.split("\n"):
        line = line.strip()
        if line in ("", "---"):
            finish()
            current = None
        elif line.startswith("==="):
            continue
        elif current is None:
            head, _, item = line.partition(" @ ")
            for suffix in (" (M)", " (F)"):
                if head.endswith(suffix):
                    head = head[:-len(suffix)]
            name, species = "", head
            if head.endswith(")") and "(" in head:
                name, species = head[:-1].split("(", 1)
            current = {"species": to_id(species), "name": name.strip(),
                       "item": "" if to_id(item) == "noitem" else item.strip(), "moves": [],
                       "level": 100, "evs": dict.fromkeys(STATS, 0),
                       "ivs": dict.fromkeys(STATS, 31)}
        elif line.startswith("Level: "):
            current["level"] = _number(line[7:], 0)
        elif line.startswith(("EVs: ", "IVs: ")):
            key = "evs" if line.startswith("EVs") else "ivs"
            current[key] = dict.fromkeys(STATS, 0 if key == "evs" else 31)
            for part in line[5:].split("/"):
                value, _, stat = part.strip().partition(" ")
                stat = _STAT_NAMES.get(to_id(stat))
                if stat:
                    current[key][stat] = int(value) if value.lstrip("-").isdigit() else (
                        0 if key == "evs" else 31)
        elif line.startswith(("-", "~")):
            current["moves"].append(to_id(line[2:] if line[1:2] == " " else line[1:]))
    finish()
    return sets


def parse(text: str, missing_evs: int = 0) -> list[PokemonSet]:
    """Either format, told apart as Showdown does: a single line with '|' is packed
    (``missing_evs`` as ``parse_packed`` takes it)."""
    lines = [line for line in text.strip().split("\n") if line.strip()]
    if len(lines) == 1 and "|" in lines[0]:
        return parse_packed(lines[0], missing_evs)
    return parse_export(text)


def _pack_name(name: str) -> str:
    """Showdown's ``packName``: letters and digits only, case kept."""
    return re.sub(r"[^A-Za-z0-9]+", "", name)


def pack(team: Iterable[PokemonSet], data: Gen1Data | None = None) -> str:
    """The team in Showdown's packed format, as ``Teams.pack`` writes it.

    The ability is always ``NoAbility`` (what the random team generator sets; Gen 1 has none),
    so Showdown never falls back to a later generation's ability.
    """
    data = data or gen1()
    out = []
    for s in team:
        display = data.species(s.species)["name"] if s.species in data.species_index else s.species
        name = s.name or display
        species = _pack_name(display)
        out.append("|".join([
            name, "" if _pack_name(name) == species else species, _pack_name(s.item),
            "NoAbility", ",".join(s.moves), "",
            "" if not any(s.evs) else ",".join(str(v) if v else "" for v in s.evs), "",
            "" if all(v == 31 for v in s.ivs) else ",".join("" if v == 31 else str(v)
                                                             for v in s.ivs), "",
            "" if s.level == 100 else str(s.level), ""]))
    return "]".join(out)


def _closest(name: str, known: Iterable[str]) -> str:
    match = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return f" (did you mean {match[0]!r}?)" if match else ""


def problems(team: Sequence[PokemonSet], data: Gen1Data | None = None) -> list[str]:
    """Everything that makes ``team`` unusable in Gen 1 (empty: legal)."""
    data = data or gen1()
    out = []
    if not 1 <= len(team) <= MAX_TEAM_SIZE:
        out.append(f"a team has 1 to {MAX_TEAM_SIZE} Pokémon, this one {len(team)}")
    for n, s in enumerate(team, 1):
        who = f"Pokémon {n} ({s.name or s.species})"
        species = data.species_index.get(s.species)
        if species is None:
            out.append(f"{who}: unknown species {s.species!r} in Gen 1"
                       f"{_closest(s.species, data.species_index)}")
        if s.item:
            out.append(f"{who}: items do not exist in Gen 1 ({s.item!r})")
        if not 1 <= len(s.moves) <= MAX_MOVES:
            out.append(f"{who}: has {len(s.moves)} moves, needs 1 to {MAX_MOVES}")
        if len(set(s.moves)) != len(s.moves):
            out.append(f"{who}: repeats a move ({', '.join(s.moves)})")
        for m in dict.fromkeys(s.moves):
            move = data.move_index.get(m)
            if move is None:
                out.append(f"{who}: unknown move {m!r} in Gen 1{_closest(m, data.move_index)}")
            elif species is not None and not data.learnable[species, move]:
                out.append(f"{who}: {data.species_names[species]} cannot learn {m} in Gen 1")
            elif species is not None and 1 <= s.level < data.learn_level[species, move]:
                out.append(f"{who}: {data.species_names[species]} has {m} only from level "
                           f"{data.learn_level[species, move]}")
        out += [f"{who}: {s.species} cannot have both {a} and {b} (it learns them at stages "
                "of its evolution line that exclude each other)"
                for i, a in enumerate(s.moves) for b in s.moves[i + 1:]
                if (s.species, a, b) in data.incompatible]
        if not 1 <= s.level <= 100:
            out.append(f"{who}: level {s.level} is outside 1-100")
        elif species is not None and s.level < data.min_level[species]:
            out.append(f"{who}: {data.species_names[species]} is not obtainable below level "
                       f"{data.min_level[species]} in Gen 1")
        if not all(0 <= v <= 255 for v in s.evs):
            out.append(f"{who}: EVs {s.evs} outside 0-255")
        if not all(0 <= v <= 31 for v in s.ivs):
            out.append(f"{who}: IVs {s.ivs} outside 0-31")
        else:
            dv = [(v & 30) // 2 for v in s.ivs]
            expected = (dv[1] % 2) * 8 + (dv[2] % 2) * 4 + (dv[5] % 2) * 2 + dv[3] % 2
            if dv[0] != expected:
                out.append(f"{who}: HP DV {dv[0]} but its Atk, Def, Spe and Spc DVs give "
                           f"{expected}")
    return out


#: The formats ``format_problems`` checks, and the species each bans. In the pinned Showdown
#: their rule tables (``Dex.formats.getRuleTable``) differ only in OU's ban of the Uber tier.
BANNED_SPECIES = {"gen1ou": ("mewtwo", "mew"), "gen1ubers": ()}
#: The moves both ban, and the rule that bans each (Gen 1's Standard, Evasion Moves Clause,
#: OHKO Clause), as Showdown's validator names it.
BANNED_MOVES = {"dig": "Standard", "fly": "Standard", "doubleteam": "Evasion Moves Clause",
                "minimize": "Evasion Moves Clause", "fissure": "OHKO Clause",
                "horndrill": "OHKO Clause", "guillotine": "OHKO Clause"}


#: What Showdown's validator suggests for an EV total it takes for a mistake.
_ON_PURPOSE = " (if meant, add exactly 1 EV to one stat: that changes no stat)"


def format_problems(team: Sequence[PokemonSet], format: str = "gen1ou",
                    data: Gen1Data | None = None) -> list[str]:
    """``problems``, and the clauses of ``format`` (a key of ``BANNED_SPECIES``) as Showdown's
    validator for it checks them: banned species and moves, Species Clause (one of each
    species), Nickname Clause (no two Pokémon with the same nickname), no nickname that names
    another species, and its guards against a forgotten EV spread (an EV total of 0 above
    level 1, or of 508 or 510; a multiple of 4 at level 50)."""
    if format not in BANNED_SPECIES:
        raise ValueError(f"unknown format {format!r}; known: {', '.join(BANNED_SPECIES)}")
    data = data or gen1()
    out = problems(team, data)
    for n, s in enumerate(team, 1):
        who = f"Pokémon {n} ({s.name or s.species})"
        if s.species in BANNED_SPECIES[format]:
            out.append(f"{who}: {s.species} is tagged Uber, which {format} bans")
        out += [f"{who}: {m} is banned by {BANNED_MOVES[m]}" for m in s.moves
                if m in BANNED_MOVES]
        if s.name and to_id(s.name) != s.species and to_id(s.name) in data.species_index:
            out.append(f"{who}: nicknamed another species")
        total = sum(normalize(s).evs)
        if s.level > 1 and total == 0:
            out.append(f"{who}: has exactly 0 EVs{_ON_PURPOSE}")
        elif total in (508, 510):
            out.append(f"{who}: has exactly {total} EVs, but {format} has no 510-EV limit"
                       f"{_ON_PURPOSE}")
        if s.level == 50 and total % 4 == 0:
            out.append(f"{who}: is level 50, but {format} allows level 100{_ON_PURPOSE}")
    for what, keys in (("species", [s.species for s in team]),
                       ("nickname", [s.name for s in team if s.name and
                                     to_id(s.name) != s.species])):
        repeated = sorted({k for k in keys if keys.count(k) > 1})
        if repeated:
            out.append(f"{what.capitalize()} Clause: more than one {', '.join(repeated)}")
    return out


def normalize(s: PokemonSet) -> PokemonSet:
    """Gen 1's single Special: Special defense takes the Special attack EV and IV."""
    evs, ivs = list(s.evs), list(s.ivs)
    evs[4], ivs[4] = evs[3], ivs[3]
    return replace(s, evs=tuple(evs), ivs=tuple(ivs))


def load_team(text: str, data: Gen1Data | None = None) -> list[PokemonSet]:
    """Parses (export or packed) and checks a team; raises ``TeamError`` with every problem."""
    team = parse(text)
    found = problems(team, data)
    if found:
        raise TeamError(found)
    return [normalize(s) for s in team]


#: The formats a PokeJAX battle can be played in: the random-battle format (its teams come
#: from Showdown's generator, and teams given are checked by ``problems``) and the formats of
#: user teams, checked by ``format_problems``. Showdown's battle rules are the same in all.
FORMATS = ("gen1randombattle", *BANNED_SPECIES)


def split_teams(text: str) -> list[str]:
    """The teams in ``text``, as Showdown's teambuilder writes several: exports under
    ``=== [format] name ===`` lines, or one packed team per line (``format]name|`` before it
    allowed). Text of neither kind is one team."""
    lines = text.strip().split("\n")
    if any(line.strip().startswith("===") for line in lines):
        chunks, current = [], []
        for line in lines:
            if line.strip().startswith("==="):
                chunks.append("\n".join(current))
                current = []
            else:
                current.append(line)
        chunks.append("\n".join(current))
        return [c for c in chunks if c.strip()]
    packed = [line.strip() for line in lines if line.strip()]
    if len(packed) > 1 and all("|" in line for line in packed):
        return [line.split("|", 1)[1] if "]" in line.split("|", 1)[0] else line
                for line in packed]
    return [text]


def _read(source: str | Path) -> str:
    """``source``'s text: the file it names (a ``Path``, or a string of one line that is no
    packed team), or itself."""
    if isinstance(source, str) and ("\n" in source or "|" in source):
        return source
    path = Path(source).expanduser()
    if not path.is_file():
        raise TeamError([f"no team file {str(path)!r} (a team is given as Showdown export "
                         "or packed text, or a file of either)"])
    return path.read_text(encoding="utf-8")


def load_teams(source: str | Path | Sequence[str | Path], format: str = "gen1ou",
               data: Gen1Data | None = None) -> list[list[PokemonSet]]:
    """User teams as Showdown's server reads them for ``format`` (one of ``FORMATS``): from
    text (export or packed, one team or several as ``split_teams`` finds them), a file of such
    text, or a sequence of those. A packed Pokémon
    without EVs gets 252 in every stat, as the server's validator gives it. Raises
    ``TeamError`` listing every problem of every team (``format_problems``; ``problems``
    for the random-battle format)."""
    if format not in FORMATS:
        raise TeamError([f"unknown format {format!r}; known: {', '.join(FORMATS)}"])
    data = data or gen1()
    sources = [source] if isinstance(source, (str, Path)) else list(source)
    texts = [team for s in sources for team in split_teams(_read(s))]
    if not texts:
        raise TeamError(["no team given"])
    teams, found = [], []
    for n, text in enumerate(texts, 1):
        try:
            team = parse(text, missing_evs=252)
        except TeamError as error:
            found += [f"team {n}: {p}" for p in error.problems]
            continue
        check = format_problems(team, format, data) if format in BANNED_SPECIES else \
            problems(team, data)
        found += [f"team {n}: {p}" for p in check]
        teams.append([normalize(s) for s in team])
    if found:
        raise TeamError(found)
    return teams


def to_arrays(team: Sequence[PokemonSet], data: Gen1Data | None = None) -> dict[str, np.ndarray]:
    """One team as ``TeamPool``-style arrays (6 slots; missing Pokémon have species 0)."""
    data = data or gen1()
    out = {"species": np.zeros(6, np.uint8), "moves": np.zeros((6, 4), np.uint8),
           "level": np.zeros(6, np.uint8), "evs": np.zeros((6, 6), np.uint8),
           "ivs": np.zeros((6, 6), np.uint8)}
    for p, s in enumerate(team):
        out["species"][p] = data.species_index[s.species]
        out["moves"][p, :len(s.moves)] = [data.move_index[m] for m in s.moves]
        out["level"][p] = s.level
        out["evs"][p] = s.evs
        out["ivs"][p] = s.ivs
    return out


def stack(teams: Sequence[Sequence[PokemonSet]], data: Gen1Data | None = None
          ) -> dict[str, np.ndarray]:
    """Teams as ``PokeJAXParams.teams`` holds them: ``to_arrays`` of each, stacked."""
    rows = [to_arrays(team, data) for team in teams]
    return {k: np.stack([r[k] for r in rows]) for k in ARRAY_SHAPES}


#: Per team: each field's shape after the team axis.
ARRAY_SHAPES = {"species": (6,), "moves": (6, 4), "level": (6,), "evs": (6, 6), "ivs": (6, 6)}


def array_problems(arrays: dict[str, Any], data: Gen1Data | None = None,
                   shown: int = 5, format: str = FORMATS[0]) -> list[str]:
    """Everything that makes team arrays (``to_arrays``'s fields with a leading team axis, as
    ``PokeJAXParams.teams`` holds them) unusable in ``format``: fields, shapes and integer
    types, ids in range, Pokémon after an empty slot, then each team as ``problems`` (or
    ``format_problems`` for a format of user teams) checks its text form, and Gen 1's single
    Special (EV and IV 4 equal to 3, as ``normalize`` makes them). At most ``shown`` teams'
    problems are listed, then their count."""
    data = data or gen1()
    missing = [name for name in ARRAY_SHAPES if name not in arrays]
    if missing:
        return [f"teams lacks {', '.join(missing)}"]
    values = {name: np.asarray(arrays[name]) for name in ARRAY_SHAPES}
    out = []
    for name, shape in ARRAY_SHAPES.items():
        value = values[name]
        if value.shape[1:] != shape or value.ndim != len(shape) + 1 or len(value) < 1:
            out.append(f"teams[{name!r}] must be [N >= 1, {', '.join(map(str, shape))}], got "
                       f"{value.shape}")
        elif not np.issubdtype(value.dtype, np.integer):
            out.append(f"teams[{name!r}] must hold integers, got {value.dtype}")
    if not out and len({len(value) for value in values.values()}) > 1:
        out.append(f"teams' fields hold different numbers of teams: "
                   f"{ {name: len(value) for name, value in values.items()} }")
    if out:
        return out
    for name, names in (("species", data.species_names), ("moves", data.move_names)):
        bad = values[name][(values[name] < 0) | (values[name] >= len(names))]
        if bad.size:
            out.append(f"teams[{name!r}] holds ids outside 0-{len(names) - 1}: "
                       f"{sorted(set(bad.tolist()))[:shown]}")
    if out:
        return out
    present = values["species"] > 0
    gaps = np.flatnonzero((~present[:, :-1] & present[:, 1:]).any(axis=1))
    if gaps.size:
        out.append(f"teams {gaps[:shown].tolist()}: a Pokémon after an empty slot")
    two_specials = ((values["evs"][..., 4] != values["evs"][..., 3])
                    | (values["ivs"][..., 4] != values["ivs"][..., 3]))
    if (two_specials & present).any():
        out.append("Gen 1 has one Special: each Pokémon's EV and IV 4 must equal its EV and "
                   "IV 3")
    bad_teams = 0
    for index in range(len(values["species"])):
        team = [PokemonSet(species=data.species_names[int(values["species"][index, p])],
                           moves=tuple(data.move_names[int(m)]
                                       for m in values["moves"][index, p] if m),
                           level=int(values["level"][index, p]),
                           evs=tuple(int(v) for v in values["evs"][index, p]),
                           ivs=tuple(int(v) for v in values["ivs"][index, p]))
                for p in range(6) if values["species"][index, p]]
        found = format_problems(team, format, data) if format in BANNED_SPECIES else \
            problems(team, data)
        if found:
            bad_teams += 1
            if bad_teams <= shown:
                out.append(f"team {index}: " + "; ".join(found))
    if bad_teams > shown:
        out.append(f"... {bad_teams - shown} more teams with problems")
    return out


def from_arrays(pool: TeamPool, index: int, data: Gen1Data | None = None) -> list[PokemonSet]:
    """Team ``index`` of a pool as sets."""
    data = data or gen1()
    return [PokemonSet(species=data.species_names[int(pool.species[index, p])],
                       moves=tuple(data.move_names[int(m)] for m in pool.moves[index, p] if m),
                       level=int(pool.level[index, p]),
                       evs=tuple(int(v) for v in pool.evs[index, p]),
                       ivs=tuple(int(v) for v in pool.ivs[index, p]))
            for p in range(pool.species.shape[1]) if pool.species[index, p]]


def supported_team(rng: np.random.Generator, size: int = 6, format: str = FORMATS[0]
                   ) -> list[PokemonSet]:
    """A random legal team whose moves the engine supports: distinct species that learn at
    least one supported move, 1-4 of those moves each, levels 50-100 (no lower than the
    validator accepts the species and its moves), random DVs (the HP DV derived as in Gen 1)
    and stat experience. For a format of user teams, without its banned species and moves,
    and drawn again until ``format_problems`` finds nothing."""
    from jaxenvs.pokejax._src.moves import SUPPORTED

    data = gen1()
    banned = set(BANNED_SPECIES.get(format, ())) | (set(BANNED_MOVES) if format in
                                                     BANNED_SPECIES else set())
    supported = np.array(sorted(data.move_index[m] for m in SUPPORTED
                                if m != "struggle" and m not in banned))
    candidates = [s for s in range(1, len(data.species_names))
                  if data.learnable[s, supported].any() and data.species_names[s] not in banned]
    while True:
        team = _random_team(rng, size, data, supported, candidates)
        if format not in BANNED_SPECIES or not format_problems(team, format, data):
            return team


def _random_team(rng: np.random.Generator, size: int, data: Gen1Data, supported: np.ndarray,
                 candidates: Sequence[int]) -> list[PokemonSet]:
    """``supported_team``'s draw from the species ``candidates`` and moves ``supported``."""
    team = []
    for s in rng.choice(candidates, size, replace=False):
        learn = supported[data.learnable[s, supported]]
        moves = rng.choice(learn, min(len(learn), int(rng.integers(1, 5))), replace=False)
        dv = rng.integers(0, 16, 6)
        dv[0] = (dv[1] % 2) * 8 + (dv[2] % 2) * 4 + (dv[5] % 2) * 2 + dv[3] % 2
        dv[4] = dv[3]
        evs = rng.integers(0, 256, 6)
        evs[4] = evs[3]
        lowest = max(50, data.min_level[s], *data.learn_level[s, moves])
        team.append(PokemonSet(species=data.species_names[s],
                               moves=tuple(data.move_names[m] for m in moves),
                               level=int(rng.integers(lowest, 101)),
                               evs=tuple(int(v) for v in evs),
                               ivs=tuple(int(2 * v + rng.integers(0, 2)) for v in dv)))
    return team


def packed(pool: TeamPool, index: int) -> str:
    """Team ``index`` of ``pool`` in Showdown's packed format (what the reference is given)."""
    return pack(from_arrays(pool, index))
