"""Random session trees: entries whose `parentId` points at an earlier entry (or none).

`session_trees` draws a list of Pi message entries forming a forest (several roots
possible), with user, assistant (text and tool calls) and tool-result messages, some
metadata entries, and occasionally a compaction; `tree_with_leaves` adds two of its ids.
Timestamps are fixed ISO strings, so every draw is valid input for every op.
`agent_runs` draws whole scripted runs for `session.run`.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from ctxspec.reference.tokens import ZERO_USAGE

__all__ = ["ZERO_USAGE", "agent_runs", "linear_sessions", "session_trees", "tree_with_leaves"]

_TEXT = st.text(alphabet="ab é🙂\n", max_size=30)


def _usage(total: int) -> dict[str, Any]:
    return {**ZERO_USAGE, "input": total, "totalTokens": total}


@st.composite
def _message(draw: st.DrawFn) -> dict[str, Any]:
    role = draw(st.sampled_from(["user", "assistant", "toolResult"]))
    text = draw(_TEXT)
    if role == "user":
        return {"role": "user", "content": text, "timestamp": 1}
    if role == "toolResult":
        return {
            "role": "toolResult",
            "toolCallId": "c",
            "toolName": "read",
            "content": [{"type": "text", "text": text}],
            "isError": False,
            "timestamp": 1,
        }
    content: list[dict[str, Any]] = [{"type": "text", "text": text}]
    if draw(st.booleans()):
        name = draw(st.sampled_from(["read", "edit", "write", "bash"]))
        path = draw(st.sampled_from(["a.ts", "b/c.ts", "é.md"]))
        content.append({"type": "toolCall", "id": "c", "name": name, "arguments": {"path": path}})
    return {
        "role": "assistant",
        "content": content,
        "api": "x",
        "provider": "p",
        "model": "m",
        "stopReason": draw(st.sampled_from(["stop", "stop", "toolUse", "aborted", "error"])),
        "usage": _usage(draw(st.sampled_from([0, 0, 5, 300]))),
        "timestamp": 1,
    }


@st.composite
def _entry(draw: st.DrawFn, entry_id: str, parent: str | None, ids: list[str]) -> dict[str, Any]:
    base = {"id": entry_id, "parentId": parent, "timestamp": "2026-01-01T00:00:00.000Z"}
    kind = draw(st.sampled_from(["message"] * 8 + ["model_change", "compaction"]))
    if kind == "model_change":
        return {"type": "model_change", **base, "provider": "p", "modelId": "m2"}
    if kind == "compaction" and ids:
        first = draw(st.sampled_from([*ids, "gone"]))
        return {
            "type": "compaction",
            **base,
            "summary": draw(_TEXT),
            "firstKeptEntryId": first,
            "tokensBefore": 10,
        }
    return {"type": "message", **base, "message": draw(_message())}


@st.composite
def session_trees(draw: st.DrawFn, max_entries: int = 14) -> list[dict[str, Any]]:
    """A forest of entries, each the child of an earlier one (or a root)."""
    count = draw(st.integers(1, max_entries))
    entries: list[dict[str, Any]] = []
    ids: list[str] = []
    for index in range(count):
        parent = draw(st.one_of(st.none(), st.sampled_from(ids))) if ids else None
        entries.append(draw(_entry(f"e{index}", parent, list(ids))))
        ids.append(f"e{index}")
    return entries


@st.composite
def linear_sessions(draw: st.DrawFn, max_entries: int = 14) -> list[dict[str, Any]]:
    """One path, root first: what compaction functions take."""
    count = draw(st.integers(1, max_entries))
    entries: list[dict[str, Any]] = []
    for index in range(count):
        parent = f"e{index - 1}" if index else None
        entries.append(draw(_entry(f"e{index}", parent, [e["id"] for e in entries])))
    return entries


@st.composite
def tree_with_leaves(draw: st.DrawFn) -> tuple[list[dict[str, Any]], str, str]:
    """A tree and two of its entry ids."""
    entries = draw(session_trees())
    ids = [e["id"] for e in entries]
    return entries, draw(st.sampled_from(ids)), draw(st.sampled_from(ids))


def _run_usage(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["total", "parts", "zero"]))
    total = draw(st.integers(0, 420))
    if kind == "zero":
        return dict(ZERO_USAGE)
    if kind == "parts":  # totalTokens 0: the parts are summed
        return {**ZERO_USAGE, "input": total, "output": draw(st.integers(0, 40))}
    return _usage(total)


@st.composite
def agent_runs(draw: st.DrawFn) -> dict[str, Any]:
    """`session.run` arguments: 1 to 3 prompts, each answered by up to two tool-call
    replies and a final reply that stops, errors or is aborted; random usages around a
    400-token window with 100 reserved; enough summary replies for every compaction."""
    replies: list[dict[str, Any]] = []
    results: dict[str, dict[str, Any]] = {}
    prompts = draw(st.lists(st.text(alphabet="ab é\n", max_size=400), min_size=1, max_size=3))
    for _ in prompts:
        for _ in range(draw(st.integers(0, 2))):
            call_id = f"c{len(results) + 1}"
            replies.append(
                {
                    "content": [
                        {"type": "toolCall", "id": call_id, "name": "probe", "arguments": {}}
                    ],
                    "stopReason": "toolUse",
                    "usage": _run_usage(draw),
                }
            )
            results[call_id] = {
                "text": "r" * draw(st.integers(0, 400)),
                "isError": draw(st.booleans()),
            }
        stop = draw(st.sampled_from(["stop", "stop", "error", "aborted"]))
        final: dict[str, Any] = {"text": draw(_TEXT), "stopReason": stop, "usage": _run_usage(draw)}
        if stop == "error":
            final["errorMessage"] = "upstream boom"
        replies.append(final)
    return {
        "model": {"id": "m1", "contextWindow": 400},
        "settings": {"reserveTokens": 100, "keepRecentTokens": draw(st.integers(0, 120))},
        "prompts": prompts,
        "replies": replies,
        "toolResults": results,
        "summaryReplies": [{"text": f"summary {n}"} for n in range(12)],
        "timestamp": "2026-06-01T00:00:00.000Z",
    }
