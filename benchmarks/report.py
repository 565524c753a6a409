"""The report of `ctxspec bench`: `report.md` beside `results.json` and the plots.

Tables per part (streaming tail per size and flavour, batch head and tail, session
helpers per length, token estimates), each implementation a row, its peak RSS beside;
the figures not taken (wrong answers, clocks the runner's does not bear out); the
instruction counts of the engines' own ops; the gate against the baseline when
`--compare` ran.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ctxspec.benchmarks import compare, estimates
from ctxspec.benchmarks.measure import Measure
from ctxspec.benchmarks.plots import measure_of, plot, session_ratios
from ctxspec.benchmarks.requests import FIGURES, parse_size
from ctxspec.conformance.bench_requests import SIDES
from ctxspec.corpora.generators.logs import STREAM_FLAVOURS

_VIA = {"bench": "bench ops", "transport": "ordinary ops, transport included"}


def _cell(m: Measure | None, size: int | None = None) -> str:
    if m is None:
        return "–"
    if m.verdict == "error":
        return "error"
    if m.verdict == "wrong":
        return "✗ wrong answer"
    ms = m.seconds * 1e3
    figure = f"{ms:.1f} ms" if ms >= 10 else f"{ms:.2f} ms" if ms >= 0.1 else f"{ms * 1e3:.0f} µs"
    if size is not None:
        figure += f", {size / m.seconds / 2**20:.0f} MiB/s"
    if m.verdict != "ok":
        return f"⚠ {m.verdict}: {figure} (wall)"
    return figure + (" †" if m.via == "transport" else "")


def _peak(kib: int | None) -> str:
    return "–" if kib is None else f"{kib / 1024:.0f} MiB"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _implementations(results: Mapping[str, Any]) -> str:
    rows = []
    for label in results["implementations"]:
        hello = results["hello"].get(label, {}).get("implementation", {})
        who = f"{hello.get('name', '?')} {hello.get('version', '')}, {hello.get('language', '')}"
        vias = []
        for part in ("stream", "truncate", "sessions"):
            seen = {
                raw["via"]
                for group in results[part].values()
                for row in group["measures"].values()
                if (raw := row.get(label)) is not None
            }
            vias.append(", ".join(_VIA[v] for v in sorted(seen)) or "not measurable")
        rows.append([label, who if hello else "did not start", *vias])
    return _table(["implementation", "hello", "streaming", "batch truncation", "sessions"], rows)


def _problems(results: Mapping[str, Any]) -> list[str]:
    found = []
    for part in ("stream", "truncate", "sessions"):
        for key, group in results[part].items():
            for name, row in group["measures"].items():
                for label, raw in row.items():
                    if raw is not None and raw["verdict"] != "ok":
                        found.append(
                            f"- {label}, {part} {key} {name}: **{raw['verdict']}**, {raw['detail']}"
                        )
    return found


def _instructions(counts: Mapping[str, int]) -> str:
    """The engines' instruction counts (`instructions.py`), one column per engine."""
    engines = sorted({name.rpartition(" ")[2] for name in counts})
    ops = sorted({name.rpartition(" ")[0] for name in counts})
    cells = {name: f"{count:,}" for name, count in counts.items()}
    rows = [[op, *(cells.get(f"{op} {engine}", "–") for engine in engines)] for op in ops]
    return (
        "## Instruction counts (Callgrind, the measured call alone; gated by `--compare`)"
        "\n\n" + _table(["op", *engines], rows)
    )


def _ratios(results: Mapping[str, Any], ratio_to: str) -> str:
    """Every figure's ratio against `ratio_to`, one column per other implementation."""
    current = compare.ratios(results, ratio_to)
    others = [label for label in results["implementations"] if label != ratio_to]
    rows: dict[str, dict[str, float]] = {}
    for name, value in current.items():
        figure, _, _ = name.rpartition(" / ")
        for label in others:
            if figure.endswith(f" {label}"):
                rows.setdefault(figure.removesuffix(f" {label}"), {})[label] = value
    table = [
        [figure, *(f"{cells[label]:.2f}×" if label in cells else "–" for label in others)]
        for figure, cells in rows.items()
    ]
    return (
        f"## Ratios against {ratio_to} (its median time over each one's; higher is faster)\n\n"
        + _table(["figure", *others], table)
    )


def _session_ratios(results: Mapping[str, Any], ratio_to: str) -> str:
    """Each session figure by entries against `ratio_to`, one table per other
    implementation: the figure's ratio (bold from 1×) or – where either was not taken."""
    counts = list(results["sessions"])
    others = [label for label in results["implementations"] if label != ratio_to]
    out = [
        f"### Against {ratio_to}, by entries ({ratio_to}'s median time over each one's; "
        "bold: at least 1×, as fast or faster)\n\n![session ratios](session-ratio.png)"
    ]
    for label in others:
        rows = []
        for figure in FIGURES:
            points = session_ratios(results, figure, ratio_to).get(label, {})
            cells = []
            for count in counts:
                value = points.get(float(count))
                text = "–" if value is None else f"{value:.2f}×"
                cells.append(f"**{text}**" if value is not None and value >= 1 else text)
            rows.append([figure, *cells])
        header = [label, *(f"{int(c):,}" for c in counts)]
        out.append(_table(header, rows))
    return "\n\n".join(out)


def render(
    results: Mapping[str, Any],
    stamp: str,
    ratio_to: str,
    *,
    gate: str | None = None,
) -> str:
    labels: list[str] = results["implementations"]
    sections = [
        f"# ctxspec benchmark report, {len(labels)} implementations ({stamp})",
        f"Medians of {results['rounds']} rounds on this machine; compare ratios, not times. "
        "Each implementation runs as its own process, a fresh one per size (peak RSS is that "
        "process's VmHWM). A figure is the implementation's own clock over the measured work "
        "(bench ops), or, marked †, the runner's wall time of an ordinary op, JSON transport "
        "included. Every answer is checked against the reference's: ✗ marks a wrong answer, "
        "⚠ a time the runner's clock does not bear out (the wall time is shown).",
        "## Implementations\n\n" + _implementations(results),
    ]
    header = ["implementation", *STREAM_FLAVOURS, "peak RSS"]
    stream = ["## Streaming tail (64 KiB chunks, persisting)", "![throughput](throughput.png)"]
    stream.append(f"![ratio to {ratio_to}](ratio.png)\n\n![peak memory](memory.png)")
    for size, group in results["stream"].items():
        flavours = [f for f in STREAM_FLAVOURS if f in group["measures"]]
        rows = []
        for label in labels:
            cells = [
                _cell(measure_of(group["measures"][f].get(label)), parse_size(size))
                for f in flavours
            ]
            rows.append([label, *cells, _peak(group["peakKiB"].get(label))])
        stream.append(f"### {size}\n\n" + _table([header[0], *flavours, header[-1]], rows))
    sections.append("\n\n".join(stream))
    rows = []
    for size, group in results["truncate"].items():
        for label in labels:
            cells = [
                _cell(measure_of(group["measures"][s].get(label)), parse_size(size)) for s in SIDES
            ]
            rows.append([size, label, *cells, _peak(group["peakKiB"].get(label))])
    sections.append(
        "## Batch head and tail (the whole mixed log as one string, reading excluded)\n\n"
        + _table(["input", "implementation", "truncateHead", "truncateTail", "peak RSS"], rows)
    )
    session = [
        "## Session helpers (one chain, a side branch at entry 10)",
        "![sessions](sessions.png)",
    ]
    for count, group in results["sessions"].items():
        rows = []
        for label in labels:
            cells = [_cell(measure_of(group["measures"][h].get(label))) for h in FIGURES]
            rows.append([label, *cells, _peak(group["peakKiB"].get(label))])
        session.append(
            f"### {int(count):,} entries\n\n"
            + _table(["implementation", *FIGURES, "peak RSS"], rows)
        )
    session.append(_session_ratios(results, ratio_to))
    sections.append("\n\n".join(session))
    sections.append(_ratios(results, ratio_to))
    if results.get("instructions"):
        sections.append(_instructions(results["instructions"]))
    if results.get("estimates"):
        sections.append(
            "## Token estimates against cl100k_base tokens (64 KiB of each kind of content)\n\n"
            + estimates.table(results["estimates"])
        )
    problems = _problems(results)
    sections.append(
        f"## Answers and clocks: {len(problems)} figures not taken\n\n"
        + (
            "\n".join(problems)
            if problems
            else "Every answer matched the reference's, every clock the runner's."
        )
    )
    return "\n\n".join([*sections, *([gate] if gate else [])]) + "\n"


def write(
    results: Mapping[str, Any],
    out: Path,
    stamp: str,
    ratio_to: str,
    *,
    gate: str | None = None,
) -> Path:
    """results.json, the plots and report.md under `out`; the report's path."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(results, indent=1) + "\n")
    plot(results, out, ratio_to)
    report = out / "report.md"
    report.write_text(render(results, stamp, ratio_to, gate=gate))
    return report
