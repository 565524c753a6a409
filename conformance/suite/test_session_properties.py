"""Properties of session trees, compaction and branch navigation, for any implementation.

Invariants need no oracle (corpora/README.md lists them): the LCA is symmetric and is the
brute-force deepest shared ancestor, a projection without compaction is the root-to-leaf
walk, a cut never lands on a tool result, `tokensBefore` is the estimate of the projected
context. The differential tests compare the implementation with the reference engine;
`test_session_op_matches_reference` does so for every other session, message and
compaction op, on the arguments `ctxspec fuzz` draws (`SESSION_OP_ARGS`).
"""

from __future__ import annotations

from typing import Any, Final

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxspec.conformance.judging.check import result_of
from ctxspec.conformance.strategies.session_ops import SESSION_OP_ARGS
from ctxspec.conformance.strategies.sessions import (
    agent_runs,
    linear_sessions,
    session_trees,
    tree_with_leaves,
)
from ctxspec.conformance.suite.differential import per_op, same_as_reference
from ctxspec.conformance.transport.base import Implementation

B4 = "compaction_threshold"
B5 = "lca_navigation"


def _call(impl: Implementation, op: str, args: dict[str, Any]) -> Any:
    return result_of(impl, op, args)


def _path(entries: list[dict[str, Any]], leaf: str) -> list[dict[str, Any]]:
    by_id = {e["id"]: e for e in entries}
    path = []
    current: str | None = leaf
    while current is not None:
        path.append(by_id[current])
        current = by_id[current]["parentId"]
    return path[::-1]


def _is_tool_result(entry: dict[str, Any]) -> bool:
    return bool(entry["type"] == "message" and entry["message"]["role"] == "toolResult")


def _brute_lca(entries: list[dict[str, Any]], a: str, b: str) -> str | None:
    on_a = {e["id"] for e in _path(entries, a)}
    shared = [e["id"] for e in _path(entries, b) if e["id"] in on_a]
    return shared[-1] if shared else None


@pytest.mark.ctxspec_property(boundary=B5, op="branch.collect", rule="LCA-1")
@given(drawn=tree_with_leaves())
def test_lca_symmetric_and_brute_force(impl: Implementation, drawn: Any) -> None:
    """lca(a, b) == lca(b, a) == the deepest entry on both root paths."""
    entries, a, b = drawn
    there = _call(impl, "branch.collect", {"entries": entries, "oldLeafId": a, "targetId": b})
    back = _call(impl, "branch.collect", {"entries": entries, "oldLeafId": b, "targetId": a})
    assert there["commonAncestorId"] == back["commonAncestorId"] == _brute_lca(entries, a, b)
    ids = [e["id"] for e in _path(entries, a)]
    lca = there["commonAncestorId"]
    below = ids[ids.index(lca) + 1 :] if lca is not None else ids
    assert [e["id"] for e in there["entries"]] == below


@pytest.mark.ctxspec_property(boundary=B5, op="session.context", rule="SS-1")
@given(drawn=tree_with_leaves())
def test_projection_is_the_path_walk(impl: Implementation, drawn: Any) -> None:
    """Without a compaction on the path, the context is the path's messages in order."""
    entries, leaf, _ = drawn
    path = _path(entries, leaf)
    if any(e["type"] == "compaction" for e in path):
        return
    result = _call(impl, "session.context", {"entries": entries, "leafId": leaf})
    assert result["messages"] == [e["message"] for e in path if e["type"] == "message"]


@pytest.mark.ctxspec_property(boundary=B4, op="compaction.cut_point", rule="CP-3")
@given(entries=linear_sessions(), keep=st.integers(0, 40))
def test_cut_never_on_a_tool_result(
    impl: Implementation, entries: list[dict[str, Any]], keep: int
) -> None:
    """With any cut point at all, the first kept entry is not a tool result; a split turn
    starts before the cut. (A session of tool results only is cut at its start: CP-4.)"""
    result = _call(impl, "compaction.cut_point", {"entries": entries, "keepRecentTokens": keep})
    kept = entries[result["firstKeptEntryIndex"]]
    if all(_is_tool_result(e) or e["type"] != "message" for e in entries):
        return
    assert not _is_tool_result(kept)
    if result["isSplitTurn"]:
        assert 0 <= result["turnStartIndex"] < result["firstKeptEntryIndex"]


@pytest.mark.ctxspec_property(boundary=B4, op="compaction.prepare", rule="CP-9")
@given(entries=linear_sessions(), keep=st.integers(0, 40))
def test_tokens_before_is_the_context_estimate(
    impl: Implementation, entries: list[dict[str, Any]], keep: int
) -> None:
    """tokensBefore equals estimateContextTokens of the projected context."""
    settings = {"keepRecentTokens": keep}
    prepared = _call(impl, "compaction.prepare", {"entries": entries, "settings": settings})
    if prepared is None:
        return
    context = _call(impl, "session.context", {"entries": entries})
    estimate = _call(impl, "context.estimate", {"messages": context["messages"]})
    assert prepared["tokensBefore"] == estimate["tokens"]


@pytest.mark.ctxspec_property(boundary=B5, op="session.context", rule="SS-1")
@given(drawn=tree_with_leaves())
def test_session_context_matches_reference(impl: Implementation, drawn: Any) -> None:
    """Differential: buildSessionContext equals the reference (compactions included)."""
    entries, leaf, _ = drawn
    same_as_reference(impl, "session.context", {"entries": entries, "leafId": leaf})


@pytest.mark.ctxspec_property(boundary=B4, op="compaction.prepare", rule="CP-9")
@given(entries=linear_sessions(), keep=st.integers(0, 40))
def test_prepare_matches_reference(
    impl: Implementation, entries: list[dict[str, Any]], keep: int
) -> None:
    """Differential: prepareCompaction equals the reference."""
    same_as_reference(
        impl, "compaction.prepare", {"entries": entries, "settings": {"keepRecentTokens": keep}}
    )


@pytest.mark.ctxspec_property(boundary=B5, op="branch.prepare", rule="LCA-2")
@given(entries=session_trees(), budget=st.integers(0, 30))
def test_branch_prepare_matches_reference(
    impl: Implementation, entries: list[dict[str, Any]], budget: int
) -> None:
    """Differential: prepareBranchEntries equals the reference, any budget."""
    same_as_reference(impl, "branch.prepare", {"entries": entries, "tokenBudget": budget})


@pytest.mark.ctxspec_property(boundary=B4, op="session.run", rule="CP-12")
@settings(max_examples=40)
@given(args=agent_runs())
def test_compaction_only_at_checkpoints(impl: Implementation, args: dict[str, Any]) -> None:
    """A run compacts only at a checkpoint: after a tool batch, after the run's last
    reply, or before a prompt; each compaction that ends well appended its entry."""
    ran = _call(impl, "session.run", args)
    events = ran["events"]
    for at, event in enumerate(events):
        if event["type"] == "compaction_start":
            before = events[at - 1]
            assert before["type"] == "prompt" or before.get("role") in ("toolResult", "assistant")
        if event["type"] == "compaction_end" and "errorMessage" not in event:
            entries = [e for e in ran["appended"] if e["type"] == "compaction"]
            assert any(
                e["tokensBefore"] == event["tokensBefore"]
                and e["firstKeptEntryId"] == event["firstKeptEntryId"]
                for e in entries
            )


@pytest.mark.ctxspec_property(boundary=B4, op="session.run", rule="CP-12")
@settings(max_examples=40)
@given(args=agent_runs())
def test_agent_run_matches_reference(impl: Implementation, args: dict[str, Any]) -> None:
    """Differential: a whole scripted run (events, entries, context) equals the reference."""
    same_as_reference(impl, "session.run", args)


# op -> (boundary, rule): the ops no property above draws, each compared with the reference
# on the fuzz strategies' arguments (every entry type, headers of every version, ids that
# name no entry, sharp text, sessions long enough for Pi's default settings)
DIFFERENTIAL_OPS: Final = {
    "tokens.estimate": (B4, "CP-2"),
    "tokens.calculate": (B4, "CP-1"),
    "context.estimate": (B4, "CP-1"),
    "compaction.should": (B4, "CP-6"),
    "compaction.last_usage": (B4, "CP-1"),
    "compaction.turn_start": (B4, "CP-5"),
    "compaction.serialize": (B4, "CP-10"),
    "compaction.failure": (B4, "CP-8"),
    "compaction.compact": (B4, "CP-10"),
    "compaction.file_lists": (B4, "CP-14"),
    "compaction.format_file_ops": (B4, "CP-14"),
    "messages.convert": (B4, "MSG-1"),
    "session.parse": (B5, "SS-3"),
    "session.context_entries": (B5, "SS-1"),
    "branch.summarize": (B5, "LCA-7"),
    "session.navigate": (B5, "LCA-3"),
}


@pytest.mark.parametrize("op", per_op(DIFFERENTIAL_OPS))
@given(data=st.data())
def test_session_op_matches_reference(impl: Implementation, op: str, data: st.DataObject) -> None:
    """Differential: the op answers what the reference answers on drawn arguments."""
    args = data.draw(SESSION_OP_ARGS[op], label="args")
    same_as_reference(impl, op, args)
