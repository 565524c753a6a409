"""The verdict's shipped examples fit the suite: every property has examples drawn from
its current source and strategies, for the seed version and hypothesis pin; and what
does not fit is named, property by property, with the command that draws them again."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import hypothesis
import pytest

from ctxspec import exits
from ctxspec.conformance.runner.example_data import HYPOTHESIS, REGENERATE, shipped
from ctxspec.conformance.runner.examples import SEED_VERSION
from ctxspec.conformance.tools.examples_write import stale

TOOL = [sys.executable, "-m", "ctxspec.conformance.tools.examples_write"]


def test_the_shipped_examples_fit_the_suite() -> None:
    """Without drawing, under any hypothesis: a failure here names each property whose
    examples are missing or stale; `python -m ctxspec.conformance.tools.examples_write`
    draws them again."""
    completed = subprocess.run(
        [*TOOL, "--check"], capture_output=True, text=True, timeout=300, check=False
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr


def _document(**changes: Any) -> dict[str, Any]:
    document: dict[str, Any] = {
        "seedVersion": SEED_VERSION,
        "hypothesis": HYPOTHESIS,
        "strategies": "s1",
        "properties": {"test_a": {"source": "a1"}, "test_b[x]": {"source": "b1"}},
    }
    return {**document, **changes}


def test_what_does_not_fit_is_named_by_property() -> None:
    wanted = {"test_m": _document(), "test_gone": None}
    shipped_now = {
        "test_m": _document(
            seedVersion="0.0.9",
            properties={"test_a": {"source": "a0"}, "test_old": {"source": "o"}},
        ),
        "test_gone": _document(),
        "test_new": None,
    }
    lines = stale({k: v for k, v in wanted.items() if v is not None}, shipped_now)
    assert lines == [
        "test_gone.json: examples of a module the suite no longer has",
        "test_m.json: drawn for seed version 0.0.9, the suite's is " + SEED_VERSION,
        "test_a: its source changed since its examples were drawn",
        "test_b[x]: no shipped examples (a new property, or renamed)",
        "test_old: shipped examples of no property (removed, or renamed)",
        "test_new.json: examples of a module the suite no longer has",
    ]


def test_changed_strategies_name_each_property_of_the_module() -> None:
    lines = stale({"test_m": _document()}, {"test_m": _document(strategies="s0")})
    assert lines == [
        f"{prop}: its strategies changed since its examples were drawn "
        "(test_m or the strategy modules)"
        for prop in ("test_a", "test_b[x]")
    ]


def test_the_files_name_their_seed_version_pin_and_command() -> None:
    document = shipped("test_truncation_properties")
    assert document["seedVersion"] == SEED_VERSION
    assert document["hypothesis"] == HYPOTHESIS
    assert document["regenerate"] == REGENERATE


@pytest.mark.slow
@pytest.mark.skipif(
    hypothesis.__version__ != HYPOTHESIS,
    reason=f"the shipped examples are drawn with hypothesis {HYPOTHESIS}",
)
def test_the_shipped_examples_are_what_the_pinned_hypothesis_draws() -> None:
    """Drawn again, the examples are the shipped ones, value for value."""
    completed = subprocess.run(
        [*TOOL, "--check-draws", "-q"], capture_output=True, text=True, timeout=900, check=False
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr


@pytest.mark.slow
def test_a_verdict_refuses_to_run_a_property_without_examples() -> None:
    """A property the shipped data hold no examples for stops the run before it starts,
    naming it and the command that draws them (a verdict never draws them itself)."""
    script = (
        "import sys\n"
        "from ctxspec.conformance.runner import fixed_examples\n"
        "fixed_examples.shipped = lambda module: {'properties': {}}\n"
        "from ctxspec.cli import main\n"
        "sys.exit(main(['conform', '-k', 'test_format_size_matches_reference or test_x']))\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=False
    )
    output = completed.stdout + completed.stderr
    assert completed.returncode == exits.USAGE, output
    assert "no shipped examples of test_format_size_matches_reference: draw" in output
    assert REGENERATE in output
