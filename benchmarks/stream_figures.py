"""Print the streaming-tail figures of one run as a Markdown table (medians, MiB/s, ratios).

    python benchmarks/stream_figures.py [SIZE ...]     # SIZE like 16MiB (default), 256MiB, 1GiB

Same inputs and timings as test_bench_stream.py: 64 KiB chunks; Pi timed inside Node
(`pi_stream.mjs`, process start excluded); the machine's commands timed as a whole.
Ratios are against `cat LOG | tee FILE | tail -c 51200`, the cheapest way a shell keeps
both the tail and the full output. The run's figures, never asserted anywhere. The
accumulator timed is the fast engine's (`fastengine.stream`), labelled `reference` as
ctxspec's engine in every table and baseline key.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from stream_memory import parse_size  # a sibling script

from conformance.harnesses.pi import ensure_installed
from corpora.generators.logs import STREAM_FLAVOURS, cached_stream_log
from fastengine import OutputAccumulator, persist_stream

HERE = Path(__file__).resolve().parent
CACHE = HERE.parent / ".cache" / "bench"
CHUNK = 64 * 1024
ROUNDS = 3
MACHINE = {
    "wc -l": "wc -l < {log} > /dev/null",
    "cat > FILE": "cat {log} > {out}",
    "cat | dd of=FILE bs=1M": "cat {log} | dd of={out} bs=1M status=none",
    "cat | tail -c": "cat {log} | tail -c 51200 > /dev/null",
    "cat | tee | tail -c": "cat {log} | tee {out} | tail -c 51200 > /dev/null",
}


def median_seconds(run: Callable[[], object]) -> float:
    times = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def read_chunks(path: Path) -> list[bytes]:
    """The log as the benchmarks feed it: CHUNK-byte pieces."""
    data = path.read_bytes()
    return [data[i : i + CHUNK] for i in range(0, len(data), CHUNK)]


def reference_runs(chunks: list[bytes], scratch: Path) -> dict[str, Callable[[], None]]:
    """One timed call each: the tail alone, and the tail with its full output persisted."""

    def tail_only() -> None:
        accumulator = OutputAccumulator(retain_raw=False)
        for chunk in chunks:
            accumulator.append(chunk)
        accumulator.finish()
        accumulator.snapshot()

    def persisted() -> None:
        done = persist_stream(chunks, persist_if_truncated=True, directory=scratch)
        assert done.path is not None
        done.path.unlink()

    return {"tail": tail_only, "tail + persist": persisted}


def figures(path: Path, scratch: Path) -> dict[str, float]:
    runs = reference_runs(read_chunks(path), scratch)
    out: dict[str, float] = {f"reference {name}": median_seconds(run) for name, run in runs.items()}
    try:
        install = ensure_installed(quiet=True)
        argv = [str(install.node), str(HERE / "pi_stream.mjs"), str(install.package_dir)]
        reply = subprocess.run(
            [*argv, str(path), str(CHUNK), str(ROUNDS)], capture_output=True, check=True
        )
        out["Pi 0.85.0 (tail + persist)"] = json.loads(reply.stdout)["medianNs"] / 1e9
    except Exception as error:  # Pi unavailable: report the rest
        print(f"<!-- Pi not measured: {error} -->", file=sys.stderr)
    for name, command in MACHINE.items():
        shell = command.format(log=path, out=scratch / "copy.log")
        out[name] = median_seconds(lambda s=shell: subprocess.run(s, shell=True, check=True))
    return out


def main(argv: list[str]) -> dict[str, dict[str, dict[str, float]]]:
    """Print one table per size; return the seconds by size, flavour and measure."""
    sizes = argv or ["16MiB"]
    measured: dict[str, dict[str, dict[str, float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for size_text in sizes:
            size = parse_size(size_text)
            print(f"\n### {size_text} in {CHUNK // 1024} KiB chunks (median of {ROUNDS})\n")
            rows = {
                f: figures(cached_stream_log(f, size, CACHE, seed=3), Path(tmp))
                for f in STREAM_FLAVOURS
            }
            measured[size_text] = rows
            names = list(next(iter(rows.values())))
            print("| measure | " + " | ".join(STREAM_FLAVOURS) + " |")
            print("|---|" + "---|" * len(STREAM_FLAVOURS))
            for name in names:
                cells = []
                for flavour in STREAM_FLAVOURS:
                    seconds = rows[flavour][name]
                    ratio = seconds / rows[flavour]["cat | tee | tail -c"]
                    cells.append(
                        f"{seconds * 1e3:.1f} ms, {size / seconds / 2**20:.0f} MiB/s, ×{ratio:.1f}"
                    )
                print(f"| {name.replace('|', chr(92) + '|')} | " + " | ".join(cells) + " |")
    return measured


if __name__ == "__main__":
    main(sys.argv[1:])
