"""The report of `ctxspec bench --op`: `report.md`, a plot per op and `results.json`.

A table of exponents (each agent on each op: how it was timed, its exponent and the sizes
it was fitted over, where it stopped), the findings with their reproducers, then per op
its plot (every agent's curve: time over size, memory over input bytes, log-log) and
each agent's points.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt

from ctxspec.benchmarks.scaling import MEMORY_FINDING_KIB, MEMORY_LIMIT, SLOPE_LIMIT

__all__ = ["plot", "render", "write"]


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows]
    return "\n".join(lines)


def seconds_text(seconds: float | None) -> str:
    if seconds is None:
        return "–"
    if abs(seconds) >= 1:
        return f"{seconds:.2f} s"
    if abs(seconds) >= 1e-3:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds * 1e6:.0f} µs"


def _mib(kib: int | None) -> str:
    return "–" if kib is None else f"{kib / 1024:,.0f} MiB"


def _size(size: int, unit: str) -> str:
    if unit != "bytes":
        return f"{size:,}"
    for name, factor in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= factor and size % factor == 0:
            return f"{size // factor} {name}"
    return f"{size} B"


def _exponent(curve: Mapping[str, Any]) -> str:
    if curve.get("unsupported"):
        return "–"
    fitted = curve["fit"]
    if fitted["exponent"] is None:
        return f"none ({fitted['why']})"
    used = fitted["used"]
    span = f"{_size(used[0], curve['unit'])}–{_size(used[-1], curve['unit'])}"
    flag = " ⚠" if fitted["exponent"] > SLOPE_LIMIT else ""
    return f"**{fitted['exponent']:.2f}**{flag} ({span})"


def _worst_memory(curve: Mapping[str, Any]) -> str:
    """The largest memory per input byte, ⚠ where it is a finding."""
    points = [p for p in curve["points"] if p["memoryPerByte"] is not None]
    if not points:
        return "–"
    worst = max(points, key=lambda p: p["memoryPerByte"])
    flag = any(f["kind"] == "memory" for f in curve["findings"])
    return f"{worst['memoryPerByte']:.1f}" + (" ⚠" if flag else "")


def _summary(results: Mapping[str, Any]) -> str:
    rows = []
    for op, curves in results["agents"].items():
        for label, curve in curves.items():
            if curve.get("unsupported"):
                rows.append(
                    [op, label, "–", "–", "–", "–", "–", "–", f"no curve: {curve['unsupported']}"]
                )
                continue
            measured = [p for p in curve["points"] if p["seconds"] is not None]
            top = measured[-1] if measured else None
            timing = next((p["timing"] for p in curve["points"] if p["timing"]), "–")
            rows.append(
                [
                    op,
                    label,
                    timing,
                    _exponent(curve),
                    "–" if top is None else _size(top["size"], curve["unit"]),
                    "–" if top is None else seconds_text(top["seconds"]),
                    "–" if top is None else _mib(top["peakKiB"]),
                    _worst_memory(curve),
                    curve["stopped"] or "reached its largest size",
                ]
            )
    header = ["op", "agent", "timing", "exponent (fitted over)", "largest measured",
              "time there", "peak RSS there", "memory / input byte (worst)",
              "stopped"]  # fmt: skip
    return _table(header, rows)


def _findings(results: Mapping[str, Any]) -> str:
    found = results["findings"]
    if not found:
        return (
            f"No exponent above {SLOPE_LIMIT} and no memory above {MEMORY_LIMIT:g}× the input "
            f"(where it held {MEMORY_FINDING_KIB >> 10} MiB or more)."
        )
    items = []
    for f in found:
        item = f"- **{f['impl']}, {f['op']}**: {f['text']}.\n  Reproduce: `{f['reproducer']}`"
        if f.get("codePath"):
            item += f"\n  Code path: {f['codePath']}"
        if f.get("issues"):
            item += "\n  Public issues: " + ", ".join(f["issues"])
        items.append(item)
    return "\n".join(items)


def _points(curve: Mapping[str, Any]) -> str:
    rows = []
    for p in curve["points"]:
        answer = p["answer"] or {}
        said = ", ".join(f"{k} {v}" for k, v in answer.items())
        rows.append(
            [
                _size(p["size"], curve["unit"]),
                f"{p['inputBytes']:,}",
                seconds_text(p["seconds"]),
                seconds_text(p["baseSeconds"]),
                _mib(p["peakKiB"]),
                "–" if p["memoryPerByte"] is None else f"{p['memoryPerByte']:.1f}",
                p["error"] or said,
            ]
        )
    header = ["size", "input bytes", "time (base out)", "base", "peak RSS", "memory / input byte",
              "answer"]  # fmt: skip
    return _table(header, rows)


def render(results: Mapping[str, Any], stamp: str, *, gate: str | None = None) -> str:
    labels = results["implementations"]
    sections = [
        f"# ctxspec agent curves, {len(labels)} implementations ({stamp})",
        f"Medians of {results['rounds']} rounds; each size in a fresh harness process, each "
        "round the op with an empty input (the base) and then with the size's, the base's "
        "median taken out. `in-process`: the agent's own functions, by the harness's clock; "
        "`turn`: the agent's whole CLI turn against the scripted model. Peak RSS: the "
        "process's (in process) or the CLI's whole process tree (a turn). The exponent is "
        "the log-log slope over the upper half of the sizes, points within the base's noise "
        f"left out. A request past {results['deadline']:g} s, or a curve past its "
        f"{results['budget']:g} s budget, stops the curve. Whole run: "
        f"{results['seconds']:.0f} s.",
        "## Exponents\n\n" + _summary(results),
        f"## Findings ({len(results['findings'])})\n\n" + _findings(results),
    ]
    for op, curves in results["agents"].items():
        part = [f"## {op}", f"![{op}]({op}.png)"]
        for label, curve in curves.items():
            if curve.get("unsupported"):
                part.append(f"### {label}\n\nNo curve: {curve['unsupported']}.")
                continue
            part.append(f"### {label}\n\n" + _points(curve))
        sections.append("\n\n".join(part))
    return "\n\n".join([*sections, *([gate] if gate else [])]) + "\n"


def plot(results: Mapping[str, Any], out: Path) -> list[str]:
    """One figure per op: time over size and memory over input bytes, every agent's curve."""
    names = []
    for op, curves in results["agents"].items():
        figure, (time_axis, memory_axis) = plt.subplots(1, 2, figsize=(12, 4.5))
        unit = "size"
        for label, curve in curves.items():
            unit = curve["unit"]
            timed = [p for p in curve["points"] if (p["seconds"] or 0) > 0]
            if timed:
                (line,) = time_axis.plot(
                    [p["size"] for p in timed],
                    [p["seconds"] for p in timed],
                    marker="o",
                    label=label,
                )
                lost = [p for p in timed if p["seconds"] <= p.get("noise", 0.0)]
                if lost:  # within the base's noise: hollow, not fitted
                    time_axis.plot(
                        [p["size"] for p in lost], [p["seconds"] for p in lost], "o",
                        color="white", markeredgecolor=line.get_color(),
                    )  # fmt: skip
            held = [
                (p["inputBytes"], p["peakKiB"] - p["basePeakKiB"])
                for p in curve["points"]
                if p["peakKiB"] is not None
                and p["basePeakKiB"] is not None
                and p["peakKiB"] > p["basePeakKiB"]
                and p["inputBytes"] > 0
            ]
            if held:
                memory_axis.plot(
                    [b for b, _ in held], [k * 1024 for _, k in held], marker="o", label=label
                )
        time_axis.set(
            xscale="log", yscale="log", xlabel=unit,
            ylabel="seconds (base out; hollow: within the base's noise)",
        )  # fmt: skip
        time_axis.set_title(f"{op}: time")
        memory_axis.set(xscale="log", yscale="log", xlabel="input bytes", ylabel="bytes over base")
        memory_axis.set_title(f"{op}: peak memory over the base")
        for axis in (time_axis, memory_axis):
            if axis.lines:
                axis.legend(fontsize="small")
            axis.grid(True, which="both", alpha=0.3)
        figure.tight_layout()
        figure.savefig(out / f"{op}.png", dpi=100)
        plt.close(figure)
        names.append(f"{op}.png")
    return names


def write(results: Mapping[str, Any], out: Path, stamp: str, *, gate: str | None = None) -> Path:
    """results.json, the plots and report.md under `out`; the report's path."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(results, indent=1) + "\n")
    plot(results, out)
    report = out / "report.md"
    report.write_text(render(results, stamp, gate=gate))
    return report
