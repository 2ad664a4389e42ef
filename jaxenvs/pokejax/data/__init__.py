"""Gen 1 tables and the random-battle team pool, generated from Showdown (``tools/pokejax_data.py``).

Ids are Showdown's numbers: a species id is its National Dex number (1-151), a move id its move
number (1-165, Struggle = 165); 0 means "none" (an empty move slot, a missing second type).
Type ids are 1-15 in alphabetical order of the type names, 0 = none, 16 = Showdown's typeless
``"???"`` (Gen 1 Bide), which every type hits and resists neutrally.

``gen1()`` returns the tables (``Gen1Data``): the arrays the engine indexes plus ``raw``, the
whole ``gen1.json`` (every move field Showdown's gen1 mod defines). ``team_pool()`` returns the
``TeamPool`` of ``gen1randombattle`` teams; ``GEN1OU_SAMPLE_TEAMS`` is a file of four
hand-written ``gen1ou`` teams in Showdown's export form (an example of user teams).
"""

from __future__ import annotations

import functools
import importlib.resources
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

#: Stat order of every six-entry array.
STATS = ("hp", "atk", "def", "spa", "spd", "spe")
#: Showdown's name of the typeless type (Gen 1 Bide); its type id is the last one.
TYPELESS = "???"
#: Move categories: index = ``move_category`` value.
CATEGORIES = ("Physical", "Special", "Status")


def _data_file(name: str):
    return importlib.resources.files("jaxenvs.pokejax.data") / name


#: Four hand-written ``gen1ou`` teams (export form, one ``===`` line each), built on the
#: format's usual Pokémon: ``make("PokeJAX", format="gen1ou", teams=GEN1OU_SAMPLE_TEAMS)``.
GEN1OU_SAMPLE_TEAMS = Path(__file__).with_name("gen1ou_sample_teams.txt")


@dataclass(frozen=True)
class Gen1Data:
    """The Gen 1 tables: names, ids and the arrays indexed by them (index 0 = none)."""

    raw: dict[str, Any]
    """``gen1.json`` as loaded."""
    species_names: tuple[str, ...]
    """Showdown ids of the species by id (``species_names[25] == "pikachu"``; [0] = "")."""
    move_names: tuple[str, ...]
    """Showdown ids of the moves by id ([0] = "")."""
    type_names: tuple[str, ...]
    """Type names by id ([0] = "")."""
    base_stats: np.ndarray
    """int32[152, 6]: base stats (``STATS`` order; Gen 1's Special is both spa and spd)."""
    species_types: np.ndarray
    """int32[152, 2]: type ids, the second 0 for single-typed species."""
    move_type: np.ndarray
    """int32[166]: type id."""
    move_category: np.ndarray
    """int32[166]: index into ``CATEGORIES`` (Gen 1: by type, as Showdown's mod sets it)."""
    move_base_power: np.ndarray
    """int32[166]."""
    move_accuracy: np.ndarray
    """int32[166]: percent; 0 for moves that never miss (Showdown's ``accuracy: true``)."""
    move_pp: np.ndarray
    """int32[166]: base PP (without PP Ups)."""
    move_priority: np.ndarray
    """int32[166]."""
    move_crit_ratio: np.ndarray
    """int32[166]: Showdown's ``critRatio`` (1 normal, 2 high)."""
    learnable: np.ndarray
    """bool[152, 166]: ``learnable[s, m]``: Showdown's Gen 1 validator lets species s learn m."""
    learn_level: np.ndarray
    """int32[152, 166]: the lowest level at which that validator lets species s have move m
    (1 where it has no minimum)."""
    min_level: np.ndarray
    """int32[152]: the lowest level at which that validator accepts the species (an evolution's
    level, a legendary's encounter level; 1 where it has none)."""
    incompatible: frozenset[tuple[str, str, str]]
    """``(species, move, move)`` ids (either move order): two moves that validator refuses
    together on the species, though it accepts each alone (each is learned at a stage of its
    evolution line that rules out the other)."""
    type_chart: np.ndarray
    """float32[17, 17]: damage multiplier of attacking type (row) on defending type (column);
    rows and columns of none (0) and typeless (16) are 1."""

    @functools.cached_property
    def species_index(self) -> dict[str, int]:
        return {name: i for i, name in enumerate(self.species_names) if name}

    @functools.cached_property
    def move_index(self) -> dict[str, int]:
        return {name: i for i, name in enumerate(self.move_names) if name}

    @functools.cached_property
    def type_index(self) -> dict[str, int]:
        return {name: i for i, name in enumerate(self.type_names) if name}

    def move(self, move: int | str) -> dict[str, Any]:
        """All of Showdown's fields of a move (by id or Showdown id)."""
        num = move if isinstance(move, int) else self.move_index[move]
        return self.raw["moves"][num - 1]

    def species(self, species: int | str) -> dict[str, Any]:
        num = species if isinstance(species, int) else self.species_index[species]
        return self.raw["species"][num - 1]


@functools.cache
def gen1() -> Gen1Data:
    """The Gen 1 tables (loaded once)."""
    raw = json.loads(_data_file("gen1.json").read_text(encoding="utf-8"))
    species, moves = raw["species"], raw["moves"]
    if [s["num"] for s in species] != list(range(1, len(species) + 1)):
        raise ValueError("gen1.json: species numbers are not 1..N")
    if [m["num"] for m in moves] != list(range(1, len(moves) + 1)):
        raise ValueError("gen1.json: move numbers are not 1..N")
    type_names = ("",) + tuple(raw["types"]) + (TYPELESS,)
    type_id = {t: i for i, t in enumerate(type_names)}
    ns, nm, nt = len(species) + 1, len(moves) + 1, len(type_names)

    base_stats = np.zeros((ns, 6), np.int32)
    species_types = np.zeros((ns, 2), np.int32)
    for s in species:
        base_stats[s["num"]] = [s["baseStats"][k] for k in STATS]
        for k, t in enumerate(s["types"]):
            species_types[s["num"], k] = type_id[t]

    def move_column(fn) -> np.ndarray:
        return np.array([0] + [fn(m) for m in moves], np.int32)

    move_index = {m["id"]: m["num"] for m in moves}
    learnable = np.zeros((ns, nm), bool)
    learn_level = np.ones((ns, nm), np.int32)
    min_level = np.ones(ns, np.int32)
    for s in species:
        for m in raw["learnable"][s["id"]]:
            learnable[s["num"], move_index[m]] = True
        for m, level in raw["learn_level"].get(s["id"], {}).items():
            learn_level[s["num"], move_index[m]] = level
        min_level[s["num"]] = raw["min_level"].get(s["id"], 1)

    type_chart = np.ones((nt, nt), np.float32)
    for a, row in raw["typechart"].items():
        for d, mult in row.items():
            type_chart[type_id[a], type_id[d]] = mult

    return Gen1Data(
        raw=raw,
        species_names=("",) + tuple(s["id"] for s in species),
        move_names=("",) + tuple(m["id"] for m in moves),
        type_names=type_names,
        base_stats=base_stats,
        species_types=species_types,
        move_type=move_column(lambda m: type_id[m["type"]]),
        move_category=move_column(lambda m: CATEGORIES.index(m["category"])),
        move_base_power=move_column(lambda m: m["basePower"]),
        move_accuracy=move_column(lambda m: 0 if m["accuracy"] is True else m["accuracy"]),
        move_pp=move_column(lambda m: m["pp"]),
        move_priority=move_column(lambda m: m["priority"]),
        move_crit_ratio=move_column(lambda m: m.get("critRatio", 1)),
        learnable=learnable,
        learn_level=learn_level,
        min_level=min_level,
        incompatible=frozenset((s, a, b) for s, pairs in raw["incompatible"].items()
                               for pair in pairs for a, b in (pair, pair[::-1])),
        type_chart=type_chart,
    )


@dataclass(frozen=True)
class TeamPool:
    """``gen1randombattle`` teams from Showdown's generator; team ``i`` came from ``seeds[i]``."""

    seeds: np.ndarray
    """uint16[N, 4]: the Gen 5 LCG seed given to ``Teams.generate`` (``tools/pokejax_data.py``'s ``team_seed``)."""
    species: np.ndarray
    """uint8[N, 6]: species ids, in team order."""
    moves: np.ndarray
    """uint8[N, 6, 4]: move ids, in Showdown's slot order; 0 = empty slot."""
    level: np.ndarray
    """uint8[N, 6]."""
    evs: np.ndarray
    """uint8[N, 6, 6]: Showdown's EVs (``STATS`` order; Gen 1 stat experience, 0-255)."""
    ivs: np.ndarray
    """uint8[N, 6, 6]: Showdown's IVs, 0-31 (Gen 1 DV = IV // 2)."""

    def __len__(self) -> int:
        return len(self.seeds)


@functools.cache
def team_pool() -> TeamPool:
    """The stored pool (loaded once)."""
    with _data_file("gen1_teams.npz").open("rb") as f, np.load(f) as z:
        return TeamPool(**{k: z[k] for k in ("seeds", "species", "moves", "level", "evs", "ivs")})
