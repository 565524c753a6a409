"""No install requirement pins a shared library exactly: a project that tests itself with
another release of pytest or hypothesis can install ctxspec beside it. The exceptions
are listed with their reasons; the verdict's examples are data, so hypothesis is not one."""

from __future__ import annotations

import re
import tomllib
from typing import Any, Final

from paths import ROOT

from ctxspec.conformance.runner.example_data import HYPOTHESIS

# exact pins an install may carry, and why
EXACT_PINS: Final = {
    "ripgrep": "binary wheels of rg for the real Pi's grep tool: 14.1.0 is the newest with "
    "wheels (15.x builds from source and needs crates.io)",
}


def _pyproject() -> dict[str, Any]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))


def _name(requirement: str) -> str:
    found = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement)
    assert found, requirement
    return found[0].lower()


def test_no_install_requirement_is_pinned_exactly() -> None:
    exact = [
        requirement
        for requirement in _pyproject()["project"]["dependencies"]
        if "==" in requirement.split(";", 1)[0] and _name(requirement) not in EXACT_PINS
    ]
    assert exact == [], "an install requirement pinned exactly: use a floor (name>=X)"


def test_hypothesis_is_pinned_only_where_the_examples_are_drawn() -> None:
    """The test group pins the release `examples_write` draws the shipped examples with."""
    test_group = [r for r in _pyproject()["dependency-groups"]["test"] if isinstance(r, str)]
    assert f"hypothesis=={HYPOTHESIS}" in test_group
