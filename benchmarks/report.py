"""`ctxspec bench`: one command for the whole benchmark report, with plots.

    ctxspec bench [SIZE ...] [--batch SIZE,...] [--compare] [--save-baseline]
    ctxspec bench --impl A [--impl B ...] [SIZE ...] [--batch SIZE,...] [--entries N,...]
                  [--flavours F,...] [--rounds R] [--ratio-to IMPL]

Runs, in one process and one sitting: the streaming-tail figures (reference, the real Pi
timed inside Node, the machine's `wc`/`cat`/`dd`/`tail`/`tee`) per size (default 1MiB
16MiB 64MiB) and flavour; peak memory per size, reference and Pi; batch head/tail against
Pi (default 16MiB,64MiB); the session helpers at 1k/10k/100k entries against Pi; the
estimate accuracy table. Writes `reports/bench-<UTC time>/report.md`, `results.json` and
four plots (throughput, ratio to Pi and peak memory against input size; session cost
against entries). `--compare` checks this run's ratios against `benchmarks/baseline.json`
(`benchmarks/compare.py`) and exits 1 on a regression; `--save-baseline` rewrites it.
Figures are one run's medians on whatever machine runs it: compare ratios, not times.

With `--impl` (repeatable: reference, pi@VERSION, NAME@VERSION or a protocol v1 command)
it writes instead one report with every implementation side by side, measured over the
protocol's bench extension where the implementation has it (`impls.py`,
`impls_report.py`): streaming tail per size and flavour, batch head/tail per size (the
stream sizes unless `--batch` is given), session helpers per length (`--entries`,
default 1000,10000,100000), peak memory of each process, every answer checked against
the reference's.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import time
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import batch_figures  # noqa: E402  (sibling scripts, not an installed package)
import compare  # noqa: E402
import estimate_accuracy  # noqa: E402
import impls_report  # noqa: E402
import session_figures  # noqa: E402
import stream_figures  # noqa: E402
import stream_memory  # noqa: E402

from conformance.transport.resolve import canonical_name  # noqa: E402
from corpora.generators.logs import STREAM_FLAVOURS  # noqa: E402

SESSION_SIZES = "1000,10000,100000"


def _captured(run: Any, *args: Any) -> tuple[str, Any]:
    """What `run` prints (a Markdown table) and what it returns."""
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        value = run(*args)
    return buffer.getvalue().strip(), value


def _throughput(measured: dict[str, dict[str, dict[str, float]]]) -> dict[str, dict[str, float]]:
    """MiB/s per measure and size on the mixed log (the plot's and the gate's data)."""
    series: dict[str, dict[str, float]] = {}
    for label, flavours in measured.items():
        size = stream_memory.parse_size(label)
        for name, seconds in flavours["mixed"].items():
            series.setdefault(name, {})[label] = size / seconds / 2**20
    return series


def _sessions() -> dict[str, Any]:
    """The session helpers, reference and Pi timed in the same rounds, interleaved.

    `session_figures.figures()`: its `sessionsMs` is the scaling plot's data, its
    `ratios` are what the gate compares (the ratios of separate runs moved by up to 2x).
    """
    sizes = [int(size) for size in SESSION_SIZES.split(",")]
    return session_figures.figures(sizes, rounds=7, pi=session_figures.pi_install())


def _plot(
    series: dict[str, dict[str, float]], path: Path, xlabel: str, ylabel: str, x_of: Any
) -> None:
    figure, axes = plt.subplots(figsize=(8, 5))
    for name, points in sorted(series.items()):
        xs = [x_of(k) for k in points]
        axes.plot(
            xs,
            list(points.values()),
            marker="o",
            label=name,
            linestyle="--" if name.startswith("Pi") else "-",
        )
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def _ratio_series(current: dict[str, float]) -> dict[str, dict[str, float]]:
    """The ratios against Pi by input size, for the plot."""
    series: dict[str, dict[str, float]] = {}
    for name, value in current.items():
        kind, _, rest = name.partition(" ")
        size, _, what = rest.partition(": ")
        if kind in ("stream", "batch") and what.endswith("/ Pi"):
            series.setdefault(f"{kind} {what}", {})[size] = value
    return series


def _memory_series(memory: dict[str, dict[str, float | None]]) -> dict[str, dict[str, float]]:
    series: dict[str, dict[str, float]] = {}
    for size, row in memory.items():
        for who, label in (("reference", "reference"), ("pi", "Pi 0.85.0")):
            peak = row.get(f"{who}PeakMiB")
            if peak is not None:
                series.setdefault(f"{label} peak RSS", {})[size] = peak
    return series


def _arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="ctxspec bench")
    parser.add_argument("sizes", nargs="*", default=["1MiB", "16MiB", "64MiB"])
    parser.add_argument(
        "--batch", default=None, help="batch head/tail sizes (16MiB,64MiB; with --impl: SIZE ...)"
    )
    parser.add_argument("--compare", action="store_true", help="gate on benchmarks/baseline.json")
    parser.add_argument("--baseline", type=Path, default=compare.BASELINE)
    parser.add_argument("--tolerance", type=float, default=compare.TOLERANCE)
    parser.add_argument("--save-baseline", action="store_true", help="write this run's ratios")
    parser.add_argument(
        "--impl",
        action="append",
        default=[],
        help="an implementation to measure side by side (repeatable): reference, pi@VERSION, "
        "NAME@VERSION or a command speaking protocol v1",
    )
    parser.add_argument("--entries", default=SESSION_SIZES, help="session lengths (with --impl)")
    parser.add_argument(
        "--flavours",
        default=",".join(STREAM_FLAVOURS),
        help="stream log flavours (with --impl)",
    )
    parser.add_argument("--rounds", type=int, default=3, help="requests per figure (with --impl)")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per request")
    parser.add_argument(
        "--ratio-to", help="ratios against this implementation (default: the first pi@)"
    )
    return parser.parse_args(argv)


def _sizes(text: str) -> list[str]:
    return [s for s in text.split(",") if s]


def _main_impls(options: argparse.Namespace, out: Path, stamp: str) -> int:
    """`--impl`: every implementation side by side (`impls_report.py`)."""
    labels = [canonical_name(spec) for spec in options.impl]
    ratio_to = options.ratio_to and canonical_name(options.ratio_to)
    if ratio_to is None:
        ratio_to = next((label for label in labels if label.startswith("pi@")), "reference")
    if ratio_to not in ["reference", *labels]:
        print(f"ctxspec bench: --ratio-to {ratio_to} is not among the --impl", file=sys.stderr)
        return 2
    flavours = [f for f in options.flavours.split(",") if f]
    unknown = sorted(set(flavours) - set(STREAM_FLAVOURS))
    if unknown or options.rounds < 1:
        what = f"unknown flavours {unknown}" if unknown else "--rounds must be at least 1"
        print(f"ctxspec bench: {what} (flavours: {', '.join(STREAM_FLAVOURS)})", file=sys.stderr)
        return 2
    results = impls_report.run(
        options.impl,
        sizes=options.sizes,
        truncate_sizes=options.sizes if options.batch is None else _sizes(options.batch),
        entries=[int(n) for n in options.entries.split(",") if n],
        flavours=flavours,
        rounds=options.rounds,
        timeout=options.timeout,
    )
    print(impls_report.write(results, out, stamp, ratio_to))
    return 0


def main(argv: list[str]) -> int:
    options = _arguments(argv)
    if options.impl and (options.compare or options.save_baseline):
        print(
            "ctxspec bench: --compare and --save-baseline gate the default report (no --impl)",
            file=sys.stderr,
        )
        return 2
    sizes = options.sizes
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    out = Path.cwd() / "reports" / f"bench-{stamp}"
    out.mkdir(parents=True, exist_ok=True)
    print(f"ctxspec bench: writing {out}", file=sys.stderr)
    if options.impl:
        return _main_impls(options, out, stamp)
    stream_table, measured = _captured(stream_figures.main, sizes)
    throughput = _throughput(measured)
    memory_table, memory = _captured(stream_memory.main, sizes)
    batch_sizes = _sizes(options.batch or "16MiB,64MiB")
    batch_table, batch = _captured(batch_figures.main, batch_sizes)
    interleaved = _sessions()
    sessions = interleaved["sessionsMs"]
    results = {
        "throughputMiBs": throughput,
        "memoryMiB": memory,
        "batchNs": batch,
        "sessionsMs": sessions,
        "sessions": interleaved,
    }
    current = compare.ratios(results)
    to_mib = lambda label: stream_memory.parse_size(label) / 2**20  # noqa: E731
    _plot(throughput, out / "stream-throughput.png", "input size (MiB)", "MiB/s", to_mib)
    _plot(_ratio_series(current), out / "ratio-vs-pi.png", "input size (MiB)", "× Pi", to_mib)
    _plot(_memory_series(memory), out / "memory.png", "input size (MiB)", "peak RSS (MiB)", to_mib)
    _plot(sessions, out / "session-scaling.png", "entries", "median ms", int)
    sections = [
        f"# ctxspec benchmark report ({stamp})",
        "Medians of one run on this machine; compare ratios, not times.",
        "## Streaming tail\n\n![throughput](stream-throughput.png)\n\n" + stream_table,
        "## Ratios against Pi 0.85.0\n\n![ratio](ratio-vs-pi.png)",
        "## Peak memory of the streaming tail\n\n![memory](memory.png)\n\n" + memory_table,
        "## Batch head and tail\n\n" + batch_table,
        "## Session helpers (interleaved rounds, medians)\n\n![scaling](session-scaling.png)\n\n"
        + session_figures.table(interleaved),
        "## Estimate accuracy\n\n" + _captured(estimate_accuracy.main)[0],
    ]
    status = 0
    if options.compare:
        baseline = compare.load_baseline(options.baseline)
        regressions = compare.compare(current, baseline, options.tolerance)
        gate = compare.render(current, baseline, regressions)
        verdict = f"{len(regressions)} regressions (tolerance {options.tolerance:.0%})"
        sections.append(f"## Against the baseline: {verdict}\n\n{gate}")
        print(gate + "\n" + verdict, file=sys.stderr)
        status = 1 if regressions else 0
    if options.save_baseline:
        compare.save_baseline(current, options.baseline)
    (out / "report.md").write_text("\n\n".join(sections) + "\n")
    results["ratios"] = current
    (out / "results.json").write_text(json.dumps(results, indent=1) + "\n")
    print(out / "report.md")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
