"""Benchmark inputs, generated once per session (setup stays out of the timings)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from corpora.generators.logs import STREAM_FLAVOURS, cached_stream_log, minified_line, mixed_log

SIZES = {"1MiB": 1 << 20, "16MiB": 16 << 20}


@pytest.fixture(scope="session", params=sorted(SIZES))
def log_text(request: pytest.FixtureRequest) -> str:
    return mixed_log(SIZES[request.param], seed=1).decode("utf-8")


@pytest.fixture(scope="session")
def bundle_line() -> str:
    return minified_line(1 << 20, seed=2)


# streaming inputs: raw byte logs cached under .cache/ (git-ignored); bigger runs with
# CTXSPEC_BENCH_STREAM_SIZES=256MiB,1GiB
_UNITS = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
STREAM_SIZES = os.environ.get("CTXSPEC_BENCH_STREAM_SIZES", "1MiB,16MiB").split(",")
STREAM_CACHE = Path(__file__).resolve().parent.parent / ".cache" / "bench"


def _size(text: str) -> int:
    return int(text[:-3]) * _UNITS[text[-3:]]


@pytest.fixture(
    scope="session",
    params=[(f, s) for s in STREAM_SIZES for f in STREAM_FLAVOURS],
    ids=lambda p: f"{p[0]}-{p[1]}",
)
def stream_log_path(request: pytest.FixtureRequest) -> Path:
    flavour, size = request.param
    return cached_stream_log(flavour, _size(size), STREAM_CACHE, seed=3)
