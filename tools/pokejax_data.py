"""Writes PokeJAX's data files from the pinned Showdown (needs Node and the installed package).

    python tools/pokejax_data.py            # both files
    python tools/pokejax_data.py --tables   # gen1.json only
    python tools/pokejax_data.py --teams    # gen1_teams.npz only

* ``gen1.json``: Showdown's ``gen1`` mod after inheritance: the 151 species (number, types, base
  stats, evolution links), the 165 moves with every data field the mod defines and the names of
  the callbacks that carry the rest of their logic, the 15 types and the Gen 1 type chart
  (multiplier of attacking type vs defending type), for each species the moves that
  Showdown's Gen 1 validator lets it learn (and the lowest levels at which it accepts the
  species and each move, where above 1), and the rule table of ``gen1randombattle``
  (its clauses and bans). Written deterministically (sorted keys, one entry per
  line), so regenerating it gives the same bytes.
* ``gen1_teams.npz``: a pool of ``gen1randombattle`` teams from Showdown's own generator
  (``Teams.generate``), team ``i`` from the seed ``team_seed(i)``, as integer arrays (see
  ``jaxenvs.pokejax.data.TeamPool``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

import jaxenvs.pokejax.data
from jaxenvs.pokejax.reference import ShowdownProcess
from jaxenvs.pokejax.reference.driver import SHOWDOWN_VERSION

DATA_DIR = Path(jaxenvs.pokejax.data.__file__).resolve().parent
TABLES_FILE = DATA_DIR / "gen1.json"
TEAMS_FILE = DATA_DIR / "gen1_teams.npz"
NUM_TEAMS = 10_000
TEAM_FORMAT = "gen1randombattle"
#: The order of the six stats in every array.
STATS = ("hp", "atk", "def", "spa", "spd", "spe")


def team_seed(index: int) -> list[int]:
    """The Gen 5 LCG seed of pool team ``index``: four 16-bit words of a SHA-256 of the index.

    (Consecutive integer seeds would give the LCG correlated first outputs.)
    """
    digest = hashlib.sha256(f"pokejax-gen1-team-{index}".encode()).digest()
    return [int.from_bytes(digest[k:k + 2], "big") for k in range(0, 8, 2)]


def _dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def tables_text(dump: dict[str, Any]) -> str:
    """``gen1.json``'s text: top-level keys sorted, one species / move / learnset per line."""
    types = sorted(dump["types"])
    doc = {
        "showdown": SHOWDOWN_VERSION,
        "gen": dump["gen"],
        "validator_format": dump["validator_format"],
        "types": types,
        "typechart": {a: {d: dump["typechart"][a][d] for d in types} for a in types},
        "species": dump["species"],
        "moves": dump["moves"],
        "learnable": {k: sorted(v) for k, v in dump["learnable"].items()},
        "learn_level": dump["learn_level"],
        "min_level": dump["min_level"],
        "incompatible": dump["incompatible"],
        "format": dump["format"],
    }
    lines = ["{"]
    keys = sorted(doc)
    for n, key in enumerate(keys):
        value = doc[key]
        end = "," if n + 1 < len(keys) else ""
        if isinstance(value, list) and value and isinstance(value[0], dict):
            lines.append(f"{_dumps(key)}:[")
            lines += [_dumps(v) + ("," if i + 1 < len(value) else "") for i, v in enumerate(value)]
            lines.append("]" + end)
        elif isinstance(value, dict):
            lines.append(f"{_dumps(key)}:{{")
            items = sorted(value.items())
            lines += [f"{_dumps(k)}:{_dumps(v)}" + ("," if i + 1 < len(items) else "")
                      for i, (k, v) in enumerate(items)]
            lines.append("}" + end)
        else:
            lines.append(f"{_dumps(key)}:{_dumps(value)}{end}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def build_tables(showdown: ShowdownProcess) -> str:
    return tables_text(showdown.dump_data("gen1"))


def team_arrays(teams: list[dict[str, Any]], tables: dict[str, Any]) -> dict[str, np.ndarray]:
    """Showdown's generated sets as the pool's integer arrays (ids are dex / move numbers)."""
    species_num = {s["id"]: s["num"] for s in tables["species"]}
    move_num = {m["id"]: m["num"] for m in tables["moves"]}
    n = len(teams)
    out = {
        "species": np.zeros((n, 6), np.uint8),
        "moves": np.zeros((n, 6, 4), np.uint8),
        "level": np.zeros((n, 6), np.uint8),
        "evs": np.zeros((n, 6, 6), np.uint8),
        "ivs": np.zeros((n, 6, 6), np.uint8),
    }
    for t, team in enumerate(teams):
        if len(team["sets"]) != 6:
            raise ValueError(f"team {t} has {len(team['sets'])} Pokémon")
        for p, s in enumerate(team["sets"]):
            out["species"][t, p] = species_num[s["species"]]
            for k, move in enumerate(s["moves"]):
                out["moves"][t, p, k] = move_num[move]
            out["level"][t, p] = s["level"]
            out["evs"][t, p] = [s["evs"][st] for st in STATS]
            out["ivs"][t, p] = [s["ivs"][st] for st in STATS]
    return out


def build_team_pool(showdown: ShowdownProcess, tables: dict[str, Any], indices: range,
                    chunk: int = 500) -> dict[str, np.ndarray]:
    """Pool teams ``indices`` from Showdown's generator, with their seeds."""
    seeds = [team_seed(i) for i in indices]
    teams = []
    for k in range(0, len(seeds), chunk):
        teams += showdown.generate_teams(seeds[k:k + chunk], TEAM_FORMAT)
    arrays = team_arrays(teams, tables)
    arrays["seeds"] = np.array(seeds, np.uint16).reshape(len(seeds), 4)
    return arrays


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", action="store_true", help="write gen1.json")
    parser.add_argument("--teams", action="store_true", help="write gen1_teams.npz")
    parser.add_argument("--num-teams", type=int, default=NUM_TEAMS)
    args = parser.parse_args(argv)
    both = not (args.tables or args.teams)
    with ShowdownProcess() as showdown:
        if args.tables or both:
            t0 = time.perf_counter()
            TABLES_FILE.write_text(build_tables(showdown), encoding="utf-8")
            print(f"wrote {TABLES_FILE} ({TABLES_FILE.stat().st_size:,} bytes) in "
                  f"{time.perf_counter() - t0:.1f} s")
        if args.teams or both:
            t0 = time.perf_counter()
            tables = json.loads(TABLES_FILE.read_text(encoding="utf-8"))
            arrays = build_team_pool(showdown, tables, range(args.num_teams))
            np.savez_compressed(TEAMS_FILE, **arrays)
            print(f"wrote {TEAMS_FILE} ({TEAMS_FILE.stat().st_size:,} bytes, {args.num_teams} "
                  f"teams) in {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
