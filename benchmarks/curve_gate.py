"""`ctxspec bench --op ... --compare`: each agent's curve against its own baseline.

An agent team puts its curve in CI: `--save-baseline` once (the file holds, per op and
agent, the exponent, the largest size reached, and the time and memory at each size), then
`--compare` on every change. A curve regresses when

- its exponent rose more than `EXPONENT_TOLERANCE` (0.25) above the baseline's;
- it stopped at a smaller size than the baseline reached (a deadline it now passes);
- its time, over the upper half of the sizes both measured above the noise, is more than
  `--tolerance` (0.3) above the baseline's at the median of those sizes' ratios;
- its worst memory per input byte rose more than `--tolerance` above the baseline's.

A curve on one side only is listed, never failed. Times are of one machine: a baseline
saved on another is a baseline of that machine (the exponent and the memory travel).
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from ctxspec.benchmarks.scaling import SLOPE_LIMIT

__all__ = ["EXPONENT_TOLERANCE", "gate", "load", "save"]

EXPONENT_TOLERANCE: Final = 0.25


def _entry(curve: Mapping[str, Any]) -> dict[str, Any]:
    points = [p for p in curve["points"] if p["seconds"] is not None and p["error"] is None]
    memory = [p["memoryPerByte"] for p in curve["points"] if p["memoryPerByte"] is not None]
    return {
        "exponent": curve["fit"]["exponent"],
        "largest": max((p["size"] for p in points), default=None),
        "seconds": {str(p["size"]): p["seconds"] for p in points},
        "memoryPerByte": max(memory) if memory else None,
    }


def save(results: Mapping[str, Any], path: Path, stamp: str) -> None:
    """This run's curves as the baseline at `path`."""
    curves = {
        op: {label: _entry(c) for label, c in by_agent.items() if not c.get("unsupported")}
        for op, by_agent in results["agents"].items()
    }
    note = f"curves of one `ctxspec bench --op` run ({stamp}), medians of {results['rounds']}"
    path.write_text(json.dumps({"note": note, "curves": curves}, indent=1) + "\n")


def load(path: Path) -> dict[str, Any]:
    """A baseline's curves (op -> agent -> entry)."""
    data = json.loads(path.read_text())
    curves = data.get("curves")
    if not isinstance(curves, dict):
        raise ValueError(
            f"{path}: no curves (save one with `ctxspec bench --op ... --save-baseline`)"
        )
    return curves


def _compare(now: Mapping[str, Any], then: Mapping[str, Any], tolerance: float) -> list[str]:
    """What regressed of one curve against its baseline."""
    out = []
    e_now, e_then = now["exponent"], then["exponent"]
    if e_now is not None and e_then is not None and e_now > e_then + EXPONENT_TOLERANCE:
        out.append(f"exponent {e_then:.2f} -> {e_now:.2f}")
    elif e_now is not None and e_then is None and e_now > SLOPE_LIMIT:
        out.append(f"exponent none (flat) -> {e_now:.2f}")
    if then["largest"] is not None and (now["largest"] or 0) < then["largest"]:
        out.append(f"stopped before {then['largest']:,}, which the baseline reached")
    both = set(now["seconds"]) & set(then["seconds"])
    common = sorted(int(s) for s in both if now["seconds"][s] > 0 and then["seconds"][s] > 0)
    upper = common[len(common) // 2 :]
    if upper:
        ratio = statistics.median(now["seconds"][str(s)] / then["seconds"][str(s)] for s in upper)
        if ratio > 1 + tolerance:
            out.append(f"time {ratio:.2f}x the baseline's over {upper[0]:,}–{upper[-1]:,}")
    m_now, m_then = now["memoryPerByte"], then["memoryPerByte"]
    if m_now is not None and m_then is not None and m_now > max(m_then * (1 + tolerance), 1.0):
        out.append(f"memory per input byte {m_then:.1f} -> {m_now:.1f}")
    return out


def gate(
    results: Mapping[str, Any], baseline: Mapping[str, Any], tolerance: float
) -> tuple[list[str], str]:
    """The regressions, and the report's section."""
    regressions, rows, listed = [], [], []
    for op, by_agent in results["agents"].items():
        for label, curve in by_agent.items():
            then = baseline.get(op, {}).get(label)
            if curve.get("unsupported"):
                continue
            if then is None:
                listed.append(f"{op} {label}: not in the baseline")
                continue
            found = _compare(_entry(curve), then, tolerance)
            regressions += [f"{op} {label}: {text}" for text in found]
            rows.append(f"| {op} | {label} | {'; '.join(found) or 'holds'} |")
    for op, by_agent in baseline.items():
        for label in by_agent:
            if label not in results["agents"].get(op, {}):
                listed.append(f"{op} {label}: in the baseline, not run")
    verdict = f"{len(regressions)} curves regressed (tolerance {tolerance:.0%})"
    header = "| op | agent | against its baseline |\n|---|---|---|\n"
    text = f"## Against the baseline: {verdict}\n\n{header}" + "\n".join(rows)
    if listed:
        text += "\n\nListed, not gated: " + "; ".join(listed)
    return regressions, text
