"""Peak memory of the reference's streaming tail, per input size (one child process each).

    python benchmarks/stream_memory.py [SIZE ...]      # default 1MiB 16MiB 64MiB 256MiB

Each size runs in a fresh Python process that reads the cached log in 64 KiB chunks from
disk (so the input itself is never held) through `persist_stream`, and reports its peak
RSS (`VmHWM`) next to the same process's RSS before streaming (interpreter and
imports). The difference is what the accumulator and its persistence cost.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from corpora.generators.logs import cached_stream_log

CACHE = Path(__file__).resolve().parent.parent / ".cache" / "bench"
UNITS = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
CHILD = r"""
import json, sys
from reference.edge.persist import persist_stream
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


def main(sizes: list[str]) -> None:
    print("| input | RSS before | peak RSS | streaming cost |")
    print("|---|---|---|---|")
    for label in sizes:
        log = cached_stream_log("mixed", parse_size(label), CACHE)
        with tempfile.TemporaryDirectory() as scratch:
            out = subprocess.run(
                [sys.executable, "-c", CHILD, str(log), scratch],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        report = json.loads(out)
        before, peak = report["beforeKiB"] / 1024, report["peakKiB"] / 1024
        print(f"| {label} | {before:.1f} MiB | {peak:.1f} MiB | {peak - before:.1f} MiB |")


if __name__ == "__main__":
    main(sys.argv[1:] or ["1MiB", "16MiB", "64MiB", "256MiB"])
