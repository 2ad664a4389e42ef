"""The TCGJax reference engine: the rules of ``RULES.md`` in plain, readable Python.

Read ``state`` (the classes, ``Game.to_dict``/``game_from_dict``), ``rules`` (setup, legal
actions, ``step``, the turn flow), ``effects`` (one function per card effect), ``policies``
(random and scripted players, ``play_game``), ``positions`` (hand-built test positions) and
``speed`` (the throughput measurement; ``bench_rows`` puts it beside the env in
``jaxenvs bench TCGJax``, and is imported here because ``jaxenvs.bench`` imports an env's
``reference`` package for its rows).
The engine takes every random decision from a random source (``jaxenvs.tcgjax.rng``); it calls
JAX only through ``JaxKeyRandomSource``.
"""

from jaxenvs.tcgjax.reference.policies import RandomPolicy, ScriptedPolicy, play_game
from jaxenvs.tcgjax.reference.rules import action_mask, legal_actions, new_game, step
from jaxenvs.tcgjax.reference.state import (
    Choice, ChoiceKind, Game, Phase, Player, PokemonInPlay, Status, game_from_dict)

__all__ = ["Choice", "ChoiceKind", "Game", "Phase", "Player", "PokemonInPlay", "RandomPolicy",
           "ScriptedPolicy", "Status", "action_mask", "game_from_dict", "legal_actions",
           "new_game", "play_game", "step"]

from jaxenvs.tcgjax.reference import bench_rows  # noqa: E402,F401  (registers the bench row)
