"""``jaxenvs verify ENV``: run an environment's verification suite and report agreement.

Prints one progress line per check as it finishes, then the agreement table over all checks,
a summary line and, for each failed check, its first-divergence report. Exit status: 0 if
every check passed, 1 if any failed, 2 if the suite could not run (unknown id, no files).
"""

from __future__ import annotations

import argparse
import sys
import time

from jaxenvs.verify.compare import format_agreement_table, format_divergence
from jaxenvs.verify.suite import MODES, CheckResult, SuiteOptions, run_suite


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("env", metavar="ENV", help="environment id, e.g. Pong")
    parser.add_argument("--files", metavar="PATTERN", default=None,
                        help="glob over the reference file names (default: all)")
    parser.add_argument("--mode", choices=(*MODES, "all"), default="all",
                        help="inject: one step from every recorded state; replay: whole "
                             "runs from reset; all: both (default)")


def run(args: argparse.Namespace) -> int:
    start = last = time.perf_counter()

    def progress(check: CheckResult) -> None:
        nonlocal last
        now = time.perf_counter()
        verdict = "PASS" if check.ok else "FAIL"
        print(f"{verdict}  {check.name}  ({check.comparison.steps:,} steps, "
              f"{now - last:.1f} s)", flush=True)
        last = now

    try:
        result = run_suite(args.env, SuiteOptions(files=args.files, mode=args.mode), progress)
    except ValueError as error:
        print(f"jaxenvs verify: {error}", file=sys.stderr)
        return 2
    elapsed = time.perf_counter() - start

    print()
    print(format_agreement_table(
        field for check in result.checks for field in check.comparison.fields.values()))
    print()
    print(f"{result.summary()} ({elapsed:.1f} s)")
    for check in result.checks:
        if not check.ok:
            print(f"\nFAILED {check.name}")
            print(format_divergence(check.comparison))
    return 0 if result.ok else 1
