"""`ctxspec bench`: one command for the whole benchmark report, with plots.

    ctxspec bench [SIZE ...]          # stream sizes, default 1MiB 16MiB 64MiB

Runs, in one process and one sitting: the streaming-tail figures (reference, the real Pi
timed inside Node, the machine's `wc`/`cat`/`tail`/`tee`) per size and flavour; peak
memory per size; the session helpers at 1k/10k/100k entries against Pi; the estimate
accuracy table. Writes `reports/bench-<UTC time>/report.md`, `results.json` and two
plots (throughput vs input size, session cost vs entries). Figures are one run's medians
on whatever machine runs it: compare ratios, not times.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import estimate_accuracy  # noqa: E402  (sibling scripts, not an installed package)
import stream_figures  # noqa: E402
import stream_memory  # noqa: E402

from corpora.generators.logs import cached_stream_log  # noqa: E402

SESSION_SIZES = "1000,10000,100000"


def _captured(run: Any, *args: Any) -> str:
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        run(*args)
    return buffer.getvalue().strip()


def _throughput(sizes: list[str]) -> dict[str, dict[str, float]]:
    """MiB/s per measure and size on the mixed log (the plot's data)."""
    series: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        for label in sizes:
            size = stream_memory.parse_size(label)
            log = cached_stream_log("mixed", size, stream_figures.CACHE, seed=3)
            for name, seconds in stream_figures.figures(log, Path(scratch)).items():
                series.setdefault(name, {})[label] = size / seconds / 2**20
    return series


def _sessions(out: Path) -> dict[str, dict[str, float]]:
    """Median ms per function and size, reference and Pi (the plot's data)."""
    raw = out / "sessions.json"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            str(HERE / "test_bench_sessions.py"),
            "-q",
            "-p",
            "conformance.plugin",
            "--benchmark-only",
            f"--benchmark-json={raw}",
        ],
        check=True,
        env={**os.environ, "CTXSPEC_BENCH_SESSION_SIZES": SESSION_SIZES},
        capture_output=True,
    )
    series: dict[str, dict[str, float]] = {}
    for bench in json.loads(raw.read_text())["benchmarks"]:
        size = str(bench["param"]).split("-")[0]
        name = bench["name"].split("[")[0].removeprefix("test_")
        if name == "pi_session_helpers":
            for key, ns in bench["extra_info"].items():
                function = key.removeprefix("pi_").removesuffix("_median_ns")
                series.setdefault(f"Pi {function}", {})[str(size)] = ns / 1e6
        else:
            function = name.removeprefix("reference_")
            series.setdefault(f"reference {function}", {})[str(size)] = (
                bench["stats"]["median"] * 1e3
            )
    return series


def _plot(
    series: dict[str, dict[str, float]], path: Path, xlabel: str, ylabel: str, x_of: Any
) -> None:
    figure, axes = plt.subplots(figsize=(8, 5))
    for name, points in sorted(series.items()):
        xs = [x_of(k) for k in points]
        axes.plot(
            xs,
            list(points.values()),
            marker="o",
            label=name,
            linestyle="--" if name.startswith("Pi") else "-",
        )
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def main(argv: list[str]) -> int:
    sizes = argv or ["1MiB", "16MiB", "64MiB"]
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    out = Path.cwd() / "reports" / f"bench-{stamp}"
    out.mkdir(parents=True, exist_ok=True)
    print(f"ctxspec bench: writing {out}", file=sys.stderr)
    throughput = _throughput(sizes)
    sessions = _sessions(out)
    _plot(
        throughput,
        out / "stream-throughput.png",
        "input size (MiB)",
        "MiB/s",
        lambda label: stream_memory.parse_size(label) / 2**20,
    )
    _plot(sessions, out / "session-scaling.png", "entries", "median ms", int)
    sections = [
        f"# ctxspec benchmark report ({stamp})",
        "Medians of one run on this machine; compare ratios, not times.",
        "## Streaming tail\n\n![throughput](stream-throughput.png)\n\n"
        + _captured(stream_figures.main, sizes),
        "## Peak memory of the streaming tail\n\n" + _captured(stream_memory.main, sizes),
        "## Session helpers\n\n![scaling](session-scaling.png)",
        "## Estimate accuracy\n\n" + _captured(estimate_accuracy.main),
    ]
    (out / "report.md").write_text("\n\n".join(sections) + "\n")
    (out / "results.json").write_text(
        json.dumps({"throughputMiBs": throughput, "sessionsMs": sessions}, indent=1) + "\n"
    )
    print(out / "report.md")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
