"""The reference's session, compaction and branch modules, called directly."""

from __future__ import annotations

import itertools
from types import MappingProxyType
from typing import Any, Final

import pytest
from hypothesis import given
from hypothesis import strategies as st
from session_entries import sessions

from ctxspec.reference import (
    agent_run,
    branch,
    branch_summary,
    compaction,
    file_ops,
    messages,
    migration,
    session,
    session_file,
    tokens,
)
from ctxspec.reference._jsjson import js_stringify
from ctxspec.reference._utf16 import code_units
from ctxspec.reference.errors import InvalidInput


def _entry(entry_id: str, parent: str | None, role: str = "user", text: str = "x") -> dict:
    message = {
        "role": role,
        "content": text if role == "user" else [{"type": "text", "text": text}],
    }
    return {"type": "message", "id": entry_id, "parentId": parent, "message": message}


TREE = [_entry("u1", None), _entry("a1", "u1", "assistant"), _entry("uA", "a1"), _entry("uB", "a1")]


class TestTokens:
    """estimateTokens and the usage rule."""

    def test_stringify_matches_javascript(self) -> None:
        """JSON.stringify puts index keys first, writes 1.0 as 1 and escapes lone surrogates."""
        assert js_stringify({"b": 1.0, "1": "\ud83d"}) == '{"1":"\\ud83d","b":1}'

    def test_aborted_usage_is_ignored(self) -> None:
        """An aborted reply's usage is not a measurement."""
        reply = {
            "role": "assistant",
            "content": [],
            "stopReason": "aborted",
            "usage": {"totalTokens": 9},
        }
        assert tokens.assistant_usage(reply) is None


class TestSession:
    """Paths, projections and the tree checks."""

    def test_cycle_raises(self) -> None:
        """A parentId cycle raises InvalidInput instead of looping."""
        with pytest.raises(InvalidInput):
            session.build_session_context([_entry("x", "y"), _entry("y", "x")])

    def test_unknown_leaf_falls_back_like_pi(self) -> None:
        """An unknown leaf gives the path of the last entry."""
        path = session.build_session_path(TREE, "nope")
        assert [e["id"] for e in path] == ["u1", "a1", "uB"]

    def test_check_tree_names_duplicates(self) -> None:
        """check_tree refuses a duplicate id, which Pi lets shadow the earlier entry."""
        with pytest.raises(InvalidInput, match="duplicate"):
            session.check_tree([*TREE, _entry("u1", None)])

    def test_parse_reports_line_numbers(self) -> None:
        """A malformed line is skipped and reported with its number."""
        parsed = session_file.parse_session_entries('\n\n{"a":1}\n{oops\n')
        assert [s.line for s in parsed.skipped] == [4]


class TestCompaction:
    """Cut points and preparation."""

    def test_no_cut_point_keeps_start(self) -> None:
        """A session of tool results only is cut at its start."""
        results = [_entry("r", None, "toolResult")]
        assert compaction.find_cut_point(results, 0, 1, 1).first_kept_entry_index == 0

    def test_prepare_nothing_to_summarize(self) -> None:
        """A budget that keeps everything has nothing to prepare."""
        assert compaction.prepare_compaction(TREE[:2], compaction.CompactionSettings()) is None


class TestBranch:
    """LCA collection and navigation."""

    def test_collect_stops_at_lca(self) -> None:
        """Leaving uA for uB collects uA only, the LCA being a1."""
        result = branch.collect_entries_for_branch_summary(TREE, "uA", "uB")
        assert result.common_ancestor_id == "a1"
        assert [e["id"] for e in result.entries] == ["uA"]

    def test_navigate_to_user_message_moves_to_parent(self) -> None:
        """A user target moves the leaf to its parent and returns its text."""
        moved = branch.navigate_tree(
            TREE, "uA", "uB", new_ids=iter(()), timestamp="2026-01-01T00:00:00.000Z"
        )
        assert (moved.leaf_id, moved.editor_text) == ("a1", "x")

    def test_length_reply_is_refused(self) -> None:
        """A summary cut at the token cap raises SummaryRefused and appends nothing."""
        reply = branch_summary.ScriptedReply.from_pi({"text": "half", "stopReason": "length"})
        with pytest.raises(branch.SummaryRefused, match="token cap"):
            branch.navigate_tree(
                TREE,
                "uA",
                "uB",
                summarize=True,
                reply=reply,
                new_ids=(f"n{i}" for i in itertools.count()),
                timestamp="2026-01-01T00:00:00.000Z",
            )


def test_branch_summary_suffix_has_no_newline() -> None:
    """A branch summary reaches the model as prefix + summary + '</summary>'."""
    [converted] = messages.convert_to_llm([{"role": "branchSummary", "summary": "S"}])
    assert converted["content"][0]["text"].endswith("S</summary>")


class TestAgentRun:
    """run_agent_session: the scripted run refuses what it cannot answer, by name."""

    @staticmethod
    def _run(**overrides: object) -> agent_run.RunResult:
        options: dict = {
            "replies": [
                branch_summary.ScriptedReply(
                    content=({"type": "text", "text": "ok"},), stop_reason="stop"
                )
            ],
            "model": agent_run.RunModel(context_window=400),
            "new_ids": (f"new-{n}" for n in itertools.count(1)),
        }
        options.update(overrides)
        return agent_run.run_agent_session([], ["go"], **options)  # type: ignore[arg-type]

    def test_new_session_starts_with_model_and_thinking_level(self) -> None:
        """A new session's first entries are model_change and thinking_level_change."""
        ran = self._run()
        assert [e["type"] for e in ran.appended[:2]] == ["model_change", "thinking_level_change"]
        assert ran.leaf_id == "new-4"

    def test_missing_reply_names_the_field(self) -> None:
        with pytest.raises(InvalidInput) as caught:
            self._run(replies=[])
        assert caught.value.field == "replies"

    def test_unasked_reply_is_refused(self) -> None:
        reply = branch_summary.ScriptedReply(content=(), stop_reason="stop")
        with pytest.raises(InvalidInput, match="never asked for"):
            self._run(replies=[reply, reply])

    def test_tool_call_without_result_names_the_call(self) -> None:
        call = branch_summary.ScriptedReply(
            content=({"type": "toolCall", "id": "c9", "name": "t", "arguments": {}},),
            stop_reason="toolUse",
        )
        with pytest.raises(InvalidInput) as caught:
            self._run(replies=[call])
        assert caught.value.field == "toolResults.c9"

    def test_recoverable_length_stop_with_nothing_to_compact_ends_the_run(self) -> None:
        """CP-15: a length stop under maxTokens with nothing to summarise: no compaction,
        no second call, the cut reply kept in the session."""
        cut = branch_summary.ScriptedReply(
            content=({"type": "text", "text": "x"},),
            stop_reason="length",
            usage={"input": 10, "output": 5, "totalTokens": 15},
        )
        model = agent_run.RunModel(context_window=400, max_tokens=100)
        ran = self._run(replies=[cut], model=model)
        assert [e["type"] for e in ran.events] == ["prompt", "message", "model", "message"]
        assert ran.appended[-1]["message"]["stopReason"] == "length"

    def test_second_recoverable_stop_gives_up(self) -> None:
        """CP-15: after one compact-and-retry, a second length stop ends with Pi's error."""
        usage = {"input": 10, "output": 5, "totalTokens": 15}
        history = [
            {"type": "message", "id": f"m{i}", "parentId": f"m{i - 1}" if i else None,
             "timestamp": "2026-01-01T00:00:00.000Z",
             "message": {"role": role, "content": [{"type": "text", "text": "word " * 40}],
                         "timestamp": 1}}
            for i, role in enumerate(["user", "assistant"])
        ]  # fmt: skip
        history[1]["message"] |= {"provider": "anthropic", "model": "scripted", "usage": usage,
                                  "stopReason": "stop"}  # fmt: skip
        cut = branch_summary.ScriptedReply(
            content=({"type": "text", "text": "x"},), stop_reason="length", usage=usage
        )
        summary = branch_summary.ScriptedReply(
            content=({"type": "text", "text": "S"},), stop_reason="stop"
        )
        ran = agent_run.run_agent_session(
            history,
            ["go"],
            replies=[cut, cut],
            summary_replies=[summary],
            model=agent_run.RunModel(context_window=4000, max_tokens=100),
            settings=compaction.CompactionSettings(reserve_tokens=100, keep_recent_tokens=20),
            new_ids=(f"new-{n}" for n in itertools.count(1)),
        )
        ends = [e for e in ran.events if e["type"] == "compaction_end"]
        assert [e["willRetry"] for e in ends] == [True, False]
        assert ends[-1]["errorMessage"] == agent_run.RECOVERY_FAILED["length"]


HEADER_V1: Final = MappingProxyType({"type": "session", "version": 1, "id": "s"})


class TestMigration:
    """ctxspec.reference.migration: what Pi's SessionManager holds after loading entries (SS-7)."""

    def test_v1_entries_get_named_ids_and_parents(self) -> None:
        """Version 1: every entry but the header gets m-<n> and the one before as parent."""
        old = [HEADER_V1, {"type": "message", "id": "x"}, {"type": "label"}]
        migrated = migration.migrate_session_entries(old)
        assert [(e.get("id"), e.get("parentId")) for e in migrated[1:]] == [
            ("m-1", None),
            ("m-2", "m-1"),
        ]
        assert migrated[0]["version"] == 3
        assert old[1] == {"type": "message", "id": "x"}  # the given entries are not changed

    def test_v1_compaction_index_becomes_an_id(self) -> None:
        """firstKeptEntryIndex names the entry at that index; a header there names none."""
        to_entry = {"type": "compaction", "firstKeptEntryIndex": 1}
        to_header = {"type": "compaction", "firstKeptEntryIndex": 0}
        migrated = migration.migrate_session_entries(
            [HEADER_V1, {"type": "message"}, to_entry, to_header]
        )
        assert migrated[2]["firstKeptEntryId"] == "m-1"
        assert "firstKeptEntryIndex" not in migrated[2]
        assert "firstKeptEntryId" not in migrated[3] and "firstKeptEntryIndex" not in migrated[3]

    @pytest.mark.parametrize(
        ("version", "role"),
        [
            (2, "custom"),
            ("2", "custom"),
            (None, "custom"),
            (3, "hookMessage"),
            ("x", "hookMessage"),
        ],
    )
    def test_v2_hook_message_renamed(self, version: object, role: str) -> None:
        """Below version 3 (a missing one is 1, a string read as a number) hookMessage is custom."""
        entries = [
            {"type": "session", "version": version},
            {"type": "message", "id": "h", "message": {"role": "hookMessage"}},
        ]
        assert migration.migrate_session_entries(entries)[1]["message"]["role"] == role

    def test_no_header_no_migration(self) -> None:
        """Without a header nothing changes."""
        entries = [{"type": "message", "message": {"role": "hookMessage"}}]
        assert migration.migrate_session_entries(entries) == entries

    def test_v1_non_object_entry_is_invalid(self) -> None:
        """Pi throws setting an id on 42: InvalidInput naming the entry."""
        with pytest.raises(InvalidInput) as caught:
            migration.migrate_session_entries([HEADER_V1, 42])
        assert caught.value.field == "entries[1]"

    def test_load_session_drops_headers_and_finds_the_leaf(self) -> None:
        """The manager holds no headers; its leaf is the last entry's id, UNSET without one."""
        loaded = migration.load_session([{"type": "session", "version": 3}, {"id": "a"}, {"x": 1}])
        assert loaded.entries == ({"id": "a"}, {"x": 1})
        assert loaded.leaf_id is session.UNSET
        assert migration.load_session([]).leaf_id is None


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@given(json_values)
def test_tool_call_arguments_length_is_the_stringified_length(value: Any) -> None:
    """A tool call's estimate counts JSON.stringify's length without always writing it."""
    assert tokens._json_length(value) == code_units(js_stringify(value))


@given(sessions(), st.integers(0, 30))
def test_preparation_file_ops_are_first_seen_sets(entries: list[Any], keep: int) -> None:
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
    ops = file_ops.previous_file_ops(
        next((e for e in reversed(path) if e.get("type") == "compaction"), None)
    )
    for message in (*prepared.messages_to_summarize, *prepared.turn_prefix_messages):
        content = message.get("content") if message.get("role") == "assistant" else None
        for block in content if isinstance(content, list) else ():
            if block.get("type") == "toolCall" and block["name"] in file_ops.FILE_OP_TOOLS:
                ops = ops.add(file_ops.FILE_OP_TOOLS[block["name"]], block["arguments"]["path"])
    assert prepared.file_ops == ops
