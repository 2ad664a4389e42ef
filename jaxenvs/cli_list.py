"""``jaxenvs list``: the registered environment ids with their spaces."""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    del parser  # no options


def run(args: argparse.Namespace) -> int:
    del args
    import jaxenvs

    for env_id in jaxenvs.registered_envs:
        env, params = jaxenvs.make(env_id)
        print(f"{env_id:16s} obs {env.observation_space(params)}  "
              f"actions {env.action_space(params)}")
    return 0
