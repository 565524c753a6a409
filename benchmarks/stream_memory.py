"""Peak memory of the fast engine's streaming tail, per input size (one child process each).

    python benchmarks/stream_memory.py [SIZE ...]      # default 1MiB 16MiB 64MiB 256MiB

Each size runs in a fresh Python process that reads the cached log in 64 KiB chunks from
disk (so the input itself is never held) through `persist_stream`, and reports its peak
RSS (`VmHWM`) next to the same process's RSS before streaming (interpreter and
imports). The difference is what the accumulator and its persistence cost. Pi's figures
come the same way from `pi_stream_memory.mjs` (a Node read stream of 64 KiB chunks into
`OutputAccumulator`, `maxRSS` against the RSS once Pi is loaded). The figures keep the
label `reference` (ctxspec's engine; the one measured is `fastengine`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from conformance.harnesses.pi import ensure_installed
from corpora.generators.logs import cached_stream_log

CACHE = Path(__file__).resolve().parent.parent / ".cache" / "bench"
UNITS = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
CHILD = r"""
import json, sys
from fastengine import persist_stream
def high_water_kib():  # VmHWM belongs to this exec'd image (ru_maxrss would carry the parent's)
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
before = high_water_kib()
def chunks(path):
    with open(path, "rb") as stream:
        while block := stream.read(65536):
            yield block
done = persist_stream(chunks(sys.argv[1]), persist_if_truncated=True, directory=sys.argv[2])
peak = high_water_kib()
print(json.dumps({"beforeKiB": before, "peakKiB": peak, "persisted": done.path is not None}))
"""


def parse_size(text: str) -> int:
    for unit, factor in UNITS.items():
        if text.endswith(unit):
            return int(text.removesuffix(unit)) * factor
    return int(text)


def _reference(log: Path) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as scratch:
        out = subprocess.run(
            [sys.executable, "-c", CHILD, str(log), scratch],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    return dict(json.loads(out))


def _pi(log: Path) -> dict[str, Any] | None:
    """Pi's figures from `pi_stream_memory.mjs`, or None when Pi cannot be run here."""
    try:
        install = ensure_installed(quiet=True)
        script = Path(__file__).resolve().parent / "pi_stream_memory.mjs"
        with tempfile.TemporaryDirectory() as scratch:
            out = subprocess.run(
                [str(install.node), str(script), str(install.package_dir), str(log)],
                capture_output=True,
                text=True,
                check=True,
                env={**os.environ, "TMPDIR": scratch},
            ).stdout
    except Exception as error:  # Pi unavailable: report the reference alone
        print(f"<!-- Pi not measured: {error} -->", file=sys.stderr)
        return None
    return dict(json.loads(out))


def measure(label: str) -> dict[str, float | None]:
    """Peak RSS and its growth over the loaded process, MiB, reference and Pi."""
    log = cached_stream_log("mixed", parse_size(label), CACHE)
    ours, theirs = _reference(log), _pi(log)
    mib = 1024.0
    return {
        "referenceBeforeMiB": ours["beforeKiB"] / mib,
        "referencePeakMiB": ours["peakKiB"] / mib,
        "piBeforeMiB": None if theirs is None else theirs["beforeKiB"] / mib,
        "piPeakMiB": None if theirs is None else theirs["peakKiB"] / mib,
    }


def main(sizes: list[str]) -> dict[str, dict[str, float | None]]:
    columns = ["RSS before", "peak RSS", "streaming cost"]
    heads = [f"reference: {columns[0]}", *columns[1:], f"Pi 0.85.0: {columns[0]}", *columns[1:]]
    print("| input | " + " | ".join(heads) + " |")
    print("|---|---|---|---|---|---|---|")
    figures = {}
    for label in sizes:
        row = figures[label] = measure(label)
        cells = []
        for who in ("reference", "pi"):
            before, peak = row[f"{who}BeforeMiB"], row[f"{who}PeakMiB"]
            if before is None or peak is None:
                cells += ["–", "–", "–"]
            else:
                cells += [f"{before:.1f} MiB", f"{peak:.1f} MiB", f"{peak - before:.1f} MiB"]
        print(f"| {label} | " + " | ".join(cells) + " |")
    return figures


if __name__ == "__main__":
    main(sys.argv[1:] or ["1MiB", "16MiB", "64MiB", "256MiB"])
