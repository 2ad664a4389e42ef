"""Random-action steps per second of a jaxenvs environment: ``jaxenvs bench`` as a script.

    python benchmarks/sps.py --env Pong [--batch-sizes 1 64 1024 4096] [--steps N]
        [--repeats R] [--param NAME=VALUE ...] [--out DIR] [--cpu-devices N|auto]

Same measurement and output as ``jaxenvs bench ENV`` (see ``jaxenvs/bench.py`` and
``benchmarks/README.md``); results go to ``benchmarks/results/`` next to this file by default.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from jaxenvs import bench
from jaxenvs.devices import use_cpu_devices


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", metavar="ENV", required=True, help="environment id, e.g. Pong")
    bench.add_measurement_options(parser)
    parser.set_defaults(out=Path(__file__).resolve().parent / "results")
    args = parser.parse_args(argv)
    use_cpu_devices(args.cpu_devices, restart_command=argv is None)
    return bench.run(args)


if __name__ == "__main__":
    sys.exit(main())
