"""The ``jaxenvs`` command line: ``list``, ``bench``, ``verify``, ``train``, ``eval``.

Each verb lives in the module that does the work; that module provides
``add_arguments(parser)`` and ``run(args) -> int`` (the exit status).
"""

from __future__ import annotations

import argparse
import importlib
import sys

from jaxenvs._src import compilation_cache
from jaxenvs.devices import use_cpu_devices

#: verb -> (module providing add_arguments/run, one-line help)
VERBS = {
    "list": ("jaxenvs.cli_list", "list the registered environments"),
    "bench": ("jaxenvs.bench", "measure random-action steps per second"),
    "verify": ("jaxenvs.verify.cli", "check an environment against its reference"),
    "train": ("jaxenvs.ppo.train_cli", "train PPO on an environment"),
    "eval": ("jaxenvs.ppo.eval_cli", "evaluate a trained policy"),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="jaxenvs", description="Verified, high-performance JAX RL environments.")
    verbs = parser.add_subparsers(dest="verb", required=True, metavar="VERB")
    for verb, (module_name, help_text) in VERBS.items():
        sub = verbs.add_parser(verb, help=help_text, description=help_text)
        module = importlib.import_module(module_name)
        module.add_arguments(sub)
        sub.set_defaults(run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one verb; ``argv`` defaults to the command line. A verb with ``--cpu-devices``
    gets that many CPU devices first (run as a command, restarting itself if JAX has
    already started with another count; see ``jaxenvs/devices.py``). Run as a command, it
    keeps compiled programs in JAX's persistent cache (``_src/compilation_cache.py``)."""
    args = build_parser().parse_args(argv)
    if getattr(args, "cpu_devices", None) is not None:
        use_cpu_devices(args.cpu_devices, restart_command=argv is None)
    if argv is None:
        compilation_cache.enable()
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
