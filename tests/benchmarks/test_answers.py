"""`Expected`: the reference's answer held as text, every other answer checked against it."""

from __future__ import annotations

from ctxspec.benchmarks.answers import Expected, first_difference
from ctxspec.conformance.judging.compare import canonical


def test_the_same_answer_in_another_key_order_is_the_same() -> None:
    expected = Expected.of({"b": [1, "é"], "a": {"y": None, "x": True}})
    assert expected.difference({"a": {"x": True, "y": None}, "b": [1, "é"]}) is None


def test_one_number_written_two_ways_is_one_number() -> None:
    """JavaScript has one number type: 1 and 1.0 are the same answer."""
    assert Expected.of({"tokens": 1}).difference({"tokens": 1.0}) is None


def test_a_difference_is_named_where_it_is() -> None:
    """In judging's one path syntax, the one the conform reports show."""
    expected = Expected.of({"messages": [{"content": "a"}, {"content": "b"}]})
    found = expected.difference({"messages": [{"content": "a"}, {"content": "c"}]})
    assert found is not None and found.startswith("$.messages[1].content: strings of 1 and 1")
    assert Expected.of({"ok": True}).difference({"ok": 1}) == "$.ok: 1, the reference has true"
    assert Expected.of({"a.b": 1}).difference({}) == '$["a.b"]: missing'
    assert Expected.of({}).difference({"": 1}) == '$[""]: not in the reference\'s answer'


def test_a_list_of_another_length_is_told_by_its_counts() -> None:
    """The first difference of a long list is its length: no item is aligned to find it."""
    assert first_difference({"a": [1, 2, 3]}, {"a": [1, 3]}) == "$.a: 2 items, the reference has 3"
    assert first_difference({"length": 1}, {"length": 2}) == '$["length"]: 2, the reference has 1'


def test_the_callers_text_is_taken_as_the_answers() -> None:
    answer = {"a": [1, 2]}
    assert Expected.of(answer).difference(answer, canonical(answer)) is None
