"""Shared helpers for ctxspec's own tests."""

from __future__ import annotations

import sys

import pytest
from hypothesis import HealthCheck, settings
from paths import FAKE_IMPL

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


@pytest.fixture
def fake() -> object:
    """Build the command line of the scripted fake implementation for some modes."""

    def command(*modes: str) -> list[str]:
        return [sys.executable, str(FAKE_IMPL), *modes]

    return command
