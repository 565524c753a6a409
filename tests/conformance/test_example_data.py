"""The shipped examples' JSON: every drawn value comes back as it was drawn, and a file
reads back as the document it was written from."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxspec.conformance.runner.example_data import (
    StaleExamples,
    UnencodableValue,
    decode,
    dump,
    encode,
)
from ctxspec.conformance.runner.fixed_examples import ReplayedData
from ctxspec.corpora.generators.sessions import filler

# every character, surrogates included (st.text leaves them out by default)
any_text = st.text(st.characters(codec=None, categories=None))
# long text of JSON lines and filler, which the examples write in shorter forms
json_lines = st.lists(
    st.one_of(
        any_text,
        st.dictionaries(any_text, any_text | st.builds(filler, any_text, st.integers(0, 900))).map(
            json.dumps
        ),
    ),
    min_size=2,
).map("\n".join)
scalars = st.one_of(
    json_lines,
    st.builds(filler, any_text, st.integers(150, 900)),
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**200), max_value=2**200),
    st.floats(allow_nan=True, allow_infinity=True),
    any_text,
    st.binary(),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.lists(inner, max_size=4).map(tuple),
        st.dictionaries(any_text, inner, max_size=4),
        st.dictionaries(st.integers() | st.sampled_from(["$bytes", "$dict"]), inner, max_size=3),
    ),
    max_leaves=20,
)


def same(a: Any, b: Any) -> bool:
    """Equal and of the same types, all the way down (NaN equal to NaN, -0.0 not 0.0)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and str(a) == str(b))
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    return bool(a == b)


@given(values)
def test_a_drawn_value_comes_back_through_a_file(value: Any) -> None:
    example = {"given": {"v": encode(value)}}
    document = {"suite": "ctxspec", "properties": {"test_x": {"examples": [example]}}}
    read = json.loads(dump(document))
    assert read == json.loads(json.dumps(document))
    assert same(decode(read["properties"]["test_x"]["examples"][0]["given"]["v"]), value)


@pytest.mark.parametrize(
    "value",
    [
        b"\xed\xa0\x80",
        ("a", (1, 2.5)),
        float("-inf"),
        -0.0,
        2**64 + 1,
        "\ud83d",  # a lone surrogate
        "\ud83d\ude00",  # a high and a low surrogate, as two code points: not U+1F600
        "\U0001f600",
        {"$bytes": "not bytes"},  # a dict that looks like a tag
        {1: "a", "b": 2},
    ],
)
def test_values_json_cannot_hold_as_they_are(value: Any) -> None:
    assert same(decode(json.loads(json.dumps(encode(value)))), value)


def test_a_set_has_no_form() -> None:
    with pytest.raises(UnencodableValue, match="set"):
        encode({1, 2})


def test_replayed_draws_come_back_in_order_and_say_when_they_are_stale() -> None:
    draws = [{"label": "maxBytes", "value": 7}, {"label": None, "value": {"$bytes": "YQ=="}}]
    data = ReplayedData("test_x", draws)
    assert data.draw(st.integers(), label="maxBytes") == 7
    assert data.draw(st.binary()) == b"a"
    with pytest.raises(StaleExamples, match="draws more than"):
        data.draw(st.integers())
    with pytest.raises(StaleExamples, match="'args' where its shipped example recorded 'maxBytes'"):
        ReplayedData("test_x", draws).draw(st.integers(), label="args")


def test_generated_text_is_written_as_what_makes_it() -> None:
    """The long sessions' filler, and a session file's lines, are written as what makes
    them: the file stays small, and reads back the same."""
    text = filler("u1", 4000)
    assert encode(text) == {"$filler": ["u1", 4000]}
    jsonl = "\n".join(["{", json.dumps({"content": text}), "[1", "2]", ""])
    written = encode(jsonl)
    assert written["$lines"][1] == {"$json": {"content": {"$filler": ["u1", 4000]}}}
    assert decode(json.loads(json.dumps(written))) == jsonl
    almost = text[:-1] + "x"
    assert encode(almost) == almost
