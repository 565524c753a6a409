"""The report's five plots: throughput and ratio against input size (stream, head, tail),
peak memory against input size, cost against entries and the ratio against entries (one
panel per session figure, a line at 1×).

Drawn from `results.json` (`run.py`) with matplotlib, to files only.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt

from ctxspec.benchmarks.measure import Measure
from ctxspec.benchmarks.requests import FIGURES, parse_size
from ctxspec.conformance.bench_requests import SIDES

PLOTS = ("throughput.png", "ratio.png", "memory.png", "sessions.png", "session-ratio.png")


def measure_of(raw: Mapping[str, Any] | None) -> Measure | None:
    """A `results.json` figure as a `Measure` (None where it was not measurable)."""
    if raw is None:
        return None
    seconds, wall = (math.nan if raw[k] is None else raw[k] for k in ("seconds", "wallSeconds"))
    return Measure(raw["via"], seconds, wall, raw["verdict"], raw["detail"])


def usable(m: Measure | None) -> bool:
    return m is not None and m.verdict == "ok" and not math.isnan(m.seconds)


def _series(
    results: Mapping[str, Any], part: str, name: str, value: Callable[[str, Measure], float]
) -> dict[str, dict[float, float]]:
    """label -> {x: y} over the sizes (or entries) of one measure, usable figures only."""
    out: dict[str, dict[float, float]] = {}
    for key, group in results[part].items():
        for label, raw in group["measures"].get(name, {}).items():
            m = measure_of(raw)
            if m is not None and usable(m):
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
    *,
    level: float | None = None,
) -> None:
    """One log-log panel per (title, series); `level`: a dashed line at that y (1× of a
    ratio: above it, faster)."""
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
        if level is not None and series:
            axis.axhline(level, color="grey", linestyle=":", linewidth=1)
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


def session_ratios(
    results: Mapping[str, Any], figure: str, base: str
) -> dict[str, dict[float, float]]:
    """Each other implementation's ratio against `base` on one session figure (`base`'s
    median time over its own; above 1 it is faster), by entries: usable figures only."""
    times = _series(results, "sessions", figure, lambda _key, m: m.seconds)
    against = times.get(base, {})
    return {
        label: {x: against[x] / y for x, y in points.items() if x in against}
        for label, points in times.items()
        if label != base
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
        [(h, _series(results, "sessions", h, ms)) for h in FIGURES],
        out / "sessions.png",
        "entries",
        "median ms",
        transport,
    )
    _panels(
        [(h, session_ratios(results, h, ratio_to)) for h in FIGURES],
        out / "session-ratio.png",
        "entries",
        f"{ratio_to}'s time over each one's",
        transport,
        level=1.0,
    )
    return list(PLOTS)
