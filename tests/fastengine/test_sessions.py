"""The fast engine's session helpers give the reference's answers (differential properties).

`fastengine` walks a path as runs of consecutive entries, takes a context as slices of
the messages, finds the LCA by comparing runs, reads only the entries a cut point
depends on and gathers file operations from the scan. Each is checked here against its
`reference` namesake, the plain statement of Pi's algorithm (an index, one `parentId` at
a time, every cut point listed), on random trees (`session_entries.sessions`), with the
C passes and on the fast engine's Python paths (`without_c`).
"""

from __future__ import annotations

import itertools
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from session_entries import POOL, leaf_ids, same, sessions, without_c

from ctxspec import fastengine
from ctxspec.fastengine import branch as fast_branch
from ctxspec.fastengine import compaction as fast_compaction
from ctxspec.fastengine import session as fast_session
from ctxspec.fastengine.tree import RunTree
from ctxspec.reference import branch, branch_summary, compaction, migration, session
from ctxspec.reference.session import UNSET

# entries the reference refuses when it reads them (a null, a message entry without a
# message object), and ones it reads as having no fields or a type that is no string
ODD_ENTRIES = st.sampled_from(
    [
        *(None, 42, "x"),
        *({"type": "message", "message": None}, {"type": "message", "message": "m"}),
        *({"type": ["message"]}, {"type": {}, "id": "e1"}),
    ]
)


@st.composite
def _plain_sessions(draw: st.DrawFn) -> list[Any]:
    """Message entries with content and str ids (repeated), each the child of the one
    before, of an earlier one, of one not in the session, of a later one (cycles), or a
    root: the sessions the C walk (`_sessions.context_messages`) reads."""
    entries: list[Any] = []
    for n in range(draw(st.integers(1, 16))):
        entry_id = draw(st.sampled_from(POOL[:8]))
        parent = draw(
            st.sampled_from([entries[-1]["id"]] * 4 if entries else [None])
            | st.sampled_from([*POOL[:8], None, "", "nowhere"])
        )
        role = draw(st.sampled_from(["user", "assistant"]))
        message = {"role": role, "content": f"m{n}", "provider": "p", "model": f"x{n}"}
        entries.append({"type": "message", "id": entry_id, "parentId": parent, "message": message})
    return entries


def _both_ways(fast: Any, plain: Any) -> None:
    """`same(fast, plain)`, with the C passes and without."""
    same(fast, plain)
    with without_c():
        same(fast, plain)


class TestPaths:
    """Paths and contexts through `RunTree` equal the reference's walk."""

    @given(sessions(), leaf_ids())
    def test_path(self, entries: list[Any], leaf_id: Any) -> None:
        """build_session_path walks runs of entries; the reference one parentId at a time."""
        _both_ways(
            lambda: fastengine.build_session_path(entries, leaf_id),
            lambda: session.build_session_path(entries, leaf_id),
        )

    @given(sessions(), leaf_ids(), st.booleans())
    def test_path_of_str_ids(self, entries: list[Any], leaf_id: Any, tuple_: bool) -> None:
        """Entries of any type with str ids (repeated, in cycles, parents missing or not
        str): the C walk's path (`_sessions.path`) is the reference's."""
        kept = [e for e in entries if isinstance(e.get("id"), str)]
        given_entries: Any = tuple(kept) if tuple_ else kept
        _both_ways(
            lambda: fastengine.build_session_path(given_entries, leaf_id),
            lambda: session.build_session_path(given_entries, leaf_id),
        )

    def test_a_plain_path_is_one_c_walk(self) -> None:
        """A chain with a side branch: the path is `_sessions.path`'s, no tree made."""
        entries = [
            {"type": "label", "id": f"{n}", "parentId": f"{n - 1}" if n else None}
            for n in range(100)
        ]
        entries.append({"type": "label", "id": "side", "parentId": "9"})
        with mock.patch.object(RunTree, "of", side_effect=AssertionError("a tree was made")):
            path = fastengine.build_session_path(entries, "99")
            side = fastengine.build_session_path(entries)
        assert path == tuple(entries[:100])
        assert side == (*entries[:10], entries[100])

    @given(sessions(), leaf_ids())
    def test_context_entries(self, entries: list[Any], leaf_id: Any) -> None:
        """The projected path (SS-1) of the fast path is the reference's."""
        _both_ways(
            lambda: fastengine.build_context_entries(entries, leaf_id),
            lambda: session.build_context_entries(entries, leaf_id),
        )

    @given(sessions(), leaf_ids())
    def test_context(self, entries: list[Any], leaf_id: Any) -> None:
        """Slices of the slots give the messages, thinking level and model of the walk."""
        _both_ways(
            lambda: fastengine.build_session_context(entries, leaf_id),
            lambda: session.build_session_context(entries, leaf_id),
        )

    @given(
        _plain_sessions(),
        leaf_ids(),
        st.booleans(),
        st.booleans(),
    )
    def test_context_of_plain_messages(
        self, entries: list[Any], leaf_id: Any, tuple_: bool, tree: bool
    ) -> None:
        """Sessions of message entries only, str ids (repeated, in cycles, parents missing),
        as entries or as a small `RunTree`: the C walk's messages
        (`_sessions.context_messages`) are the reference's."""
        given_entries: Any = tuple(entries) if tuple_ else entries
        handed: Any = RunTree.of(given_entries) if tree else given_entries
        _both_ways(
            lambda: fastengine.build_session_context(handed, leaf_id),
            lambda: session.build_session_context(given_entries, leaf_id),
        )

    @given(sessions(), sessions(), leaf_ids())
    def test_an_extended_tree_is_the_tree_of_all(
        self, entries: list[Any], more: list[Any], leaf_id: Any
    ) -> None:
        """Extending a tree by new entries walks as the reference's tree of all of them."""
        _both_ways(
            lambda: fastengine.build_session_context(RunTree.of(entries).extended(more), leaf_id),
            lambda: session.build_session_context([*entries, *more], leaf_id),
        )

    def test_a_long_chain_is_one_slice(self) -> None:
        """A chain of 10,000 entries is one run: its path needs no lookup per entry."""
        entries = [
            {"type": "label", "id": f"{n}", "parentId": f"{n - 1}" if n else None}
            for n in range(10000)
        ]
        tree = RunTree.of(entries)
        assert tree.breaks == [0]
        assert tree.segments(9999) == [(0, 9999)]
        assert tree.path_to(9999) == session.build_session_path(entries)


class TestLoad:
    """What `SessionManager` holds of a file's entries, as the reference loads them."""

    @given(
        st.sampled_from([[], [{"type": "session", "id": "s"}]])
        | st.builds(
            lambda version: [{"type": "session", "id": "s", "version": version}],
            st.sampled_from([None, 1, 2, 3, 3.0, 4, "3", "x", float("nan")]),
        ),
        sessions(),
        st.lists(ODD_ENTRIES, max_size=1),
        st.booleans(),
    )
    def test_load(
        self, header: list[Any], entries: list[Any], odd: list[Any], tuple_: bool
    ) -> None:
        """Headers left out, migrated when one asks for it, odd values as the reference's."""
        values: Any = [*header, *entries, *odd]
        values = tuple(values) if tuple_ else values
        same(lambda: fastengine.load_session(values), lambda: migration.load_session(values))

    @given(sessions(), st.booleans())
    def test_headers_are_left_out_in_one_c_pass(self, entries: list[Any], tuple_: bool) -> None:
        """Headers anywhere, types that are no str: `_sessions.without_headers` keeps what
        the reference keeps, in order."""
        values: Any = [{"type": "session", "id": "s", "version": 3}, *entries]
        values = tuple(values) if tuple_ else values
        _both_ways(lambda: fastengine.load_session(values), lambda: migration.load_session(values))
        kept = fast_session._C_WITHOUT_HEADERS
        if kept is not None:
            found = kept(values)
            assert found == tuple(e for e in values if e.get("type") != "session")


class TestBranch:
    """The LCA found by comparing runs, and navigation, are the reference's."""

    @given(sessions(), leaf_ids(), leaf_ids())
    def test_collect(self, entries: list[Any], old: Any, target: Any) -> None:
        """Same entries and common ancestor as walking the index entry by entry."""
        old = None if old is UNSET else old
        target = None if target is UNSET else target
        _both_ways(
            lambda: fastengine.collect_entries_for_branch_summary(entries, old, target),
            lambda: branch.collect_entries_for_branch_summary(entries, old, target),
        )

    @pytest.mark.skipif(fast_branch._C_COLLECT is None, reason="the C pass is not built")
    def test_collect_of_a_forked_chain_is_one_c_call(self) -> None:
        """Two branches off a chain: the C pass answers (no fallback), as the walk does."""

        def entry(n: int, parent: int | None) -> dict[str, Any]:
            message = {"role": "user", "content": f"m{n}"}
            parent_id = None if parent is None else f"e{parent}"
            return {"type": "message", "id": f"e{n}", "parentId": parent_id, "message": message}

        entries = [entry(n, n - 1 if n else None) for n in range(6)]
        entries += [entry(6, 2), entry(7, 6), entry(8, 4)]  # forks at e2 and at e4
        tree = RunTree.of(entries)
        for old, target in [("e5", "e7"), ("e7", "e5"), ("e5", "e8"), ("e3", "e5"), ("e5", "e1")]:
            found = fast_branch._C_COLLECT(tree.entries, tree.positions, tree.breaks, old, target)
            assert found is not None
            plain = branch.collect_entries_for_branch_summary(entries, old, target)
            assert found == (plain.entries, plain.common_ancestor_id)

    @given(sessions(), leaf_ids(), st.sampled_from([*POOL, "nowhere"]), st.booleans())
    def test_navigate(self, entries: list[Any], leaf: Any, target: Any, summarize: bool) -> None:
        """The new leaf, the entries appended (a summary and a label) and the context there
        are the reference's."""
        leaf = None if leaf is UNSET else leaf
        reply = branch_summary.ScriptedReply(
            content=({"type": "text", "text": "S"},), stop_reason="stop"
        )

        def navigate(navigate_tree: Any) -> Any:
            ids = (f"new-{n}" for n in itertools.count(1))
            moved = navigate_tree(
                entries,
                leaf,
                target,
                summarize=summarize,
                reply=reply,
                label="L",
                new_ids=ids,
                timestamp="t",
            )
            return moved, moved.context()

        _both_ways(
            lambda: navigate(fastengine.navigate_tree), lambda: navigate(branch.navigate_tree)
        )


class TestCompaction:
    """Reading only what the answer depends on gives the reference's cut and preparation."""

    @given(sessions(), st.integers(0, 30), st.data())
    def test_cut_point(self, entries: list[Any], keep: int, data: st.DataObject) -> None:
        """First kept entry, turn start and split flag equal listing every cut point first."""
        start = data.draw(st.integers(0, len(entries)))
        end = data.draw(st.integers(start, len(entries)))
        _both_ways(
            lambda: fastengine.find_cut_point(entries, start, end, keep),
            lambda: compaction.find_cut_point(entries, start, end, keep),
        )

    @given(sessions(), st.integers(0, 30), st.data())
    def test_cut_point_refuses_what_it_does_not_read(
        self, entries: list[Any], keep: int, data: st.DataObject
    ) -> None:
        """A null, a non-object or a message entry without a message object anywhere in the
        range: refused, or skipped, as the reference reading every entry does (each engine
        wrapping them with its as_entries)."""
        at = data.draw(st.integers(0, len(entries)))
        values = [*entries[:at], data.draw(ODD_ENTRIES), *entries[at:]]
        start = data.draw(st.integers(0, len(values)))
        end = data.draw(st.integers(start, len(values)))
        same(
            lambda: fastengine.find_cut_point(fastengine.as_entries(values), start, end, keep),
            lambda: compaction.find_cut_point(session.as_entries(values), start, end, keep),
        )

    @given(
        st.integers(1, 20),
        st.integers(0, 100),
        ODD_ENTRIES,
        st.sampled_from(["user", "assistant"]),
    )
    def test_cut_point_refuses_in_the_part_it_skips(
        self, size: int, seed: int, value: Any, role: str
    ) -> None:
        """A chain of messages and a budget of one token: the fast path reads the first
        entries and the last, so a null or a message entry without a message object between
        them is refused from `as_entries`' note alone."""
        entries: list[Any] = [
            {"type": "message", "id": f"e{n}", "message": {"role": role, "content": "hello"}}
            for n in range(size + 2)
        ]
        at = 1 + seed % size
        values = [*entries[:at], value, *entries[at:]]
        same(
            lambda: fastengine.find_cut_point(fastengine.as_entries(values), 0, len(values), 1),
            lambda: compaction.find_cut_point(session.as_entries(values), 0, len(values), 1),
        )

    @settings(max_examples=300)  # tool calls in what is summarised: about 1 example in 20
    @given(sessions(), st.integers(0, 30), st.booleans(), st.booleans())
    def test_preparation(
        self, entries: list[Any], keep: int, str_ids: bool, calls_in_scan: bool
    ) -> None:
        """prepare_compaction over one RunTree gives the reference's preparation, file
        operations included (with str ids only, the C scan gathers the tool calls, when the
        path is long enough: `calls_in_scan` makes every path so)."""
        path = [e for e in entries if isinstance(e.get("id"), str)] if str_ids else entries
        settings = compaction.CompactionSettings(keep_recent_tokens=keep)
        scan_from = 0 if calls_in_scan else fast_compaction.CALLS_IN_SCAN_FROM
        with mock.patch.object(fast_compaction, "CALLS_IN_SCAN_FROM", scan_from):
            _both_ways(
                lambda: fastengine.prepare_compaction(path, settings),
                lambda: compaction.prepare_compaction(path, settings),
            )
