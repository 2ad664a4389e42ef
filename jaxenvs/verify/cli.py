"""``jaxenvs verify ENV``: run an environment's verification suite and report agreement.

Prints one progress line per check as it finishes, then the agreement table over all checks,
a summary line, for each failed check its first-divergence report, and the certificate
(``certificate``). Exit status: 0 if every check passed, 1 if any failed, 2 if the suite could
not run (unknown id or option value, no files, a reference that is not installed), with a
one-line message.
"""

from __future__ import annotations

import argparse
import sys
import time

from jaxenvs.verify.certificate import certificate
from jaxenvs.verify.compare import format_agreement_table, format_divergence
from jaxenvs.verify.suite import MODES, CheckResult, SuiteOptions, run_suite


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("env", metavar="ENV", help="environment id, e.g. Pong")
    parser.add_argument("--files", metavar="PATTERN", default=None,
                        help="glob over the reference file names (default: all)")
    # Checked by SuiteOptions rather than argparse, for a one-line message.
    parser.add_argument("--mode", metavar="{" + ",".join((*MODES, "all")) + "}", default="all",
                        help="inject: one step from every recorded state; replay: whole "
                             "runs from reset; all: both (default)")
    parser.add_argument("--full", action="store_true",
                        help="the full-size run of the slow tests instead of the quick "
                             "default (on 2 cores: PokeJAX about 30 minutes, TCGJax about 6)")


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
        options = SuiteOptions(files=args.files, mode=args.mode, full=args.full)
        result = run_suite(args.env, options, progress)
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
            print(check.detail or format_divergence(check.comparison))
    print()
    print(certificate(result))
    return 0 if result.ok else 1
