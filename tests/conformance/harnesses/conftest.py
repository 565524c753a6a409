"""The harness tests' shared fixture: one adapter process per module."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ctxspec.conformance.transport.base import Implementation
from ctxspec.conformance.transport.resolve import open_implementation


@pytest.fixture(scope="module")
def impl(request: pytest.FixtureRequest) -> Iterator[Implementation]:
    """The implementation the module's `SPEC` names, started once for the module (the first
    use installs it into the cache)."""
    implementation = open_implementation(request.module.SPEC)
    yield implementation
    implementation.close()
