"""Every golden case of the corpus, one test item per case id (see plugin.py)."""

from __future__ import annotations

from conformance.cases import Case
from conformance.check import check_case
from conformance.transport.base import Implementation


def test_case(golden_case: Case, impl: Implementation) -> None:
    check_case(impl, golden_case)
