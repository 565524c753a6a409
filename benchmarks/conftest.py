"""Benchmark inputs, generated once per session (setup stays out of the timings)."""

from __future__ import annotations

import pytest

from corpora.generators.logs import minified_line, mixed_log

SIZES = {"1MiB": 1 << 20, "16MiB": 16 << 20}


@pytest.fixture(scope="session", params=sorted(SIZES))
def log_text(request: pytest.FixtureRequest) -> str:
    return mixed_log(SIZES[request.param], seed=1).decode("utf-8")


@pytest.fixture(scope="session")
def bundle_line() -> str:
    return minified_line(1 << 20, seed=2)
