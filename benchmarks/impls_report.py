"""The cross-implementation report of `ctxspec bench --impl A --impl B ...`.

For every implementation (the reference always, as the oracle and first column):
the streaming tail of each flavour and size (64 KiB chunks, persisting), batch head and
tail of the mixed log per size, and the five session helpers per session length, each
with its process's peak memory. Measured by `impls.py`; written as `report.md`,
`results.json` and four plots: throughput and ratio against input size (stream, head,
tail), peak memory against input size, cost against entries (one panel per helper).
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt
from impls import (
    HELPERS,
    Group,
    Measure,
    measure_group,
    session_request,
    stream_request,
    truncate_request,
    write_session,
)
from stream_memory import parse_size  # a sibling script
from test_bench_sessions import make_session  # the session shape the other benchmarks time

from conformance.transport.resolve import canonical_name
from corpora.generators.logs import STREAM_FLAVOURS, cached_stream_log

HERE = Path(__file__).resolve().parent
CACHE = HERE.parent / ".cache" / "bench"
SIDES = ("head", "tail")
_VIA = {"bench": "bench ops", "transport": "ordinary ops, transport included"}

Log = Callable[[str], None]


def _stderr(text: str) -> None:
    print(f"ctxspec bench: {text}", file=sys.stderr)


def run(
    specs: Sequence[str],
    *,
    sizes: Sequence[str],
    truncate_sizes: Sequence[str],
    entries: Sequence[int],
    flavours: Sequence[str] = STREAM_FLAVOURS,
    rounds: int = 3,
    timeout: float = 600.0,
    log: Log = _stderr,
) -> dict[str, Any]:
    """Measure everything; the results as `results.json` holds them."""
    labels = ["reference", *[canonical_name(s) for s in specs if canonical_name(s) != "reference"]]
    common = {"rounds": rounds, "timeout": timeout, "log": log}
    stream: dict[str, Group] = {}
    for size in sizes:
        logs = {f: cached_stream_log(f, parse_size(size), CACHE, seed=3) for f in flavours}
        requests = {f: stream_request(path) for f, path in logs.items()}
        log(f"stream {size}")
        stream[size] = measure_group(specs, requests, **common)  # type: ignore[arg-type]
    truncate: dict[str, Group] = {}
    for size in truncate_sizes:
        path = cached_stream_log("mixed", parse_size(size), CACHE, seed=3)
        log(f"truncate {size}")
        requests = {side: truncate_request(path, side) for side in SIDES}
        truncate[size] = measure_group(specs, requests, **common)  # type: ignore[arg-type]
    sessions: dict[str, Group] = {}
    for count in entries:
        session = make_session(count)
        path = write_session(session, CACHE / f"session-{count}.jsonl")
        requests = {h: session_request(path, h, session) for h in HELPERS}
        log(f"sessions {count}")
        sessions[str(count)] = measure_group(specs, requests, **common)  # type: ignore[arg-type]
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
    }


def _json(group: Group) -> dict[str, Any]:
    return {
        "measures": {
            name: {label: None if m is None else m.to_json() for label, m in row.items()}
            for name, row in group.measures.items()
        },
        "peakKiB": group.peaks,
    }


# --- rendering --------------------------------------------------------------------------


def _measure(raw: Mapping[str, Any] | None) -> Measure | None:
    if raw is None:
        return None
    seconds, wall = (math.nan if raw[k] is None else raw[k] for k in ("seconds", "wallSeconds"))
    return Measure(raw["via"], seconds, wall, raw["verdict"], raw["detail"])


def _usable(m: Measure | None) -> bool:
    return m is not None and m.verdict == "ok" and not math.isnan(m.seconds)


def _cell(m: Measure | None, size: int | None = None) -> str:
    if m is None:
        return "–"
    if m.verdict == "error":
        return "error"
    if m.verdict == "wrong":
        return "✗ wrong answer"
    figure = f"{m.seconds * 1e3:.1f} ms"
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


def _series(
    results: Mapping[str, Any], part: str, name: str, value: Callable[[str, Measure], float]
) -> dict[str, dict[float, float]]:
    """label -> {x: y} over the sizes (or entries) of one measure, usable figures only."""
    out: dict[str, dict[float, float]] = {}
    for key, group in results[part].items():
        for label, raw in group["measures"].get(name, {}).items():
            m = _measure(raw)
            if m is not None and _usable(m):
                x = parse_size(key) / 2**20 if part != "sessions" else float(key)
                out.setdefault(label, {})[x] = value(key, m)
    return out


def _mib_s(key: str, m: Measure) -> float:
    return parse_size(key) / m.seconds / 2**20


def _panels(
    panels: Sequence[tuple[str, dict[str, dict[float, float]]]],
    path: Path,
    xlabel: str,
    ylabel: str,
    transport: set[str],
) -> None:
    columns = min(3, len(panels))
    rows = math.ceil(len(panels) / columns)
    figure, axes = plt.subplots(rows, columns, figsize=(5 * columns, 4 * rows), squeeze=False)
    for axis in axes.flat[len(panels) :]:
        axis.set_visible(False)
    for axis, (title, series) in zip(axes.flat, panels, strict=False):
        for label, points in sorted(series.items()):
            xs = sorted(points)
            axis.plot(
                xs,
                [points[x] for x in xs],
                marker="o",
                label=label + (" (transport)" if label in transport else ""),
                linestyle="--" if label in transport else "-",
            )
        axis.set_title(title, fontsize=9)
        axis.set_xscale("log")
        axis.set_yscale("log")
        axis.set_xlabel(xlabel)
        axis.set_ylabel(ylabel)
        axis.grid(True, which="both", alpha=0.3)
        if series:
            axis.legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def _transported(results: Mapping[str, Any]) -> set[str]:
    return {
        label
        for part in ("stream", "truncate", "sessions")
        for group in results[part].values()
        for row in group["measures"].values()
        for label, raw in row.items()
        if raw is not None and raw["via"] == "transport"
    }


def _peaks(results: Mapping[str, Any], part: str) -> dict[str, dict[float, float]]:
    out: dict[str, dict[float, float]] = {}
    for key, group in results[part].items():
        for label, kib in group["peakKiB"].items():
            if kib is not None:
                out.setdefault(label, {})[parse_size(key) / 2**20] = kib / 1024
    return out


def _ratios(
    results: Mapping[str, Any], part: str, name: str, base: str
) -> dict[str, dict[float, float]]:
    """Each implementation's throughput over `base`'s, by input size."""
    throughput = _series(results, part, name, _mib_s)
    against = throughput.get(base, {})
    return {
        label: {x: y / against[x] for x, y in points.items() if x in against}
        for label, points in throughput.items()
    }


def plot(results: Mapping[str, Any], out: Path, ratio_to: str) -> list[str]:
    """Write the four plots; their file names."""
    transport = _transported(results)
    measures = [("stream", "mixed", "streaming tail + persist, mixed log")]
    measures += [("truncate", side, f"truncate{side.title()}, mixed log") for side in SIDES]
    mib = "input size (MiB)"
    _panels(
        [(title, _series(results, part, name, _mib_s)) for part, name, title in measures],
        out / "throughput.png",
        mib,
        "MiB/s",
        transport,
    )
    _panels(
        [(title, _ratios(results, part, name, ratio_to)) for part, name, title in measures],
        out / "ratio.png",
        mib,
        f"× {ratio_to}",
        transport,
    )
    memory = [("streaming tail (all flavours)", _peaks(results, "stream"))]
    memory.append(("batch head and tail", _peaks(results, "truncate")))
    _panels(memory, out / "memory.png", mib, "peak RSS (MiB)", transport)
    ms = lambda _key, m: m.seconds * 1e3  # noqa: E731
    _panels(
        [(h, _series(results, "sessions", h, ms)) for h in HELPERS],
        out / "sessions.png",
        "entries",
        "median ms",
        transport,
    )
    return ["throughput.png", "ratio.png", "memory.png", "sessions.png"]


def render(results: Mapping[str, Any], stamp: str, ratio_to: str) -> str:
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
                _cell(_measure(group["measures"][f].get(label)), parse_size(size)) for f in flavours
            ]
            rows.append([label, *cells, _peak(group["peakKiB"].get(label))])
        stream.append(f"### {size}\n\n" + _table([header[0], *flavours, header[-1]], rows))
    sections.append("\n\n".join(stream))
    rows = []
    for size, group in results["truncate"].items():
        for label in labels:
            cells = [
                _cell(_measure(group["measures"][s].get(label)), parse_size(size)) for s in SIDES
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
            cells = [_cell(_measure(group["measures"][h].get(label))) for h in HELPERS]
            rows.append([label, *cells, _peak(group["peakKiB"].get(label))])
        session.append(
            f"### {int(count):,} entries\n\n"
            + _table(["implementation", *HELPERS, "peak RSS"], rows)
        )
    sections.append("\n\n".join(session))
    problems = _problems(results)
    sections.append(
        f"## Answers and clocks: {len(problems)} figures not taken\n\n"
        + (
            "\n".join(problems)
            if problems
            else "Every answer matched the reference's, every clock the runner's."
        )
    )
    return "\n\n".join(sections) + "\n"


def write(results: Mapping[str, Any], out: Path, stamp: str, ratio_to: str) -> Path:
    """results.json, the plots and report.md under `out`; the report's path."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(results, indent=1) + "\n")
    plot(results, out, ratio_to)
    report = out / "report.md"
    report.write_text(render(results, stamp, ratio_to))
    return report
