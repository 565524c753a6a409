"""The benchmark regression gate: this run's ratios against a committed baseline.

Absolute times move with the machine and whatever else it runs; the ratio of two
programs timed on the same input in the same run moves much less. So the gate compares
ratios only, each "higher is better" (the reference's throughput over Pi's or over the
machine's own commands), and fails when one falls more than `tolerance` below its
baseline. Ratios missing on either side (a size not run, Pi not installed) are listed,
never failed.

Session helpers: a run's `results["sessions"]` is `session_figures.figures()` (both
implementations timed in the same rounds, interleaved, medians). Its ratios at
`SESSION_GATE_ENTRIES` entries and more are gated, except `estimate_context_tokens`
(microseconds in both). Session ratios computed from `sessionsMs` alone (pytest-benchmark,
then Node minutes later) are listed with the suffix `SEPARATE`, never gated: two such runs
moved them by up to 2x on this machine, where the streaming and batch ratios moved < 35%.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BASELINE = Path(__file__).resolve().parent / "baseline.json"
# one run's ratios on the 2-core shared machine moved by up to ~20% between two
# measurements of the same thing, so a fall has to exceed 30% to count
TOLERANCE = 0.3

SESSION_GATE_ENTRIES = 100000
UNGATED_SESSION_HELPERS = frozenset({"estimate_context_tokens"})
SEPARATE = " (separate runs)"
_PI_STREAM = "Pi 0.85.0 (tail + persist)"
_STREAM_RATIOS = {  # (reference measure, other measure)
    "tail + persist / Pi": ("reference tail + persist", _PI_STREAM),
    "tail + persist / cat | dd": ("reference tail + persist", "cat | dd of=FILE bs=1M"),
    "tail / cat | tail -c": ("reference tail", "cat | tail -c"),
}


@dataclass(frozen=True, slots=True)
class Regression:
    name: str
    baseline: float
    current: float


def ratios(results: dict[str, Any]) -> dict[str, float]:
    """Every ratio of one run's `results.json`, by a stable name."""
    out: dict[str, float] = {}
    throughput = results.get("throughputMiBs", {})
    for name, (ours, theirs) in _STREAM_RATIOS.items():
        for size, value in throughput.get(ours, {}).items():
            other = throughput.get(theirs, {}).get(size)
            if other:
                out[f"stream {size}: {name}"] = value / other
    for size, row in results.get("batchNs", {}).items():
        if row.get("pi") and "error" not in row["pi"]:
            for key in ("headNs", "tailNs"):
                label = key.removesuffix("Ns")
                out[f"batch {size}: {label} reference / Pi"] = (
                    row["pi"][key] / row["reference"][key]
                )
    interleaved = results.get("sessions")
    if interleaved:
        out.update({str(k): float(v) for k, v in interleaved.get("ratios", {}).items()})
        return out
    sessions = results.get("sessionsMs", {})
    for name, points in sessions.items():
        if not name.startswith("reference "):
            continue
        function = name.removeprefix("reference ")
        head, *rest = function.split("_")  # the reference's snake_case, Pi's camelCase
        pi = sessions.get("Pi " + head + "".join(part.title() for part in rest), {})
        for size, ms in points.items():
            if pi.get(size):
                out[f"sessions {size}: {function} reference / Pi{SEPARATE}"] = pi[size] / ms
    return out


def gated(name: str) -> bool:
    """Whether a ratio can fail the gate (see the module docstring)."""
    if not name.startswith("sessions "):
        return True
    if name.endswith(SEPARATE):
        return False
    size, _, rest = name.removeprefix("sessions ").partition(": ")
    helper = rest.removesuffix(" reference / Pi")
    return (
        size.isdigit()
        and int(size) >= SESSION_GATE_ENTRIES
        and helper not in UNGATED_SESSION_HELPERS
    )


def compare(
    current: dict[str, float], baseline: dict[str, float], tolerance: float = TOLERANCE
) -> list[Regression]:
    """The gated ratios that fell more than `tolerance` (a fraction) below the baseline."""
    return [
        Regression(name, baseline[name], value)
        for name, value in sorted(current.items())
        if gated(name) and name in baseline and value < baseline[name] * (1 - tolerance)
    ]


def render(
    current: dict[str, float], baseline: dict[str, float], regressions: list[Regression]
) -> str:
    """A Markdown table of every ratio, baseline beside it, regressions marked."""
    failed = {r.name for r in regressions}
    lines = ["| ratio (higher is better) | baseline | this run | change |", "|---|---|---|---|"]
    for name in sorted(set(current) | set(baseline)):
        now, then = current.get(name), baseline.get(name)
        if now is None or then is None:
            change = "not measured in this run" if now is None else "no baseline"
        else:
            change = f"{(now / then - 1) * 100:+.0f}%" + (
                " **REGRESSION**" if name in failed else ""
            )
        cells = ["–" if v is None else f"{v:.2f}" for v in (then, now)]
        lines.append(f"| {name.replace('|', chr(92) + '|')} | {cells[0]} | {cells[1]} | {change} |")
    return "\n".join(lines)


def load_baseline(path: Path = BASELINE) -> dict[str, float]:
    return {str(k): float(v) for k, v in json.loads(path.read_text("utf-8"))["ratios"].items()}


def save_baseline(current: dict[str, float], path: Path = BASELINE) -> None:
    body = {
        "note": "ratios of one `ctxspec bench` run; see benchmarks/compare.py",
        "ratios": current,
    }
    path.write_text(json.dumps(body, indent=1, sort_keys=True) + "\n", "utf-8")
