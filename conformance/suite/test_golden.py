"""Every golden case of the corpus, one test item per case id (see plugin.py); an agent.*
case is judged in the profile's terms."""

from __future__ import annotations

from ctxspec.conformance.corpus.cases import Case
from ctxspec.conformance.judging.check import check_case
from ctxspec.conformance.runner.profiles import Profile
from ctxspec.conformance.transport.base import Implementation


def test_case(golden_case: Case, impl: Implementation, agent_profile: Profile) -> None:
    check_case(impl, golden_case, agent_profile)
