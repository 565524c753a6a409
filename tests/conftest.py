"""Shared helpers for ctxspec's own tests."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent


@pytest.fixture
def fake() -> object:
    """Build the command line of the scripted fake implementation for some modes."""

    def command(*modes: str) -> list[str]:
        return [sys.executable, str(TESTS / "fake_impl.py"), *modes]

    return command
