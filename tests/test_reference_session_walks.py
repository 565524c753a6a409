"""The session helpers' fast paths give the answers of a plain walk, entry by entry.

`SessionTree` walks a path as runs of consecutive entries, `collect_entries_for_branch_summary`
finds the LCA by comparing runs, `find_cut_point` reads only the entries its answer
depends on and `prepare_compaction` gathers file operations in dicts. Each is checked
here against a plain restatement of Pi's algorithm (an index, one `parentId` at a time,
every cut point listed) on random trees: chains with branches, repeated ids, ids that are
not strings, missing parents, cycles, compactions, headers and metadata entries.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from itertools import pairwise
from types import MappingProxyType
from typing import Any
from unittest import mock

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from reference import branch, compaction, session, tokens
from reference._jsjson import js_stringify
from reference._utf16 import code_units
from reference.errors import InvalidInput
from reference.session import UNSET, entry_key, index_entries, js_truthy, walk_to_root
from reference.tokens import estimate_tokens

STAMP = "2026-01-01T00:00:00.000Z"
POOL = [f"e{n}" for n in range(14)]


def _message(draw: st.DrawFn) -> dict[str, Any]:
    role = draw(st.sampled_from(["user", "assistant", "toolResult", "bashExecution"]))
    text = draw(st.text("ab\U0001f642", max_size=12))
    if role == "user":
        content: Any = draw(st.sampled_from([text, None, [{"type": "text", "text": text}]]))
        return {"role": role, "content": content, "timestamp": 1}
    if role == "bashExecution":
        return {"role": role, "command": "ls", "output": text, "exitCode": 0, "timestamp": 1}
    blocks: list[dict[str, Any]] = [{"type": "text", "text": text}]
    if role == "assistant" and draw(st.booleans()):
        name = draw(st.sampled_from(["read", "write", "edit", "bash"]))
        blocks.append(
            {"type": "toolCall", "id": "c", "name": name, "arguments": {"path": f"/{text}"}}
        )
    message: dict[str, Any] = {"role": role, "content": draw(st.sampled_from([blocks, None]))}
    if role == "assistant":
        message.update(
            {k: v for k, v in (("provider", "p"), ("model", text)) if draw(st.booleans())}
        )
    return message


@st.composite
def sessions(draw: st.DrawFn) -> list[Any]:
    """A session's entries: mostly each the child of the one before, as Pi writes them."""
    size = draw(st.integers(0, 24))
    entries: list[Any] = []
    previous: Any = None
    for _ in range(size):
        entry_id: Any = draw(st.sampled_from(POOL) | st.sampled_from([None, 1, 1.0, True, ""]))
        parent: Any = draw(st.sampled_from(["previous"] * 6 + ["pool", "none", "missing", "other"]))
        parent = {
            "previous": previous,
            "pool": draw(st.sampled_from(POOL)),
            "none": None,
            "missing": "nowhere",
            "other": draw(st.sampled_from([1, True, "", 0])),
        }[parent]
        kind = draw(
            st.sampled_from(
                ["message"] * 8
                + ["compaction", "model_change", "thinking_level_change", "custom_message"]
                + ["branch_summary", "label", "session"]
            )
        )
        entry: dict[str, Any] = {"type": kind, "id": entry_id, "parentId": parent}
        entry["timestamp"] = STAMP
        if kind == "message":
            entry["message"] = _message(draw)
        elif kind == "compaction":
            entry.update(summary="S", tokensBefore=5, firstKeptEntryId=draw(st.sampled_from(POOL)))
        elif kind == "model_change":
            entry.update(provider="q", modelId="m2")
        elif kind == "thinking_level_change":
            entry["thinkingLevel"] = "high"
        elif kind == "custom_message":
            entry.update(customType="t", content=draw(st.sampled_from(["c", None])), display=True)
        elif kind == "branch_summary":
            entry.update(summary=draw(st.sampled_from(["B", ""])), fromId="e1")
        entries.append(entry)
        previous = entry_id
    return entries


def leaf_ids() -> st.SearchStrategy[Any]:
    return st.sampled_from([*POOL, UNSET, None, 1, True, "nowhere"])


def _same(fast: Callable[[], Any], plain: Callable[[], Any]) -> None:
    """Both give equal answers, or both raise InvalidInput."""
    try:
        expected = plain()
    except InvalidInput:
        with pytest.raises(InvalidInput):
            fast()
        return
    assert fast() == expected


def plain_path(entries: Sequence[Any], leaf_id: Any) -> tuple[Any, ...]:
    index = index_entries(entries)
    if leaf_id is None:
        return ()
    leaf = index.get(entry_key(leaf_id)) if js_truthy(leaf_id) else None
    if leaf is None:
        if not entries:
            return ()
        leaf = entries[-1]
    return walk_to_root(index, leaf)


def plain_context(entries: Sequence[Any], leaf_id: Any) -> session.SessionContext:
    path = plain_path(entries, leaf_id)
    thinking: Any = "off"
    model = None
    for entry in path:
        if entry.get("type") == "thinking_level_change":
            thinking = entry.get("thinkingLevel", UNSET)
        elif entry.get("type") == "model_change":
            model = {"provider": entry["provider"], "modelId": entry["modelId"]}
        elif entry.get("type") == "message" and entry["message"].get("role") == "assistant":
            message = entry["message"]
            model = {
                k: message[f]
                for k, f in (("provider", "provider"), ("modelId", "model"))
                if f in message
            }
    latest = next((e for e in reversed(path) if e.get("type") == "compaction"), None)
    projected = path
    if latest is not None:
        at = next(
            i for i, e in enumerate(path) if entry_key(e.get("id")) == entry_key(latest["id"])
        )
        kept = entry_key(latest.get("firstKeptEntryId"))
        start = next((i for i in range(at) if entry_key(path[i].get("id")) == kept), at)
        projected = (latest, *path[start:at], *path[at + 1 :])
    messages = tuple(m for e in projected for m in session.session_entry_to_context_messages(e))
    return session.SessionContext(messages=messages, thinking_level=thinking, model=model)


def plain_cut(
    entries: Sequence[Any], start: int, end: int, keep: float
) -> compaction.CutPointResult:
    def projects(entry: Any, roles: frozenset[str]) -> bool:
        if entry.get("type") == "compaction":
            return False
        messages = session.session_entry_to_context_messages(entry)
        return any(m.get("role") in roles for m in messages)

    points = [i for i in range(start, end) if projects(entries[i], compaction.CUT_POINT_ROLES)]
    if not points:
        return compaction.CutPointResult(
            first_kept_entry_index=start, turn_start_index=-1, is_split_turn=False
        )
    cut, total = points[0], 0
    for index in range(end - 1, start - 1, -1):
        messages = session.session_entry_to_context_messages(entries[index])
        tokens = sum(estimate_tokens(m) for m in messages)
        if tokens:
            total += tokens
            if total >= keep:
                cut = next((c for c in points if c >= index), cut)
                break
    while cut > start and not (
        entries[cut - 1].get("type") == "compaction"
        or session.session_entry_to_context_messages(entries[cut - 1])
    ):
        cut -= 1
    starts = projects(entries[cut], compaction.TURN_START_ROLES)
    turn = -1
    if not starts:
        turn = next(
            (
                i
                for i in range(cut, start - 1, -1)
                if projects(entries[i], compaction.TURN_START_ROLES)
            ),
            -1,
        )
    return compaction.CutPointResult(
        first_kept_entry_index=cut, turn_start_index=turn, is_split_turn=not starts and turn != -1
    )


class TestSessionTree:
    """Paths and contexts through `SessionTree` equal the plain index walk."""

    @given(sessions(), leaf_ids())
    def test_path_is_the_plain_walk(self, entries: list[Any], leaf_id: Any) -> None:
        """build_session_path walks runs of entries; the plain walk one parentId at a time."""
        _same(
            lambda: session.build_session_path(entries, leaf_id),
            lambda: plain_path(entries, leaf_id),
        )

    @given(sessions(), leaf_ids())
    def test_context_is_the_plain_projection(self, entries: list[Any], leaf_id: Any) -> None:
        """One pass over the path gives the messages, thinking level and model of three."""
        _same(
            lambda: session.build_session_context(entries, leaf_id),
            lambda: plain_context(entries, leaf_id),
        )

    @given(sessions(), sessions(), leaf_ids())
    def test_an_extended_tree_is_the_tree_of_all(
        self, entries: list[Any], more: list[Any], leaf_id: Any
    ) -> None:
        """Extending a tree by new entries walks as a tree built from all of them."""
        tree = session.SessionTree.of(entries).extended(more)
        _same(
            lambda: session.build_session_path(tree, leaf_id),
            lambda: plain_path([*entries, *more], leaf_id),
        )

    @pytest.mark.skipif(session._C_SCAN is None, reason="the C pass is not built")
    @given(sessions(), st.booleans())
    def test_the_c_pass_is_the_python_scan(self, entries: list[Any], as_tuple: bool) -> None:
        """reference/_sessions.c gives the Python scan's values, or None to leave it to it."""
        given_entries: Sequence[Any] = tuple(entries) if as_tuple else entries
        assert session._C_SCAN is not None
        found = session._C_SCAN(given_entries)
        plain = session.SessionTree._scan(
            given_entries, positions={}, breaks=[], headers=[], slots=[], previous=None, position=0
        )
        if found is None:  # only where some id is not a str
            assert not all(type(e.get("id")) is str for e in entries)
            return
        positions, breaks, headers, slots = found
        assert positions == plain.positions and list(positions) == list(plain.positions)
        assert (breaks, headers) == (plain.breaks, plain.headers)
        assert all(a is b for a, b in zip(slots, plain.slots, strict=True))

    def test_a_long_chain_is_one_slice(self) -> None:
        """A chain of 10,000 entries is one run: its path needs no lookup per entry."""
        entries = [
            {"type": "label", "id": f"{n}", "parentId": f"{n - 1}" if n else None}
            for n in range(10000)
        ]
        tree = session.SessionTree.of(entries)
        assert tree.breaks == [0]
        assert tree.segments(9999) == [(0, 9999)]


class TestCollect:
    """The LCA found by comparing runs is the plain walk's."""

    @given(sessions(), leaf_ids(), leaf_ids())
    def test_collect_is_the_plain_walk(self, entries: list[Any], old: Any, target: Any) -> None:
        """Same entries and common ancestor as walking the index entry by entry."""
        if old is UNSET or target is UNSET:
            return

        def plain() -> branch.CollectEntriesResult:
            if not js_truthy(old):
                return branch.CollectEntriesResult(entries=(), common_ancestor_id=None)
            index = index_entries([e for e in entries if e.get("type") != "session"])
            return branch._collect_plain(index, old, target)

        _same(lambda: branch.collect_entries_for_branch_summary(entries, old, target), plain)


class TestCutPoint:
    """Reading only what the answer depends on gives Pi's cut."""

    @given(sessions(), st.integers(0, 30), st.data())
    def test_cut_is_the_full_scan(self, entries: list[Any], keep: int, data: st.DataObject) -> None:
        """First kept entry, turn start and split flag equal listing every cut point first."""
        start = data.draw(st.integers(0, len(entries)))
        end = data.draw(st.integers(start, len(entries)))
        _same(
            lambda: compaction.find_cut_point(entries, start, end, keep),
            lambda: plain_cut(entries, start, end, keep),
        )

    @given(sessions(), st.integers(0, 30))
    def test_preparation_file_ops_are_first_seen_sets(self, entries: list[Any], keep: int) -> None:
        """prepare_compaction's file operations equal adding each path with FileOperations.add."""
        path = [e for e in entries if isinstance(e.get("id"), str) and e.get("type") != "session"]
        try:
            prepared = compaction.prepare_compaction(
                path, compaction.CompactionSettings(keep_recent_tokens=keep)
            )
        except InvalidInput:
            return
        if prepared is None:
            return
        ops = compaction.FileOperations()
        previous = next((e for e in reversed(path) if e.get("type") == "compaction"), None)
        assert previous is None or "details" not in previous
        for message in (*prepared.messages_to_summarize, *prepared.turn_prefix_messages):
            content = message.get("content") if message.get("role") == "assistant" else None
            for block in content if isinstance(content, list) else ():
                if block.get("type") == "toolCall" and block["name"] in compaction.FILE_OP_TOOLS:
                    ops = ops.add(
                        compaction.FILE_OP_TOOLS[block["name"]], block["arguments"]["path"]
                    )
        assert prepared.file_ops == ops


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@given(json_values)
def test_tool_call_arguments_length_is_the_stringified_length(value: Any) -> None:
    """A tool call's estimate counts JSON.stringify's length without always writing it."""
    assert tokens._json_length(value) == code_units(js_stringify(value))


def plain_prepare(path: Sequence[Any], keep: float) -> Any:
    """prepareCompaction as Pi writes it: each step a plain pass over the path."""
    if path and path[-1].get("type") == "compaction":
        return None
    kinds = [e.get("type") for e in path]
    previous = max((i for i, k in enumerate(kinds) if k == "compaction"), default=-1)
    start = 0
    if previous >= 0:
        kept_id = path[previous].get("firstKeptEntryId")
        kept = next((i for i, e in enumerate(path) if e.get("id") == kept_id), -1)
        start = kept if kept >= 0 else previous + 1
    context = plain_context(path, UNSET)
    before = tokens.estimate_context_tokens(context.messages).tokens
    cut = plain_cut(path, start, len(path), keep)
    first = path[cut.first_kept_entry_index] if cut.first_kept_entry_index < len(path) else None
    if first is None or not js_truthy(first.get("id")):
        return None

    def summarizable(entries: Sequence[Any]) -> tuple[Any, ...]:
        found = [session.session_entry_to_context_messages(e) for e in entries]
        return tuple(
            m[0] for e, m in zip(entries, found, strict=True) if m and e.get("type") != "compaction"
        )

    end = cut.turn_start_index if cut.is_split_turn else cut.first_kept_entry_index
    prefix = (
        summarizable(path[cut.turn_start_index : cut.first_kept_entry_index])
        if cut.is_split_turn
        else ()
    )
    summarized = summarizable(path[start:end])
    if not summarized and not prefix:
        return None
    return (first["id"], summarized, prefix, cut.is_split_turn, before)


@given(sessions(), st.integers(0, 30))
def test_preparation_is_the_plain_passes(entries: list[Any], keep: int) -> None:
    """prepare_compaction over one SessionTree gives Pi's plain passes' preparation."""

    def fast() -> Any:
        found = compaction.prepare_compaction(
            entries, compaction.CompactionSettings(keep_recent_tokens=keep)
        )
        if found is None:
            return None
        return (
            found.first_kept_entry_id,
            found.messages_to_summarize,
            found.turn_prefix_messages,
            found.is_split_turn,
            found.tokens_before,
        )

    _same(fast, lambda: plain_prepare(entries, keep))


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
    """The other C passes of reference/_sessions.c give their Python counterparts' values."""

    @pytest.mark.skipif(compaction.C_FILE_OP_CALLS is None, reason="the C pass is not built")
    @given(_call_messages(), st.booleans())
    def test_file_op_calls_in_c_are_the_python_loop(
        self, messages: list[Any], as_tuple: bool
    ) -> None:
        """Same (kind, path) pairs in the same order, or None where a str subclass shows."""
        given_messages: Sequence[Any] = tuple(messages) if as_tuple else messages
        assert compaction.C_FILE_OP_CALLS is not None
        found = compaction.C_FILE_OP_CALLS(given_messages, compaction.FILE_OP_TOOLS)
        plain = compaction.file_op_calls(given_messages)
        if found is None:
            assert "_Path" in repr([type(v).__name__ for v in _leaves(messages)])
            return
        assert found == plain
        assert all(type(path) is str for _, path in found)

    @pytest.mark.skipif(compaction.C_FILE_OP_CALLS is None, reason="the C pass is not built")
    @given(_call_messages(), st.lists(st.sampled_from(["message", "custom"]), min_size=6))
    def test_the_scan_gathers_each_slots_calls(self, messages: list[Any], kinds: list[str]) -> None:
        """scan_with_calls's calls are file_op_calls of each slot, with its position."""
        entries = [
            {"type": kind, "id": f"e{at}", "message": message}
            for at, (kind, message) in enumerate(zip(kinds, messages, strict=False))
        ]
        found = compaction._C_SCAN_WITH_CALLS(entries, compaction.FILE_OP_TOOLS)  # type: ignore[misc]
        if found is None:
            assert "_Path" in repr([type(v).__name__ for v in _leaves(messages)])
            return
        slots = session.SessionTree._scan(
            entries, positions={}, breaks=[], headers=[], slots=[], previous=None, position=0
        ).slots
        assert found[3] == list(slots)
        assert found[4] == [
            (at, kind, path)
            for at, slot in enumerate(slots)
            if slot is not None
            for kind, path in compaction.file_op_calls([slot])
        ]

    def test_file_op_calls_of_a_mapping_are_the_python_loop(self) -> None:
        """A message that is not a plain dict is left to Python, which reads it the same."""
        block = {"type": "toolCall", "name": "read", "arguments": {"path": "x"}}
        message = MappingProxyType({"role": "assistant", "content": [block]})
        assert compaction.file_op_calls([message]) == [("read", "x")]
        if compaction.C_FILE_OP_CALLS is not None:
            assert compaction.C_FILE_OP_CALLS([message], compaction.FILE_OP_TOOLS) is None

    @given(st.lists(st.none() | st.integers() | st.just({}), max_size=30), st.booleans())
    def test_none_positions_are_where_none_is(self, items: list[Any], as_tuple: bool) -> None:
        """The C pointer scan and the Python index loop find the same positions."""
        given_items: Sequence[Any] = tuple(items) if as_tuple else items
        expected = [at for at, item in enumerate(items) if item is None]
        assert session.none_positions(given_items) == expected
        assert session.none_positions(_Seq(items)) == expected  # not a list: the Python loop


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
    """One parse of a whole session file gives what a parse per line gives."""

    @pytest.mark.skipif(session._C_UNSETTLED is None, reason="the C pass is not built")
    @given(_session_texts())
    @example("[1\n2]\n3,4")  # one element short, one too many: as many values as lines
    @example('"a],[\nb"]\n1],[2')  # one string across lines in the joined text
    def test_the_file_at_once_is_line_by_line(self, text: str) -> None:
        """Same entries and skipped lines, whichever way the file was parsed."""
        together = session.parse_session_entries(text)
        with mock.patch.object(session, "_C_UNSETTLED", None):  # line by line only
            by_line = session.parse_session_entries(text)
        assert repr(together) == repr(by_line)  # repr: NaN-free, and tells 1 from 1.0 and True

    @pytest.mark.skipif(session._C_UNSETTLED is None, reason="the C pass is not built")
    def test_a_plain_file_is_parsed_at_once(self) -> None:
        """Entries of one parse share their key strings (the point of parsing at once)."""
        text = '{"id":"a","type":"x"}\n\n{"id":"b","type":"y"}\r\n'
        first, second = session.parse_session_entries(text).entries
        assert [id(k) for k in first] == [id(k) for k in second]

    @pytest.mark.skipif(session._C_UNSETTLED is None, reason="the C pass is not built")
    def test_a_cut_line_is_parsed_alone(self) -> None:
        """A line cut short (a crash mid-write) is skipped; the others still parse at once."""
        text = '{"id":"a","type":"x"}\n{"id":"b","ty\n{"id":"c","type":"y"}\n'
        parsed = session.parse_session_entries(text)
        assert [e["id"] for e in parsed.entries] == ["a", "c"]
        assert [s.line for s in parsed.skipped] == [2]
        first, second = parsed.entries
        assert [id(k) for k in first] == [id(k) for k in second]

    @pytest.mark.skipif(session._C_UNSETTLED is None, reason="the C pass is not built")
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
        assert session._C_UNSETTLED is not None
        assert session._C_UNSETTLED(text) == unsettled


class _Seq(list):  # type: ignore[type-arg]
    """A list subclass, which the C pass does not take."""


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _leaves(v)]
    if isinstance(value, list):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]
