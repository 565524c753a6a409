"""The benchmark regression gate: this run's ratios against a committed baseline.

Absolute times move with the machine and whatever else it runs; the ratio of two
implementations timed on the same input in the same run moves much less. So the gate
compares ratios only, each "higher is better": the `--ratio-to` implementation's median
time (Pi 0.85.0 by default) over each other implementation's, per figure of the report,
named `<part> <size>: <figure> <implementation> / <ratio-to>`, e.g.
`sessions 100000: findCutPoint fastengine / pi@0.85.0`. A ratio that falls more than the
tolerance below its baseline is a fall (`ctxspec bench --tolerance`, whose default, 0.3,
is set in one place, its parser: one ratio measured twice in one run on the 2-core
shared machine moved by up to ~20%): it fails the gate where no instruction count of
this build gates, and is listed where one does (`ctxspec.benchmarks.run._gate`); ratios missing
on either side (a size not run, an implementation not installed) are listed, never failed.

The reference's own ratios (with `--impl reference`) are listed, not gated: it is the
plain oracle every answer is checked against, not the engine raced, and the baseline
holds none. Stream and batch ratios are gated from 16 MiB
on (a 1 MiB figure is a few milliseconds), the stream's on the mixed log only (the other
flavours are listed, as before the one path). Session ratios are gated from
`SESSION_GATE_ENTRIES` entries on, not `estimateContextTokens` (microseconds on both
sides): below that size a helper takes about a millisecond or less. The end-to-end
figures (`open+buildSessionContext`, `open+prepareCompaction`: `bench.open`) are session
figures like the helpers, gated the same way once a baseline holds them.

Runs on the 2-core shared machine disagree by more than the tolerance (the 64 MiB mixed
stream's fastengine / Pi ratio was 17.7, 23.6 and 10.8 in three runs of one evening), so
the committed baseline is the per-ratio minimum of several runs (`python -m
ctxspec.benchmarks.compare RESULTS.json ...`, `minimum`), a floor a busy run can still fall
through. The gate that holds on a noisy machine is the instruction counts of the engines'
own ops (`benchmarks/instructions.py`), stored beside the ratios under `instructions`:
a count that rises more than `--instructions-tolerance` above its baseline fails the
gate, one that falls more than that is listed (the baseline can be lowered with
`--save-baseline`), counts missing on either side are listed.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from ctxspec.benchmarks.requests import parse_size

BASELINE: Final = Path(__file__).resolve().parent / "baseline.json"
SESSION_GATE_ENTRIES: Final = 100000
GATE_BYTES: Final = 16 << 20  # stream and batch ratios are gated from 16 MiB on
GATED_FLAVOURS: Final = frozenset({"mixed"})
UNGATED_SESSION_HELPERS: Final = frozenset({"estimateContextTokens"})
PARTS: Final = ("stream", "truncate", "sessions")


@dataclass(frozen=True, slots=True)
class Regression:
    name: str
    baseline: float
    current: float


def _seconds(raw: Mapping[str, Any] | None) -> float | None:
    """A usable figure's seconds (an answer checked, a clock believed), else None."""
    if raw is None or raw["verdict"] != "ok" or raw["seconds"] is None:
        return None
    seconds = float(raw["seconds"])
    return seconds if seconds > 0 and not math.isnan(seconds) else None


def ratios(results: Mapping[str, Any], ratio_to: str) -> dict[str, float]:
    """Every ratio of one run's `results.json` against `ratio_to`, by a stable name."""
    out: dict[str, float] = {}
    for part in PARTS:
        for key, group in results.get(part, {}).items():
            for name, row in group["measures"].items():
                base = _seconds(row.get(ratio_to))
                if base is None:
                    continue
                for label, raw in row.items():
                    seconds = _seconds(raw)
                    if label != ratio_to and seconds is not None:
                        out[f"{part} {key}: {name} {label} / {ratio_to}"] = base / seconds
    return out


def gated(name: str) -> bool:
    """Whether a ratio can fail the gate (see the module docstring)."""
    part, _, rest = name.partition(" ")
    size, _, figure = rest.partition(": ")
    what = figure.partition(" ")[0]
    if name.rpartition(" / ")[0].endswith(" reference"):
        return False  # the oracle is measured to check answers, not raced
    if part == "sessions":
        return (
            size.isdigit()
            and int(size) >= SESSION_GATE_ENTRIES
            and what not in UNGATED_SESSION_HELPERS
        )
    try:
        large = parse_size(size) >= GATE_BYTES
    except ValueError:
        return False
    return large and (part != "stream" or what in GATED_FLAVOURS)


def minimum(runs: Sequence[Mapping[str, float]]) -> dict[str, float]:
    """The per-ratio minimum of several runs' ratios (a baseline a quiet run cannot fail
    by being quiet, nor a busy one by catching the machine busier than the others)."""
    out: dict[str, float] = {}
    for ratios in runs:
        for name, value in ratios.items():
            out[name] = min(value, out.get(name, value))
    return out


def compare(
    current: Mapping[str, float], baseline: Mapping[str, float], tolerance: float
) -> list[Regression]:
    """The gated ratios that fell more than `tolerance` (a fraction) below the baseline."""
    return [
        Regression(name, baseline[name], value)
        for name, value in sorted(current.items())
        if gated(name) and name in baseline and value < baseline[name] * (1 - tolerance)
    ]


def _table(
    header: str,
    current: Mapping[str, float],
    baseline: Mapping[str, float],
    show: Callable[[float], str],
    change: Callable[[str, float, float], str],
) -> str:
    """A Markdown table of every figure, baseline beside it, `change` saying how it moved."""
    lines = [f"| {header} | baseline | this run | change |", "|---|---|---|---|"]
    for name in sorted(set(current) | set(baseline)):
        now, then = current.get(name), baseline.get(name)
        if now is None or then is None:
            moved = "not measured in this run" if now is None else "no baseline"
        else:
            moved = change(name, now, then)
        cells = ["–" if v is None else show(v) for v in (then, now)]
        lines.append(f"| {name.replace('|', chr(92) + '|')} | {cells[0]} | {cells[1]} | {moved} |")
    return "\n".join(lines)


def render(
    current: Mapping[str, float], baseline: Mapping[str, float], regressions: list[Regression]
) -> str:
    """A Markdown table of every ratio, baseline beside it, regressions marked."""
    failed = {r.name for r in regressions}

    def change(name: str, now: float, then: float) -> str:
        mark = " **REGRESSION**" if name in failed else ("" if gated(name) else " (listed)")
        return f"{(now / then - 1) * 100:+.0f}%{mark}"

    return _table("ratio (higher is better)", current, baseline, lambda v: f"{v:.2f}", change)


def rose(
    current: Mapping[str, int], baseline: Mapping[str, int], tolerance: float
) -> list[Regression]:
    """The instruction counts that rose more than `tolerance` (a fraction) above the
    baseline: each one fails the gate."""
    return [
        Regression(name, baseline[name], value)
        for name, value in sorted(current.items())
        if name in baseline and value > baseline[name] * (1 + tolerance)
    ]


def render_counts(
    current: Mapping[str, int], baseline: Mapping[str, int], tolerance: float
) -> tuple[str, list[Regression]]:
    """A Markdown table of every instruction count, baseline beside it, rises over the
    tolerance marked as regressions and falls under it listed; and the regressions."""
    regressions = rose(current, baseline, tolerance)
    failed = {r.name for r in regressions}

    def change(name: str, now: float, then: float) -> str:
        mark = " **REGRESSION**" if name in failed else ""
        if now < then * (1 - tolerance):
            mark = " (fell: --save-baseline to keep it)"
        return f"{(now / then - 1) * 100:+.2f}%{mark}"

    header = "instructions (lower is better)"
    return _table(header, current, baseline, lambda v: f"{v:,.0f}", change), regressions


def _baseline(path: Path) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(path.read_text("utf-8"))
    return body


def load_baseline(path: Path = BASELINE) -> dict[str, float]:
    return {str(k): float(v) for k, v in _baseline(path)["ratios"].items()}


def load_counts(path: Path = BASELINE) -> dict[str, int]:
    """The baseline's instruction counts (none in a baseline written before them)."""
    return {str(k): int(v) for k, v in _baseline(path).get("instructions", {}).items()}


def counted_on(path: Path = BASELINE) -> str | None:
    """Where the baseline's counts were taken (`instructions.environment`), if said."""
    on = _baseline(path).get("instructionsOn")
    return on if isinstance(on, str) else None


def save_baseline(
    current: Mapping[str, float],
    path: Path = BASELINE,
    note: str = "",
    counts: Mapping[str, int] | None = None,
    on: str | None = None,
) -> None:
    """The ratios and the instruction counts (taken `on`); without `counts`, the file's
    are kept."""
    old = _baseline(path) if path.exists() else {}
    body = {k: v for k, v in old.items() if k.startswith("instructions") and counts is None}
    body |= {"note": f"{note}; see benchmarks/compare.py", "ratios": dict(current)}
    if counts is not None:
        body |= {"instructions": dict(counts), "instructionsOn": on, "instructionsNote": note}
    path.write_text(json.dumps(body, indent=1, sort_keys=True) + "\n", "utf-8")


def save_counts(counts: Mapping[str, int], path: Path, note: str, on: str) -> None:
    """The instruction counts (taken `on`) alone into the baseline, its ratios kept."""
    body = _baseline(path)
    body |= {"instructions": dict(counts), "instructionsOn": on, "instructionsNote": note}
    path.write_text(json.dumps(body, indent=1, sort_keys=True) + "\n", "utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m ctxspec.benchmarks.compare RESULTS.json ... [--out FILE]`: a baseline as the
    per-ratio minimum of several `ctxspec bench` runs (their `results.json`), and the
    per-op maximum of their instruction counts."""
    parser = argparse.ArgumentParser(prog="python -m ctxspec.benchmarks.compare")
    parser.add_argument("results", nargs="+", type=Path, help="results.json of bench runs")
    parser.add_argument("--out", type=Path, default=BASELINE, help="the baseline to write")
    options = parser.parse_args(argv)
    runs, stamps = [], []
    counts: dict[str, int] = {}
    on: str | None = None
    for path in options.results:
        try:
            body = json.loads(path.read_text("utf-8"))
            runs.append(body["ratios"])
            on = body.get("instructionsOn", on)
            for name, value in body.get("instructions", {}).items():
                counts[name] = max(int(value), counts.get(name, 0))
        except (OSError, ValueError, KeyError) as error:
            print(
                f"python -m ctxspec.benchmarks.compare: {path}: "
                f"not a bench run's results ({error})",
                file=sys.stderr,
            )
            return 2
        stamps.append(path.parent.name)
    note = f"the per-ratio minimum of the `ctxspec bench` runs {', '.join(stamps)}"
    save_baseline(minimum(runs), options.out, note=note, counts=counts or None, on=on)
    print(options.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
