"""The streaming tail on each log flavour against the mixed one, rounds interleaved.

    python benchmarks/flavour_figures.py [SIZE ...] [--rounds 9]    # SIZE like 64MiB, 256MiB

`stream_figures.py` times one flavour after another, so on a shared machine a flavour
measured while other work ran looks slower than one measured before it. Here each round
times every flavour once (tail alone, then tail with persistence, as there), the order
rotating by round, and a flavour's figure is its median over the rounds; the ratio is the
flavour's throughput over the mixed log's in the same rounds. Same inputs as
`stream_figures.py` (64 KiB chunks, the cached logs of `corpora.generators.logs`).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from stream_figures import CACHE, read_chunks, reference_runs  # sibling scripts
from stream_memory import parse_size

from corpora.generators.logs import STREAM_FLAVOURS, cached_stream_log


def measure(size: int, rounds: int, scratch: Path) -> dict[str, dict[str, float]]:
    """Median seconds per measure and flavour, every round timing every flavour."""
    calls: dict[tuple[str, str], Callable[[], None]] = {}
    for flavour in STREAM_FLAVOURS:
        chunks = read_chunks(cached_stream_log(flavour, size, CACHE, seed=3))
        for measure_name, run in reference_runs(chunks, scratch).items():
            calls[(measure_name, flavour)] = run
    times: dict[tuple[str, str], list[float]] = {key: [] for key in calls}
    keys = list(calls)
    for round_index in range(rounds):
        shift = round_index % len(keys)
        for key in keys[shift:] + keys[:shift]:
            start = time.perf_counter()
            calls[key]()
            times[key].append(time.perf_counter() - start)
    out: dict[str, dict[str, float]] = {}
    for (measure_name, flavour), seconds in times.items():
        out.setdefault(measure_name, {})[flavour] = statistics.median(seconds)
    return out


def table(label: str, size: int, medians: dict[str, dict[str, float]], rounds: int) -> str:
    lines = [
        f"### {label}, 64 KiB chunks, {rounds} interleaved rounds (median; × the mixed log)",
        "",
        "| measure | " + " | ".join(STREAM_FLAVOURS) + " |",
        "|---" * (len(STREAM_FLAVOURS) + 1) + "|",
    ]
    for measure_name, flavours in medians.items():
        mixed = flavours["mixed"]
        cells = [
            f"{size / seconds / 2**20:.0f} MiB/s, ×{mixed / seconds:.2f}"
            for seconds in (flavours[f] for f in STREAM_FLAVOURS)
        ]
        lines.append(f"| reference {measure_name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sizes", nargs="*", default=["64MiB"])
    parser.add_argument("--rounds", type=int, default=9)
    options = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="ctxspec-flavours-") as scratch:
        for label in options.sizes:
            size = parse_size(label)
            print(table(label, size, measure(size, options.rounds, Path(scratch)), options.rounds))
            print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
