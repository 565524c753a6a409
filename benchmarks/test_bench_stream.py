"""Streaming tail truncation: the reference, the real Pi, and the machine's own limits.

Each input (`stream_log_path`: flavours x sizes, cached under `.cache/bench/`) is fed in
64 KiB chunks, as a pipe delivers it. Compared in one run:

- the fast engine's `OutputAccumulator` (`fastengine.stream`, ctxspec's engine; the tests
  keep the name `reference`) without persistence (`retain_raw=False`) and with it
  (`fastengine.persist_stream`, a real temp file holding every byte);
- Pi 0.85.0's `OutputAccumulator`, timed inside Node (`pi_stream.mjs`: process start and
  file reading excluded; its median lands in `extra_info["pi_median_ns"]`);
- `wc -l`, `cat LOG > FILE`, `cat LOG | tail -c 51200`, `cat LOG | tee FILE | tail -c 51200`.

Nothing here asserts a time; the results only check that each run did its work.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from fastengine import OutputAccumulator, persist_stream

CHUNK = 64 * 1024
HERE = Path(__file__).resolve().parent


def _chunks(path: Path) -> list[bytes]:
    data = path.read_bytes()
    return [data[i : i + CHUNK] for i in range(0, len(data), CHUNK)]


def _tail_only(chunks: list[bytes]) -> Any:
    accumulator = OutputAccumulator(retain_raw=False)
    for chunk in chunks:
        accumulator.append(chunk)
    accumulator.finish()
    return accumulator.snapshot()


def test_reference_stream_tail(benchmark: Any, stream_log_path: Path) -> None:
    chunks = _chunks(stream_log_path)
    snapshot = benchmark.pedantic(_tail_only, args=(chunks,), rounds=3, iterations=1)
    assert snapshot.total_raw_bytes == stream_log_path.stat().st_size


def test_reference_stream_tail_persisted(
    benchmark: Any, stream_log_path: Path, tmp_path: Path
) -> None:
    chunks = _chunks(stream_log_path)

    def run() -> Any:
        done = persist_stream(chunks, persist_if_truncated=True, directory=tmp_path)
        assert done.path is not None
        size = done.path.stat().st_size
        done.path.unlink()
        return size

    assert benchmark.pedantic(run, rounds=3, iterations=1) == stream_log_path.stat().st_size


def test_pi_stream_tail(benchmark: Any, stream_log_path: Path) -> None:
    pi = pytest.importorskip("conformance.harnesses.pi")
    try:
        install = pi.ensure_installed(quiet=True)
    except pi.PiInstallError as error:
        pytest.skip(f"Pi 0.85.0 unavailable: {error}")
    argv = [str(install.node), str(HERE / "pi_stream.mjs"), str(install.package_dir)]

    def run() -> dict[str, Any]:
        out = subprocess.run(
            [*argv, str(stream_log_path), str(CHUNK), "3"], capture_output=True, check=True
        )
        loaded: dict[str, Any] = json.loads(out.stdout)
        return loaded

    report = benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info["pi_median_ns"] = report["medianNs"]
    benchmark.extra_info["pi_ns"] = report["ns"]
    assert report["persistedBytes"] == stream_log_path.stat().st_size


MACHINE = {
    "wc-l": "wc -l < {log} > /dev/null",
    "cat-to-file": "cat {log} > {out}",
    "cat-tail-c": "cat {log} | tail -c 51200 > /dev/null",
    "cat-tee-tail-c": "cat {log} | tee {out} | tail -c 51200 > /dev/null",
}


@pytest.mark.parametrize("name", sorted(MACHINE))
def test_machine_limit(benchmark: Any, stream_log_path: Path, tmp_path: Path, name: str) -> None:
    command = MACHINE[name].format(log=stream_log_path, out=tmp_path / "copy.log")
    benchmark.pedantic(
        subprocess.run,
        args=(command,),
        kwargs={"shell": True, "check": True},
        rounds=3,
        iterations=1,
    )
