"""`ctxspec fuzz`: the command over the fuzz driver (`fuzz.fuzz`) and its case writer.

`fuzz_arguments` adds its options (conformance/cli.py registers the command); `main_fuzz` opens both
implementations, runs the driver with progress on stderr, prints each op's minimal
divergences as cases (`fuzz_cases`), writes them with `--write-cases` and the report
with `--json`, and ends with `summary`. `EXIT_STATUS` says how each outcome exits (its
rows of `ctxspec.exits`).
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from ctxspec import exits
from ctxspec.cli import UsageError
from ctxspec.conformance.cli_args import (
    count,
    impl_spec,
    output_dir,
    output_file,
    positive_int,
    seconds,
)
from ctxspec.conformance.cli_args import seed as seed_type
from ctxspec.conformance.errors import StartupFailed
from ctxspec.conformance.strategies.ops import OP_ARGS
from ctxspec.conformance.tools.fuzz import DEFAULT_SHRINK_CALLS, OpReport, fuzz
from ctxspec.conformance.tools.fuzz_cases import case_yaml, write_cases
from ctxspec.conformance.transport.resolve import (
    PI_NAME,
    InstallError,
    canonical_name,
    open_implementation,
    prepare,
)

__all__ = ["EXIT_STATUS", "fuzz_arguments", "main_fuzz", "summary"]


def summary(reports: Sequence[OpReport], seed: int, impl_name: str, against_name: str) -> str:
    """The per-op table: examples, diverging examples, distinct minimal divergences, errors."""
    lines = [
        f"ctxspec fuzz: {impl_name} against {against_name}, seed {seed}",
        f"{'op':<26} {'examples':>8} {'diverging':>9} {'distinct':>8} "
        f"{'errors impl/against':>19} {'unsupported':>11} {'refused':>7} {'unsettled':>9}",
    ]
    for report in reports:
        if report.skipped:
            lines.append(f"{report.op:<26} skipped: {report.skipped}")
            continue
        errors = f"{report.errors['impl']}/{report.errors['against']}"
        lines.append(
            f"{report.op:<26} {report.examples:>8} {report.diverging:>9} {len(report.found):>8} "
            f"{errors:>19} {report.unsupported:>11} {report.refused:>7} {report.unsettled:>9}"
        )
        for item in report.found:
            lines.append(f"    - {item.signature}")
        for sample in report.error_samples[:2]:
            lines.append(f"    ! {sample}")
    return "\n".join(lines)


# --- the command ------------------------------------------------------------------------

EXIT_STATUS: Final = exits.statuses("fuzz")


def fuzz_arguments(parser: argparse.ArgumentParser) -> None:
    """`ctxspec fuzz`'s options (conformance/cli.py registers the command)."""
    parser.add_argument(
        "--impl", type=impl_spec, required=True, help="the implementation under test"
    )
    parser.add_argument(
        "--against", type=impl_spec, default=None, help="the oracle (default pi@0.85.0)"
    )
    parser.add_argument(
        "--op", action="append", default=[], help="only this op (repeatable; default all)"
    )
    parser.add_argument("--examples", type=positive_int, default=100, help="examples per op (100)")
    parser.add_argument("--seed", type=seed_type, default=None, help="seed (default: random)")
    parser.add_argument(
        "--shrink-calls",
        type=count,
        default=DEFAULT_SHRINK_CALLS,
        help=f"new requests the shrinker may send per op ({DEFAULT_SHRINK_CALLS})",
    )
    parser.add_argument(
        "--write-cases",
        type=output_dir,
        metavar="DIR",
        help="append minimal cases to DIR/<boundary>/<behaviour>.yaml (the op's corpus file)",
    )
    parser.add_argument(
        "--json", type=output_file, metavar="FILE", help="write the per-op report as JSON"
    )
    parser.add_argument("--timeout", type=seconds, default=30.0, help="seconds per request")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")


def main_fuzz(options: Any) -> int:
    impl_name = canonical_name(options.impl)
    against_name = canonical_name(options.against or PI_NAME)
    unknown = [op for op in options.op if op not in OP_ARGS]
    if unknown:
        raise UsageError("--op", f"no strategy for {unknown}; ops: {', '.join(sorted(OP_ARGS))}")
    if options.examples < 1 or options.shrink_calls < 0:
        print("ctxspec fuzz: --examples must be >= 1 and --shrink-calls >= 0", file=sys.stderr)
        return 2
    seed = options.seed if options.seed is not None else secrets.randbelow(2**32)
    try:
        for name in (impl_name, against_name):
            prepare(name, quiet=options.quiet)
        impl = open_implementation(impl_name, timeout=options.timeout)
        against = open_implementation(against_name, timeout=options.timeout)
    except (InstallError, ValueError) as error:
        print(f"ctxspec fuzz: {error}", file=sys.stderr)
        return 2

    def progress(message: str) -> None:
        if not options.quiet:
            print(f"[fuzz] {message}", file=sys.stderr, flush=True)

    written: set[str] = set()

    def keep(reports: list[OpReport]) -> None:
        """After each op: its cases printed and written, the JSON report rewritten."""
        report = reports[-1]
        if report.found:
            print(case_yaml(report.found, impl_name, against_name), flush=True)
        if options.write_cases:
            for path in write_cases(
                Path(options.write_cases), report.found, impl_name, against_name
            ):
                written.add(str(path))
        if options.json:
            data = {
                "impl": impl_name,
                "against": against_name,
                "seed": seed,
                "examples": options.examples,
                "ops": [r.to_json() for r in reports],
            }
            Path(options.json).write_text(json.dumps(data, indent=1) + "\n", "utf-8")

    try:
        reports = fuzz(
            impl,
            against,
            ops=options.op or None,
            examples=options.examples,
            seed=seed,
            shrink_calls=options.shrink_calls,
            progress=progress,
            on_report=keep,
            quiet=options.quiet,
        )
    except StartupFailed as error:
        print(f"ctxspec fuzz: {error}", file=sys.stderr)
        return 6
    finally:
        impl.close()
        against.close()
    print(summary(reports, seed, impl_name, against_name))
    for path in sorted(written):
        print(f"cases appended to {path}")
    found = [item for report in reports for item in report.found]
    if found:
        return 1
    return 3 if any(report.errors for report in reports) else 0
