"""The streaming tail on each log flavour against the mixed one, rounds interleaved.

    python benchmarks/flavour_figures.py [SIZE ...] [--rounds 9]    # SIZE like 64MiB, 256MiB

`stream_figures.py` times one flavour after another, so on a shared machine a flavour
measured while other work ran looks slower than one measured before it. Here each round
times every flavour once (tail alone, then tail with persistence, as there), in an order
shuffled by round (seeded), and a flavour's figure is its median over the rounds. Its ratio
is taken in each round against the mixed log's time in that round: the cell shows the
median of those ratios and their range. The range is wide on a shared machine, since a
call that another process preempts loses wall time; the process's CPU time per call (user
and system) hardly moves, so its median ratio is shown too ("cpu"). A rotation kept the
neighbours fixed (the invalid log's tail always ran right after the mixed log's 256 MiB
persisted run); a shuffle does not. Same inputs as `stream_figures.py` (64 KiB chunks, the
cached logs of `corpora.generators.logs`).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from stream_figures import CACHE, read_chunks, reference_runs  # sibling scripts
from stream_memory import parse_size

from corpora.generators.logs import STREAM_FLAVOURS, cached_stream_log

Times = dict[tuple[str, str], list[tuple[float, float]]]


def measure(size: int, rounds: int, scratch: Path) -> Times:
    """(wall, cpu) seconds per round, by measure and flavour; every round times every call."""
    calls: dict[tuple[str, str], Callable[[], None]] = {}
    for flavour in STREAM_FLAVOURS:
        chunks = read_chunks(cached_stream_log(flavour, size, CACHE, seed=3))
        for measure_name, run in reference_runs(chunks, scratch).items():
            calls[(measure_name, flavour)] = run
    times: Times = {key: [] for key in calls}
    order = random.Random(size)
    for _ in range(rounds):
        keys = list(calls)
        order.shuffle(keys)
        for key in keys:
            cpu, wall = time.process_time(), time.perf_counter()
            calls[key]()
            times[key].append((time.perf_counter() - wall, time.process_time() - cpu))
    return times


def table(label: str, size: int, times: Times, rounds: int) -> str:
    lines = [
        f"### {label}, 64 KiB chunks, {rounds} interleaved rounds (median; × the mixed log "
        "in the same round: median, range; cpu: CPU time's median ×)",
        "",
        "| measure | " + " | ".join(STREAM_FLAVOURS) + " |",
        "|---" * (len(STREAM_FLAVOURS) + 1) + "|",
    ]
    for measure_name in dict.fromkeys(name for name, _ in times):
        mixed = times[(measure_name, "mixed")]
        cells = []
        for flavour in STREAM_FLAVOURS:
            own = times[(measure_name, flavour)]
            wall = sorted(m[0] / o[0] for m, o in zip(mixed, own, strict=True))
            cpu = statistics.median(m[1] / o[1] for m, o in zip(mixed, own, strict=True))
            speed = size / statistics.median(o[0] for o in own) / 2**20
            cells.append(
                f"{speed:.0f} MiB/s, ×{statistics.median(wall):.2f} "
                f"({wall[0]:.2f}–{wall[-1]:.2f}; cpu ×{cpu:.2f})"
            )
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
