"""Every op of the protocol is drawn by at least one property of the suite.

A golden case pins one request; a property draws many (`conformance/suite/test_*_properties.py`).
An op no property draws is checked only where a case happened to look, so this test fails
on any op of `ctxspec.conformance.protocol.OPS` that no property names, unless `NO_PROPERTY`
gives the reason it has none.
"""

from __future__ import annotations

import fnmatch
import importlib
from collections.abc import Iterator
from importlib import resources
from typing import Any, Final

import pytest

from ctxspec.conformance.protocol import OPS

_BENCH = "the bench extension: `ctxspec bench` judges its answers against the reference's"
# op -> why the suite draws no example of it
_AGENT_BENCH = (
    "an agent bench op times an agent op's own path on a large input (`ctxspec bench --op`); "
    "what it answers is the agent op's answer, which the agent ops' properties judge"
)
NO_PROPERTY: Final = {
    "hello": "the handshake: checked once at start-up, before any case or property",
    "bench.stream": _BENCH,
    "bench.truncate": _BENCH,
    "bench.session": _BENCH,
    "bench.open": _BENCH,
    "bench.agent_tool_output": _AGENT_BENCH,
    "bench.agent_instructions": _AGENT_BENCH,
    "bench.agent_compaction": _AGENT_BENCH,
    "agent.summary": (
        "AGENT-6 is one yes/no per agent (its profile's `refuses_length_cut`): drawn messages, "
        "windows and usages leave it unchanged, so a property would repeat the two agent-summary "
        "cases; the length stop is all it reads"
    ),
    "agent.resume": (
        "AGENT-7: each example replays a whole session through a black-box agent (three or "
        "four runs of it), so drawn histories would cost minutes per agent; the four cases "
        "cover a plain history, astral characters, CRLF and a tab, a fork and its original"
    ),
}


def _suite_functions() -> Iterator[Any]:
    for file in sorted(resources.files("ctxspec.conformance").joinpath("suite").iterdir(), key=str):
        if file.name.startswith("test_") and file.name.endswith("_properties.py"):
            module = importlib.import_module(
                f"ctxspec.conformance.suite.{file.name.removesuffix('.py')}"
            )
            for name, value in vars(module).items():
                if name.startswith("test_") and callable(value):
                    yield value


def _property_ops(function: Any) -> set[str]:
    """The ops a property draws: its marker's op (a `*` pattern read against the op values
    it is parametrized with, else every op of the protocol), or each op parameter's own
    marker."""
    marks = getattr(function, "pytestmark", [])
    op_params: list[Any] = []
    for mark in marks:
        if mark.name == "parametrize" and mark.args[0] == "op":
            op_params = list(mark.args[1])
    found: set[str] = set()
    for param in op_params:
        for mark in getattr(param, "marks", ()):
            if mark.name == "ctxspec_property":
                found.add(mark.kwargs["op"])
    values = [getattr(p, "values", (p,))[0] for p in op_params]
    for mark in marks:
        if mark.name == "ctxspec_property":
            pattern = mark.kwargs["op"]
            candidates = values or OPS
            found |= {op for op in candidates if fnmatch.fnmatchcase(op, pattern)}
    return found


@pytest.fixture(name="covered")
def fixture_covered(pytestconfig: pytest.Config) -> dict[str, list[str]]:
    """op -> the names of the properties that draw it. The suite's modules are imported
    here, outside ctxspec's plugin, whose marker they use: it is declared first."""
    pytestconfig.addinivalue_line("markers", "ctxspec_property: a property of the suite")
    covered: dict[str, list[str]] = {}
    for function in _suite_functions():
        for op in _property_ops(function):
            covered.setdefault(op, []).append(function.__name__)
    return covered


def test_every_op_has_a_property(covered: dict[str, list[str]]) -> None:
    """Each op of the protocol is drawn by a property, or named in NO_PROPERTY with why."""
    missing = [op for op in OPS if op not in covered and op not in NO_PROPERTY]
    assert not missing, f"ops no property draws (add one, or a reason to NO_PROPERTY): {missing}"


def test_no_property_names_only_ops_without_one(covered: dict[str, list[str]]) -> None:
    """NO_PROPERTY lists ops of the protocol that indeed have no property (no stale entry)."""
    stale = [op for op in NO_PROPERTY if op not in OPS or op in covered]
    assert not stale, f"NO_PROPERTY entries that are no op or have a property now: {stale}"


@pytest.mark.parametrize("op", ["truncate.head", "session.navigate", "tool.grep", "skills.load"])
def test_ops_are_read_from_markers_and_parameters(op: str, covered: dict[str, list[str]]) -> None:
    """A `*` marker over op parameters and per-parameter markers both count."""
    assert op in covered
