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

from stream_memory import parse_size  # a sibling script

from corpora.generators.logs import STREAM_FLAVOURS, cached_stream_log
from reference.edge.persist import persist_stream
from reference.stream import OutputAccumulator

HERE = Path(__file__).resolve().parent
CACHE = HERE.parent / ".cache" / "bench"
CHUNK = 64 * 1024


def runs(chunks: list[bytes], scratch: Path) -> dict[str, Callable[[], None]]:
    def tail() -> None:
        accumulator = OutputAccumulator(retain_raw=False)
        for chunk in chunks:
            accumulator.append(chunk)
        accumulator.finish()
        accumulator.snapshot()

    def persisted() -> None:
        done = persist_stream(chunks, persist_if_truncated=True, directory=scratch)
        assert done.path is not None
        done.path.unlink()

    return {"tail": tail, "tail + persist": persisted}


def measure(size: int, rounds: int, scratch: Path) -> dict[str, dict[str, float]]:
    """Median seconds per measure and flavour, every round timing every flavour."""
    calls: dict[tuple[str, str], Callable[[], None]] = {}
    for flavour in STREAM_FLAVOURS:
        data = cached_stream_log(flavour, size, CACHE, seed=3).read_bytes()
        chunks = [data[i : i + CHUNK] for i in range(0, len(data), CHUNK)]
        for measure_name, run in runs(chunks, scratch).items():
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
