"""compare: one path syntax, unambiguous whatever the keys (dots, slashes, brackets,
quotes, empty keys, a key `length`, a key that reads as an index)."""

from __future__ import annotations

import doctest
import json
import re
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from ctxspec.conformance.judging import compare, shapes
from ctxspec.conformance.judging.compare import (
    differences,
    elide_indices,
    first_difference,
    json_path,
)
from ctxspec.conformance.runner.results import class_path

_STEP = re.compile(r'\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]')


def _parts(path: str) -> list[str | int]:
    """The keys and indices a path names, read back: the syntax reads one way only."""
    assert path.startswith("$")
    parts: list[str | int] = []
    at = 1
    while at < len(path):
        step = _STEP.match(path, at)
        assert step is not None, f"{path!r} does not read at {at}"
        name, index, quoted = step.groups()
        parts.append(
            name if name is not None else int(index) if index is not None else json.loads(quoted)
        )
        at = step.end()
    return parts


def _at(value: Any, parts: list[str | int]) -> Any:
    for part in parts:
        value = value[part]
    return value


ODD_KEYS = ["a.b", "a/b", "/", "[0]", "0", 'say "hi"', "", "length", "x\\y", "é", "a b", "$"]


def test_a_difference_deep_in_odd_keys_gets_a_path_that_reads_back() -> None:
    expected = {key: [{"k": {key: [1, {key: "old"}]}}] for key in ODD_KEYS}
    actual = {key: [{"k": {key: [1, {key: "new"}]}}] for key in ODD_KEYS}
    found = differences(expected, actual)
    assert len(found) == len(ODD_KEYS)
    for key, difference in zip(ODD_KEYS, found, strict=True):
        parts = _parts(difference.path)
        assert parts == [key, 0, "k", key, 1, key]
        assert (_at(expected, parts), _at(actual, parts)) == ("old", "new")
    assert found[0].path == '$["a.b"][0].k["a.b"][1]["a.b"]'
    assert found[6].path == '$[""][0].k[""][1][""]'
    assert found[4].path == '$["0"][0].k["0"][1]["0"]'


def test_a_plain_name_is_dotted_and_a_list_length_is_not_a_key() -> None:
    assert json_path(["skills", 0, "baseDir"]) == "$.skills[0].baseDir"
    assert first_difference({"a": [1]}, {"a": [1, 2]}).path == "$.a.length"  # type: ignore[union-attr]
    assert first_difference({"length": 1}, {"length": 2}).path == '$["length"]'  # type: ignore[union-attr]


def test_elided_indices_leave_quoted_keys_alone() -> None:
    path = '$.a[3]["b[0]"][12]["q\\"[1]"].c'
    assert elide_indices(path, "[]") == '$.a[]["b[0]"][]["q\\"[1]"].c'
    assert class_path(path) == '$.a[*]["b[0]"][*]["q\\"[1]"].c'


_KEYS = st.text(alphabet=st.sampled_from('ab.0/[]"\\ $'), max_size=4)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=3),
    max_leaves=12,
)


@given(_JSON, _JSON)
def test_every_path_names_the_values_it_says(expected: Any, actual: Any) -> None:
    """Each difference's path reads back to the values it holds, on the side(s) that have
    them (a `.length` names the list whose lengths it holds)."""
    for difference in differences(expected, actual):
        if difference.path.endswith(".length"):
            parts = _parts(difference.path.removesuffix(".length"))
            assert len(_at(expected, parts)) == difference.expected
            assert len(_at(actual, parts)) == difference.actual
            continue
        parts = _parts(difference.path)
        if not difference.extra:
            assert _at(expected, parts) == difference.expected
        if not difference.missing:
            assert _at(actual, parts) == difference.actual


def test_the_examples_in_judgings_docstrings_are_true() -> None:
    for module in (compare, shapes):
        assert doctest.testmod(module).failed == 0, module.__name__
