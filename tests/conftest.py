"""Shared helpers for ctxspec's own tests."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# ctxspec's own properties draw the same examples on every run and machine (derandomized,
# no example database), and a loaded machine's slowness is no failure: the tests' verdict
# is a fact too, with or without $CI
settings.register_profile(
    "ctxspec-tests",
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("ctxspec-tests")

TESTS = Path(__file__).resolve().parent


@pytest.fixture
def fake() -> object:
    """Build the command line of the scripted fake implementation for some modes."""

    def command(*modes: str) -> list[str]:
        return [sys.executable, str(TESTS / "fake_impl.py"), *modes]

    return command
