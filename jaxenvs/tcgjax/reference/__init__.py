"""The TCGJax reference engine: the rules of ``RULES.md`` in plain, readable Python.

Read ``state`` (the classes, ``Game.to_dict``/``game_from_dict``), ``rules`` (setup, legal
actions, ``step``, the turn flow), ``effects`` (one function per card effect), ``policies``
(random and scripted players, ``play_game``), ``positions`` (hand-built test positions) and
``render`` (text views of a game and its log). What holds the JAX engine to it: ``convert``
(reference game <-> JAX state), ``lockstep`` (both engines over the same games, the L3 check
and its first-divergence report), ``verification`` (``jaxenvs verify TCGJax``, registered here
by name) and ``transfer`` (a trained policy in both engines, L4). ``speed`` is the reference's
throughput; ``bench_rows`` puts it beside the env in ``jaxenvs bench TCGJax`` (imported here
because ``jaxenvs.bench`` imports an env's ``reference`` package for its rows).
The engine takes every random decision from a random source (``jaxenvs.tcgjax.rng``); it calls
JAX only through ``JaxKeyRandomSource``.
"""

import hashlib
from pathlib import Path

from jaxenvs.tcgjax.reference.policies import MixedPolicy, RandomPolicy, ScriptedPolicy, play_game
from jaxenvs.tcgjax.reference.rules import action_mask, legal_actions, new_game, step
from jaxenvs.tcgjax.reference.state import (Choice, ChoiceKind, Game, Phase, Player, PokemonInPlay,
                                            Status, game_from_dict)

__all__ = ["Choice", "ChoiceKind", "Game", "MixedPolicy", "Phase", "Player", "PokemonInPlay",
           "RandomPolicy", "ScriptedPolicy", "Status", "action_mask", "game_from_dict",
           "legal_actions", "new_game", "play_game", "step"]

from jaxenvs.tcgjax.reference import bench_rows  # noqa: E402,F401  (registers the bench row)
from jaxenvs.verify.suite import ReferenceInfo, register_suite  # noqa: E402


#: The modules of the reference engine itself.
ENGINE_MODULES = ("state", "rules", "effects", "policies")


def reference_versions() -> dict[str, str]:
    """The reference as the certificate names it: a digest of the reference engine's sources
    (its version is jaxenvs's own; the modules that hold the JAX engine to it are not part)."""
    sources = hashlib.sha256()
    for name in ENGINE_MODULES:
        sources.update((Path(__file__).parent / f"{name}.py").read_bytes())
    return {"TCGJax Python reference": f"sources sha256 {sources.hexdigest()[:12]}"}


REFERENCE_INFO = ReferenceInfo(
    "the Python reference engine (jaxenvs.tcgjax.reference), random-vs-random games",
    reference_versions,
    "every field of the game state (cards, Pokémon in play, counters, pending choices), the "
    "legal-action mask and the rewards, after new_game and after every decision (a 64-bit "
    "digest of them per step), in each batched form of the engine")
for _env_id in ("TCGJax", "TCGJax2P"):
    register_suite(_env_id, "jaxenvs.tcgjax.reference.verification:tcgjax_suite",
                   reference=REFERENCE_INFO)
