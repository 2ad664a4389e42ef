"""Build ``data/cards.json``, the engine's card table, from the TCGdex data in ``data/``.

Run ``python tools/tcgjax_cards.py`` after changing ``effects.py`` or the source file;
``tests/tcgjax/test_cards.py`` fails while the committed table differs from a fresh build.

Input: ``data/cards_A1_PA.json`` (A1 + Promo-A from TCGdex, MIT; see ``LICENSE-TCGDEX.txt``
and ``/work/shared/data/tcgpocket/README.md`` for its fields). Output per card: the game facts
(types as names, costs as per-type counts indexed by ``EType``, damage split into a number and a
``+``/``x`` marker) and, for each text, its :mod:`~jaxenvs.tcgjax.effects` encoding or
``null`` when the text is not implemented (listed again in ``unimplemented``).
"""

from __future__ import annotations

import json
from pathlib import Path

import jaxenvs.tcgjax
from jaxenvs.tcgjax.effects import NUM_TYPES, TYPE_BY_NAME, EType, Op, encode

DATA = Path(jaxenvs.tcgjax.__file__).parent / "data"
SOURCE = DATA / "cards_A1_PA.json"
TABLE = DATA / "cards.json"


def _cost(cost: list[str]) -> list[int]:
    counts = [0] * NUM_TYPES
    for name in cost:
        counts[TYPE_BY_NAME[name]] += 1
    return counts


def _damage(printed: int | str | None) -> tuple[int, str]:
    if printed is None:
        return 0, ""
    if isinstance(printed, int):
        return printed, ""
    return int(printed[:-1]), printed[-1]


def _encoded(text: str | None, kind: str, missing: list[str]) -> dict | None:
    effect = encode(text, kind)
    if effect is None:
        missing.append(text)
        return None
    return {"op": effect.op.name, "code": [int(effect.op), *effect.args]}


def build_card(src: dict, names: list[str]) -> dict:
    """The table entry of one source card."""
    missing: list[str] = []
    card = {
        "id": src["id"], "name": src["name"], "name_index": names.index(src["name"]),
        "category": src["category"], "trainer_type": src["trainer_type"],
        "is_fossil": src["is_fossil"], "stage": src["stage"],
        "evolves_from": src["evolves_from"], "hp": src["hp"], "type": src["type"],
        "weakness": src["weakness"], "retreat": src["retreat"], "is_ex": src["is_ex"],
        "attacks": [], "ability": None, "trainer": None,
    }
    for attack in src["attacks"]:
        damage, mod = _damage(attack["damage"])
        card["attacks"].append({
            "name": attack["name"], "cost": _cost(attack["cost"]), "damage": damage,
            "damage_mod": mod, "does_damage": attack["damage"] is not None,
            "text": attack["effect"],
            "effect": _encoded(attack["effect"], "attack", missing)})
    if src["ability"] is not None:
        card["ability"] = {"name": src["ability"]["name"], "text": src["ability"]["effect"],
                           "effect": _encoded(src["ability"]["effect"], "ability", missing)}
    if src["category"] == "Trainer":
        card["trainer"] = {"text": src["effect"],
                           "effect": _encoded(src["effect"], "trainer", missing)}
    card["unimplemented"] = missing
    return card


def build_table(source: list[dict]) -> dict:
    """The whole table: type and opcode names, the sorted distinct card names, the cards."""
    names = sorted({c["name"] for c in source})
    return {
        "generated_by": "python tools/tcgjax_cards.py",
        "source": "TCGdex cards-database (MIT, Copyright (c) 2021 TCGdex; LICENSE-TCGDEX.txt), "
                  "commit d9083b73db080979123ebf5e9e97338d4e0745b2, via cards_A1_PA.json",
        "types": [t.name.capitalize() for t in EType],
        "ops": [op.name for op in Op],
        "names": names,
        "cards": [build_card(c, names) for c in source],
    }


def render_table() -> str:
    """The table's JSON text, exactly as committed (one card per line, for readable diffs)."""
    table = build_table(json.loads(SOURCE.read_text(encoding="utf-8")))
    head = {k: v for k, v in table.items() if k != "cards"}
    lines = [json.dumps(head, ensure_ascii=False)[:-1] + ', "cards": [']
    cards = [json.dumps(c, ensure_ascii=False) for c in table["cards"]]
    lines.append(",\n".join(cards))
    lines.append("]}")
    return "\n".join(lines) + "\n"


def main() -> None:
    TABLE.write_text(render_table(), encoding="utf-8")
    print(f"wrote {TABLE}")


if __name__ == "__main__":
    main()
