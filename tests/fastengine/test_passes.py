"""The fast engine's C passes give the values of its Python paths, and its parse the
reference's.

`fastengine/_sessions.c` indexes a session (`scan`, `scan_with_calls`), finds the tool
calls compaction lists (`file_op_calls`) and the Nones of a list (`nones`); each answers
as the Python path it stands in for, or None to leave the input to it. `_parse.c` finds
the lines of a session file that cannot be parsed with the others (`unsettled_lines`),
writes the others as one JSON array (`array_of_lines`) and takes the parsed values out
of the collector's lists (`untrack`). The file parsed at
once (`ctxspec.fastengine.session.parse_session_entries`) gives the entries and skipped lines of
the reference's parse line by line, on lines that are JSON only together, cut short,
spread over lines or not JSON at all.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Sequence
from itertools import pairwise
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from session_entries import sessions

from ctxspec.fastengine import compaction as fast_compaction
from ctxspec.fastengine import session as fast_session
from ctxspec.fastengine import tree
from ctxspec.fastengine._native import native
from ctxspec.fastengine.tree import RunTree
from ctxspec.reference import file_ops, session_file


@pytest.mark.skipif(tree._C_SCAN is None, reason="the C pass is not built")
@given(sessions(), st.booleans())
def test_the_c_scan_is_the_python_scan(entries: list[Any], as_tuple: bool) -> None:
    """fastengine/_sessions.c gives the Python scan's values, or None to leave it to it;
    its slots alone (`slots`) whatever the ids."""
    given_entries: Sequence[Any] = tuple(entries) if as_tuple else entries
    assert tree._C_SCAN is not None and fast_compaction.C_SLOTS is not None
    found = tree._C_SCAN(given_entries)
    plain = RunTree.scan(given_entries)
    alone = fast_compaction.C_SLOTS(given_entries)  # the slots without the ids: any id
    assert alone is not None and all(a is b for a, b in zip(alone, plain.slots, strict=True))
    if found is None:  # only where some id is not a str
        assert not all(type(e.get("id")) is str for e in entries)
        return
    positions, breaks, headers, slots = found
    assert positions == plain.positions and list(positions) == list(plain.positions)
    assert (breaks, headers) == (plain.breaks, plain.headers)
    assert all(a is b for a, b in zip(slots, plain.slots, strict=True))


_UNSETTLED = native("_parse", "unsettled_lines")


class _Path(str):
    """A str subclass: a type JSON never makes, which the C passes leave to Python."""


_json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=3)
)
_tool_names = st.sampled_from(["read", "write", "edit", "bash", "", "Read"])
_paths = st.one_of(
    st.sampled_from(["a.py", "", "dir/b.md"]), _json_scalars, st.builds(_Path, st.just("c"))
)


@st.composite
def _blocks(draw: st.DrawFn) -> Any:
    if draw(st.booleans()):  # a well-formed call, so that found lists are not all empty
        name = draw(_tool_names)
        return {"type": "toolCall", "name": name, "arguments": {"path": draw(_paths)}}
    block: dict[str, Any] = {}
    if draw(st.booleans()):
        block["type"] = draw(st.sampled_from(["toolCall", "text", "toolcall"]) | _json_scalars)
    if draw(st.booleans()):
        block["name"] = draw(_tool_names | _json_scalars)
    if draw(st.booleans()):
        block["arguments"] = draw(
            st.fixed_dictionaries({}, optional={"path": _paths}) | _json_scalars
        )
    return draw(st.just(block) | _json_scalars | st.lists(st.just(block), max_size=1))


@st.composite
def _call_messages(draw: st.DrawFn) -> list[Any]:
    messages = []
    for _ in range(draw(st.integers(0, 6))):
        message: dict[str, Any] = {"role": draw(st.sampled_from(["assistant", "user"]))}
        if draw(st.booleans()):
            blocks = st.lists(_blocks(), min_size=1, max_size=4)
            message["content"] = draw(blocks if draw(st.booleans()) else _json_scalars)
        messages.append(message)
    return messages


class TestCPasses:
    """The C passes of fastengine/_sessions.c give the values of their Python paths."""

    @pytest.mark.skipif(fast_compaction.C_FILE_OP_CALLS is None, reason="the C pass is not built")
    @given(_call_messages(), st.booleans())
    def test_file_op_calls_in_c_are_the_python_loop(
        self, messages: list[Any], as_tuple: bool
    ) -> None:
        """Same (kind, path) pairs in the same order, or None where a str subclass shows."""
        given_messages: Sequence[Any] = tuple(messages) if as_tuple else messages
        assert fast_compaction.C_FILE_OP_CALLS is not None
        found = fast_compaction.C_FILE_OP_CALLS(given_messages, file_ops.FILE_OP_TOOLS)
        plain = file_ops.file_op_calls(given_messages)
        if found is None:
            assert "_Path" in repr([type(v).__name__ for v in _leaves(messages)])
            return
        assert found == plain
        assert all(type(path) is str for _, path in found)

    @pytest.mark.skipif(fast_compaction.C_SCAN_WITH_CALLS is None, reason="the C pass is not built")
    @given(_call_messages(), st.lists(st.sampled_from(["message", "custom"]), min_size=6))
    def test_the_scan_gathers_each_slots_calls(self, messages: list[Any], kinds: list[str]) -> None:
        """scan_with_calls's calls are file_op_calls of each slot, with its position."""
        entries = [
            {"type": kind, "id": f"e{at}", "message": message}
            for at, (kind, message) in enumerate(zip(kinds, messages, strict=False))
        ]
        found = fast_compaction.C_SCAN_WITH_CALLS(entries, file_ops.FILE_OP_TOOLS)
        if found is None:
            assert "_Path" in repr([type(v).__name__ for v in _leaves(messages)])
            return
        slots = RunTree.scan(entries).slots
        assert found[3] == list(slots)
        assert found[4] == [
            (at, kind, path)
            for at, slot in enumerate(slots)
            if slot is not None
            for kind, path in file_ops.file_op_calls([slot])
        ]

    def test_file_op_calls_of_a_mapping_are_the_python_loop(self) -> None:
        """A message that is not a plain dict is left to Python, which reads it the same."""
        block = {"type": "toolCall", "name": "read", "arguments": {"path": "x"}}
        message = MappingProxyType({"role": "assistant", "content": [block]})
        assert file_ops.file_op_calls([message]) == [("read", "x")]
        if fast_compaction.C_FILE_OP_CALLS is not None:
            assert fast_compaction.C_FILE_OP_CALLS([message], file_ops.FILE_OP_TOOLS) is None

    @given(st.lists(st.none() | st.integers() | st.just({}), max_size=30), st.booleans())
    def test_none_positions_are_where_none_is(self, items: list[Any], as_tuple: bool) -> None:
        """The C pointer scan and the Python index loop find the same positions."""
        given_items: Sequence[Any] = tuple(items) if as_tuple else items
        expected = [at for at, item in enumerate(items) if item is None]
        assert tree.none_positions(given_items) == expected
        assert tree.none_positions(_Seq(items)) == expected  # not a list: the Python loop


# pieces of session lines: whole values, and fragments that are JSON only when put together
_WHOLE_VALUES = st.sampled_from(
    [
        '{"type":"message","id":"a","parentId":null}',
        '{"id":"b","s":"]},[{\\"\\\\"}',
        '"x"',
        "42",
        "[]",
        "{}",
        "null",
        "true",
        "NaN",
        "-Infinity",
        "1e400",
        '"\\u00e9\U0001f642"',
        '["\\ud83d"]',
        '{"a":1,"a":2}',
        "[" * 40 + "]" * 40,
    ]
)
_FRAGMENTS = st.sampled_from(
    [
        "[1",
        "2]",
        "1],[2",
        "1,2",
        "3",
        '"a',
        'b"',
        '"a],[',
        'b"]',
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        '"k":1',
        '{"a":[',
        "]}",
        '"\\',
        "\ufeff{}",
        "\u00a0",
        "\u2028",
        " ",
        "\t",
        "\r",
        "",
    ]
)


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(',[]{}"\\:a\U0001f642', max_size=4),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(',[]"a', max_size=2), inner, max_size=3)
    ),
    max_leaves=8,
)


@st.composite
def _cut_arrays(draw: st.DrawFn) -> list[str]:
    """Lines that are JSON only together: an array's text cut at some of its commas, so the
    lines joined by commas are that array's elements again (the dangerous case)."""
    text = ",".join(json.dumps(v, separators=(",", ":")) for v in draw(st.lists(_JSON_VALUES)))
    commas = [at for at, char in enumerate(text) if char == ","]
    cuts = sorted(draw(st.sets(st.sampled_from(commas))) if commas else ())
    bounds = [-1, *cuts, len(text)]
    return [text[a + 1 : b] for a, b in pairwise(bounds)]


@st.composite
def _session_texts(draw: st.DrawFn) -> str:
    lines = [
        "".join(draw(st.lists(_FRAGMENTS | _WHOLE_VALUES, min_size=0, max_size=2)))
        for _ in range(draw(st.integers(0, 5)))
    ]
    if draw(st.booleans()):
        lines[draw(st.integers(0, len(lines))) : 0] = draw(_cut_arrays())
    return draw(st.sampled_from(["\n", "\r\n"])).join(lines) + draw(st.sampled_from(["", "\n"]))


class TestParseTogether:
    """One parse of a whole session file gives what the reference's parse per line gives."""

    @given(_session_texts())
    @example("[1\n2]\n3,4")  # one element short, one too many: as many values as lines
    @example('"a],[\nb"]\n1],[2')  # one string across lines in the joined text
    def test_the_file_at_once_is_line_by_line(self, text: str) -> None:
        """Same entries and skipped lines, whichever way the file was parsed."""
        together = fast_session.parse_session_entries(text)
        by_line = session_file.parse_session_entries(text)  # the reference: line by line
        assert repr(together) == repr(by_line)  # repr: NaN-free, and tells 1 from 1.0 and True

    @pytest.mark.skipif(fast_session._C_ARRAY is None, reason="the C pass is not built")
    def test_a_plain_file_is_parsed_at_once(self) -> None:
        """Entries of one parse share their key strings (the point of parsing at once)."""
        text = '{"id":"a","type":"x"}\n\n{"id":"b","type":"y"}\r\n'
        first, second = fast_session.parse_session_entries(text).entries
        assert [id(k) for k in first] == [id(k) for k in second]

    @pytest.mark.skipif(fast_session._C_ARRAY is None, reason="the C pass is not built")
    def test_a_cut_line_is_parsed_alone(self) -> None:
        """A line cut short (a crash mid-write) is skipped; the others still parse at once."""
        text = '{"id":"a","type":"x"}\n{"id":"b","ty\n{"id":"c","type":"y"}\n'
        parsed = fast_session.parse_session_entries(text)
        assert [e["id"] for e in parsed.entries] == ["a", "c"]
        assert [s.line for s in parsed.skipped] == [2]
        first, second = parsed.entries
        assert [id(k) for k in first] == [id(k) for k in second]

    @pytest.mark.skipif(fast_session._C_ARRAY is None, reason="the C pass is not built")
    @pytest.mark.parametrize(
        ("text", "unsettled"),
        [
            ('{"a":"]"}\n["\\"", 1]', []),  # brackets and quotes inside strings
            ("[1\n2]", [0, 1]),  # a value across lines
            ("1,2\n3", [0]),  # two values on one line
            ('"a\nb"', [0, 1]),  # a string open at the end of a line
            ('"\\\n"', [0, 1]),  # an escape at the end of a line
            ("}{\n[]", [0]),  # closing what the line did not open
            ('1\n"\U0001f642[",["\u00e9"]\n2', [1]),
            ('["\U0001f642[",{"\u00e9":[]}]', []),
            ("", []),
            ("\n\n[", [2]),
        ],
    )
    def test_which_lines_keep_to_themselves(self, text: str, unsettled: list[int]) -> None:
        """The C check on 1-, 2- and 4-byte strings (the lines' JSON is not its business)."""
        assert _UNSETTLED is not None
        assert _UNSETTLED(text) == unsettled

    @pytest.mark.skipif(fast_session._C_ARRAY is None, reason="the C pass is not built")
    @pytest.mark.parametrize(
        ("text", "array", "unsettled", "count"),
        [
            ("\ufeff \n{}\n\n [1] \r\n\u3000", "[{}, [1]]", [], 2),  # trimmed, blanks left out
            ('{"a":\n1}\n \t\n"\u00e9"', '["\u00e9"]', [0, 1], 1),
            ("\U0001f642\n1,2\n3", "[\U0001f642,3]", [1], 2),  # (not JSON: the parse's business)
            ("", "[]", [], 0),
            ("\u2028", "[]", [], 0),
        ],
    )
    def test_the_settled_lines_as_one_array(
        self, text: str, array: str, unsettled: list[int], count: int
    ) -> None:
        """The array's text: the trimmed text's settled lines that are not blank, joined."""
        assert fast_session._C_ARRAY is not None
        assert fast_session._C_ARRAY(text) == (array, unsettled, count)

    @pytest.mark.skipif(fast_session._C_UNTRACK is None, reason="the C pass is not built")
    def test_parsed_values_leave_the_collector(self) -> None:
        """Lists and dicts, however deep, are untracked; the values are unchanged."""
        value = json.loads('[{"a":[{"b":[1]}],"c":{"d":{}}},[[]]]')
        assert fast_session._C_UNTRACK is not None
        fast_session._C_UNTRACK(value)
        assert value == [{"a": [{"b": [1]}], "c": {"d": {}}}, [[]]]
        stack = [value]
        while stack:
            item = stack.pop()
            assert not gc.is_tracked(item)
            stack.extend(
                v
                for v in (item.values() if isinstance(item, dict) else item)
                if isinstance(v, dict | list)
            )


class _Seq(list):  # type: ignore[type-arg]
    """A list subclass, which the C pass does not take."""


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _leaves(v)]
    if isinstance(value, list):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]
