"""`ctxspec bench`: every implementation measured over the protocol, then the report and the gate.

For every implementation named (the reference answers every request first, as the
oracle the answers are checked against, and is a column only when named): the
streaming tail of each flavour and size (64 KiB chunks, persisting), batch head and tail
of the mixed log per size, the six session helpers and the two end-to-end figures (a
session file to the leaf's context, and to its compaction) per session length, each with its
process's peak memory (`measure.py`), and Pi's token estimate against real token counts
(`estimates.py`). Written as `results.json`, `report.md` and four plots (`report.py`,
`plots.py`); the instructions of the engines' own ops are counted under Callgrind
(`instructions.py`); `--compare` checks the run's ratios and counts against
`baseline.json` (`compare.py`).
Progress goes to stderr (`ctxspec.conformance.runner.progress`).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ctxspec.benchmarks import compare, estimates, instructions, report
from ctxspec.benchmarks.measure import Group, measure_group
from ctxspec.benchmarks.requests import FIGURES, parse_size, session_requests
from ctxspec.conformance.bench_requests import SIDES, stream_request, truncate_request
from ctxspec.conformance.runner.progress import Step, progress, status
from ctxspec.conformance.transport.resolve import canonical_name
from ctxspec.corpora.generators.bench_session import make_session
from ctxspec.corpora.generators.logs import STREAM_FLAVOURS, cached_stream_log

DEFAULT_IMPLS = ("fastengine", "pi@0.85.0")  # with no --impl: the engine raced, and Pi


def labels_of(specs: Sequence[str]) -> list[str]:
    """The report's columns: each implementation named, once, in the order given."""
    labels: list[str] = []
    for spec in specs:
        if canonical_name(spec) not in labels:
            labels.append(canonical_name(spec))
    return labels


def run(
    specs: Sequence[str],
    *,
    sizes: Sequence[str],
    truncate_sizes: Sequence[str],
    entries: Sequence[int],
    flavours: Sequence[str] = STREAM_FLAVOURS,
    rounds: int = 3,
    timeout: float = 600.0,
    cache: Path | None = None,
    quiet: bool = False,
) -> dict[str, Any]:
    """Measure everything; the results as `results.json` holds them."""
    labels = labels_of(specs)
    cache = cache or Path.cwd() / ".cache" / "bench"
    total = len(labels) * (
        len(sizes) * len(flavours) + len(truncate_sizes) * len(SIDES) + len(entries) * len(FIGURES)
    )
    with progress(total + len(labels), "ctxspec bench", quiet=quiet) as step:
        common: dict[str, Any] = {"rounds": rounds, "timeout": timeout, "step": step}
        stream: dict[str, Group] = {}
        for size in sizes:
            logs = {f: cached_stream_log(f, parse_size(size), cache, seed=3) for f in flavours}
            requests = {f: stream_request(path) for f, path in logs.items()}
            stream[size] = measure_group(specs, requests, **common)
        truncate: dict[str, Group] = {}
        for size in truncate_sizes:
            path = cached_stream_log("mixed", parse_size(size), cache, seed=3)
            requests = {side: truncate_request(path, side) for side in SIDES}
            truncate[size] = measure_group(specs, requests, **common)
        sessions: dict[str, Group] = {}
        for count in entries:
            requests = session_requests(make_session(count), cache, count)
            sessions[str(count)] = measure_group(specs, requests, **common)
        accuracy = _estimates(labels, timeout, step)
    hellos: dict[str, Any] = {}
    for group in [*stream.values(), *truncate.values(), *sessions.values()]:
        hellos.update(group.hellos)
    return {
        "implementations": labels,
        "hello": hellos,
        "rounds": rounds,
        "stream": {size: _json(group) for size, group in stream.items()},
        "truncate": {size: _json(group) for size, group in truncate.items()},
        "sessions": {count: _json(group) for count, group in sessions.items()},
        "estimates": accuracy,
    }


def _estimates(labels: Sequence[str], timeout: float, step: Step) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for label in labels:
        step(advance=0, note=f"{label} token estimates")
        out[label] = estimates.measure(label, timeout=timeout)
        step()
    return out


def _json(group: Group) -> dict[str, Any]:
    return {
        "measures": {
            name: {label: None if m is None else m.to_json() for label, m in row.items()}
            for name, row in group.measures.items()
        },
        "peakKiB": group.peaks,
    }


@dataclass(frozen=True, slots=True)
class Options:
    """`ctxspec bench`'s options, checked by its parser (conformance/cli.py)."""

    impls: Sequence[str]
    sizes: Sequence[str]
    batch: Sequence[str]
    entries: Sequence[int]
    flavours: Sequence[str]
    rounds: int
    timeout: float
    ratio_to: str | None
    compare: bool
    baseline: Path
    tolerance: float
    save_baseline: bool
    out: Path
    count: bool  # the instructions of the engines' own ops (--no-instructions: not)
    count_tolerance: float  # --instructions-tolerance
    quiet: bool = False


def count(labels: Sequence[str], cache: Path, quiet: bool) -> dict[str, int]:
    """The instruction counts of the reference's ops and of the engines among `labels`
    (`instructions.py`): the oracle's are counted even where it is not timed, since its
    speed is the suite's."""
    counts: dict[str, int] = {}
    for engine in (e for e in instructions.ENGINES if e == "reference" or e in labels):
        work = instructions.jobs(engine, cache)
        with status(f"ctxspec bench: counting {engine}'s instructions (Callgrind)", quiet=quiet):
            counts.update(instructions.count(engine, work))
    return counts


def _say(text: str) -> None:
    print(f"ctxspec bench: {text}", file=sys.stderr)


def _gate(
    options: Options, current: dict[str, float], counts: dict[str, int] | None
) -> tuple[str, int]:
    """`--compare`: the ratios, and the instruction counts when taken, against the
    baseline; the report's section and the exit status (1: a regression).

    Where the baseline's counts were taken on this interpreter, libc and build, the counts
    are the gate and the ratios' falls are listed: wall-clock ratios on a shared machine
    move by more than any tolerance a real regression stays under. Elsewhere (no
    valgrind, another build) the ratios gate, as before the counts."""
    baseline = compare.load_baseline(options.baseline)
    falls = compare.compare(current, baseline, options.tolerance)
    risen: list[compare.Regression] | None = None
    more = ""
    if counts is not None:
        more, found = compare.render_counts(
            counts, compare.load_counts(options.baseline), options.count_tolerance
        )
        then, now = compare.counted_on(options.baseline), instructions.environment()
        risen = found if then == now else None
        counted = f"instruction counts: {len(found)} rose (tolerance {options.count_tolerance:.1%})"
        if risen is None:  # another interpreter, libc or build: other counts, listed only
            counted += f", not gated: the baseline's were counted on {then}, these on {now}"
    failing = falls if risen is None else risen
    table = compare.render(current, baseline, falls if risen is None else [])
    ratios = f"{len(falls)} ratios fell more than {options.tolerance:.0%}"
    if risen is None:
        verdict = f"{ratios} (gated)" + (f"; {counted}" if counts is not None else "")
    else:
        verdict = f"{counted} (gated); {ratios} (listed: the counts gate on this machine)"
        if falls:
            table += "\n\nRatios that fell, listed: " + ", ".join(
                f"{r.name} {r.baseline:.2f} -> {r.current:.2f}" for r in falls
            )
    if more:
        table += "\n\n" + more
    print(table, file=sys.stderr)
    _say(verdict)
    return f"## Against the baseline: {verdict}\n\n{table}", 1 if failing else 0


def bench(options: Options) -> int:
    """The whole command: measure, write the report, gate; its exit status."""
    specs = list(options.impls) or list(DEFAULT_IMPLS)
    labels = labels_of(specs)
    ratio_to = options.ratio_to and canonical_name(options.ratio_to)
    if ratio_to is None:
        ratio_to = next((label for label in labels if label.startswith("pi@")), labels[0])
    if ratio_to not in labels:
        _say(f"--ratio-to {ratio_to} is not among the implementations ({', '.join(labels)})")
        return 2
    counting = options.count
    if counting and instructions.valgrind() is None:
        missing = "valgrind is not installed (Debian: apt-get install valgrind)"
        if options.compare:  # the gate would not hold: said before the run, not after
            _say(f"--compare counts instructions, but {missing}; --no-instructions: ratios alone")
            return 2
        _say(f"instructions not counted: {missing}")
        counting = False
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    out = options.out / f"bench-{stamp}"
    out.mkdir(parents=True, exist_ok=True)
    _say(f"writing {out} ({', '.join(labels)}; ratios to {ratio_to})")
    results = run(
        specs,
        sizes=options.sizes,
        truncate_sizes=options.batch,
        entries=options.entries,
        flavours=options.flavours,
        rounds=options.rounds,
        timeout=options.timeout,
        quiet=options.quiet,
    )
    current = compare.ratios(results, ratio_to)
    results["ratios"] = current
    counts: dict[str, int] | None = None
    if counting:
        try:
            counts = count(labels, Path.cwd() / ".cache" / "bench", options.quiet)
        except instructions.CountError as error:
            _say(f"instructions not counted: {error} (--no-instructions: the ratios alone)")
            return 2
        results["instructions"] = counts
    gate, exit_status = _gate(options, current, counts) if options.compare else (None, 0)
    if options.save_baseline:
        command = [
            "ctxspec bench",
            *(f"--impl {spec}" for spec in specs),
            *options.sizes,
            f"--batch {','.join(options.batch)}",
            f"--entries {','.join(map(str, options.entries))}",
            f"--rounds {options.rounds}",
        ]
        note = f"ratios of one run of `{' '.join(command)}` ({stamp})"
        on = instructions.environment() if counts is not None else None
        compare.save_baseline(current, options.baseline, note=note, counts=counts, on=on)
    path = report.write(results, out, stamp, ratio_to, gate=gate)
    print(path)
    return exit_status
