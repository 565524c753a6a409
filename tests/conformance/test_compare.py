"""compare: every difference shown, none hidden behind another (issue 32, part 3)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ctxspec.conformance.judging.compare import Difference, differences, render, string_windows
from ctxspec.conformance.runner.results import Findings


def _apply(expected: str, actual: str) -> str:
    """`actual` rebuilt from `expected` and the windows: the windows cover every change."""
    out, at = [], 0
    for window in string_windows(expected, actual):
        out.append(expected[at : window.e_lo])
        out.append(actual[window.a_lo : window.a_hi])
        at = window.e_hi
    out.append(expected[at:])
    return "".join(out)


class TestStringWindows:
    """Every differing window of a string, not only the first."""

    def test_a_second_change_further_on_is_its_own_window(self) -> None:
        expected = "alpha beta gamma delta epsilon zeta eta theta"
        actual = "alpha BETA gamma delta epsilon zeta eta THETA"
        windows = string_windows(expected, actual)
        assert [(w.e_lo, w.e_hi) for w in windows] == [(6, 10), (40, 45)]

    def test_a_dropped_line_and_a_changed_line_in_a_long_text(self) -> None:
        lines = [f"line {n}" for n in range(5000)]
        expected = "\n".join(lines)
        changed = [*lines]
        changed[10] = "line 1O"
        del changed[4000]
        windows = string_windows(expected, "\n".join(changed))
        assert len(windows) == 2

    def test_a_window_at_either_end(self) -> None:
        assert len(string_windows("xabcdefghijklmnopy", "abcdefghijklmnop")) == 2

    def test_equal_strings_have_none(self) -> None:
        assert string_windows("same", "same") == []

    @given(st.text(max_size=60), st.text(max_size=60))
    def test_the_windows_turn_expected_into_actual(self, expected: str, actual: str) -> None:
        assert _apply(expected, actual) == actual

    pieces = st.sampled_from(["ab\n", "c\n", "🙂", "\ud83d", "x"])

    @given(st.lists(pieces, max_size=30), st.lists(pieces, max_size=30))
    def test_the_windows_turn_expected_into_actual_in_lines(
        self, expected: list[str], actual: list[str]
    ) -> None:
        assert _apply("".join(expected), "".join(actual)) == "".join(actual)

    def test_every_window_is_rendered_with_a_count_of_those_left_out(self) -> None:
        words = [f"word{n:02} and some padding" for n in range(40)]
        expected = " ".join(words)
        actual = " ".join(w.upper() if n % 3 == 0 else w for n, w in enumerate(words))
        text = render(differences({"c": expected}, {"c": actual}))
        assert "strings differ in" in text
        assert "#1 at char" in text
        assert "more differing windows not shown" in text

    def test_the_record_carries_every_window(self) -> None:
        expected = "abc def ghi jkl mno pqr stu vwx yz " * 3
        actual = expected.replace("def", "DEF").replace("vwx", "VWX")
        findings = Findings.of(
            "truncate.tail", differences({"content": expected}, {"content": actual})
        )
        shown = findings.shown[0].to_json()
        assert shown["windowCount"] == 6
        assert len(shown["windows"]) == 6


class TestLists:
    """List items past the shorter side, each as missing or extra, aligned by value."""

    def test_items_past_the_end_are_missing(self) -> None:
        found = differences({"x": [1, 2, 3, 4]}, {"x": [1, 2]})
        assert [(d.path, d.kind) for d in found] == [
            ("$.x.length", "differs"),
            ("$.x[2]", "missing"),
            ("$.x[3]", "missing"),
        ]

    def test_items_past_the_end_are_extra(self) -> None:
        found = differences([{"a": 1}], [{"a": 1}, {"a": 2}, {"b": 3}])
        assert [(d.path, d.kind) for d in found] == [
            ("$.length", "differs"),
            ("$[1]", "extra"),
            ("$[2]", "extra"),
        ]

    def test_an_item_dropped_from_the_middle_is_one_difference(self) -> None:
        expected = [{"role": "user", "n": n} for n in range(10)]
        actual = expected[:3] + expected[4:]
        found = differences(expected, actual)
        assert [(d.path, d.kind) for d in found] == [("$.length", "differs"), ("$[3]", "missing")]

    def test_a_changed_item_beside_a_dropped_one_is_still_compared_field_by_field(self) -> None:
        expected = [{"id": "a", "v": 1}, {"id": "b", "v": 2}, {"id": "c", "v": 3}]
        actual = [{"id": "a", "v": 1}, {"id": "c", "v": 30}]
        found = differences(expected, actual)
        kinds = {(d.path, d.kind) for d in found}
        assert ("$.length", "differs") in kinds
        assert any(kind == "missing" for _, kind in kinds)
        assert any(path.endswith(".v") for path, _ in kinds)

    def test_alignment_tells_true_from_one_and_not_one_from_one_point_zero(self) -> None:
        assert differences([1, True], [1.0, True, 2]) == [
            Difference("$.length", 2, 3),
            Difference("$[2]", None, 2, extra=True),
        ]
        assert [d.kind for d in differences([True, 5], [1])][1:] == ["differs", "missing"]

    def test_large_integers_are_never_rounded_into_each_other(self) -> None:
        found = differences([2**60, 7], [2**60 + 1])
        assert len(found) > 1

    def test_missing_and_extra_items_render(self) -> None:
        text = render(differences({"skills": ["a", "b"]}, {"skills": ["a", "c", "d"]}))
        assert "$.skills[1]" in text
        assert "unexpected" in text or "missing" in text
