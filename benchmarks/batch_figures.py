"""Batch head/tail truncation of one whole log, reference against the real Pi, per size.

    python benchmarks/batch_figures.py [SIZE ...]      # default 16MiB 64MiB; 256MiB, 1GiB

Each side runs in a fresh process per size that reads the cached mixed log as one string
(Python `str`, a JS string) and times `truncate_head` / `truncate_tail` (Pi:
`truncateHead` / `truncateTail`, timed inside Node), median of 3, reading excluded; the
peak RSS includes the text itself. Pi cannot hold a string past about 512 Mi UTF-16 code
units, so at 1 GiB it reports Node's error instead of a time.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from stream_memory import parse_size  # a sibling script

from conformance.harnesses.pi import ensure_installed
from corpora.generators.logs import cached_stream_log

HERE = Path(__file__).resolve().parent
CACHE = HERE.parent / ".cache" / "bench"
ROUNDS = 3
CHILD = r"""
import json, statistics, sys, time
import reference
def high_water_kib():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
text = open(sys.argv[1], "rb").read().decode("utf-8")
def median_ns(run):
    times = []
    for _ in range(int(sys.argv[2])):
        start = time.perf_counter_ns()
        run(text)
        times.append(time.perf_counter_ns() - start)
    return statistics.median(times)
head, tail = median_ns(reference.truncate_head), median_ns(reference.truncate_tail)
print(json.dumps({"headNs": head, "tailNs": tail, "peakKiB": high_water_kib()}))
"""


def measure(label: str) -> dict[str, Any]:
    """`{"reference": {...}, "pi": {...} | None}` for one size (ns medians, peak KiB)."""
    log = cached_stream_log("mixed", parse_size(label), CACHE, seed=3)
    ours = subprocess.run(
        [sys.executable, "-c", CHILD, str(log), str(ROUNDS)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    theirs: dict[str, Any] | None
    try:
        install = ensure_installed(quiet=True)
        script = HERE / "pi_truncate.mjs"
        argv = [str(install.node), str(script), str(install.package_dir), str(log), str(ROUNDS)]
        out = subprocess.run(
            argv,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        theirs = json.loads(out)
    except Exception as error:  # Pi unavailable: report the reference alone
        print(f"<!-- Pi not measured: {error} -->", file=sys.stderr)
        theirs = None
    return {"reference": json.loads(ours), "pi": theirs}


def _cell(size: int, row: dict[str, Any] | None, key: str) -> str:
    if row is None:
        return "–"
    if "error" in row:
        return f"fails: `{row['error']}`"
    ns = row[key]
    return f"{ns / 1e6:.0f} ms, {size / (ns / 1e9) / 2**20:.0f} MiB/s"


def main(sizes: list[str]) -> dict[str, dict[str, Any]]:
    print("| input | reference head | Pi head | reference tail | Pi tail | peak RSS ref / Pi |")
    print("|---|---|---|---|---|---|")
    figures = {}
    for label in sizes:
        size = parse_size(label)
        row = figures[label] = measure(label)
        ours, theirs = row["reference"], row["pi"]
        pi_peak = "–" if theirs is None else f"{theirs['peakKiB'] / 1024:.0f} MiB"
        cells = [
            _cell(size, ours, "headNs"),
            _cell(size, theirs, "headNs"),
            _cell(size, ours, "tailNs"),
            _cell(size, theirs, "tailNs"),
            f"{ours['peakKiB'] / 1024:.0f} MiB / {pi_peak}",
        ]
        print(f"| {label} | " + " | ".join(cells) + " |")
    return figures


if __name__ == "__main__":
    main(sys.argv[1:] or ["16MiB", "64MiB"])
