"""Random sessions for the differential tests of the fast engine against the reference
(tests/fastengine/test_sessions.py, tests/fastengine/test_passes.py): chains with
branches, repeated ids, ids that are not strings, missing parents, cycles, compactions,
headers and metadata entries, and messages with and without tool calls."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any
from unittest import mock

import pytest
from hypothesis import strategies as st

from ctxspec.fastengine import branch, compaction, session, tokens, tree, walks
from ctxspec.reference.errors import InvalidInput
from ctxspec.reference.session import UNSET

__all__ = ["POOL", "leaf_ids", "same", "sessions", "without_c"]

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
def sessions(draw: st.DrawFn, max_size: int = 24) -> list[Any]:
    """A session's entries: mostly each the child of the one before, as Pi writes them."""
    size = draw(st.integers(0, max_size))
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
            if draw(st.booleans()):
                entry["details"] = {"readFiles": ["/r"], "modifiedFiles": ["/m"]}
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


def same(fast: Callable[[], Any], plain: Callable[[], Any]) -> None:
    """Both give equal answers, or both raise InvalidInput."""
    try:
        expected = plain()
    except InvalidInput:
        with pytest.raises(InvalidInput):
            fast()
        return
    assert fast() == expected


@contextlib.contextmanager
def without_c() -> Iterator[None]:
    """The fast engine on its Python paths: every C pass of `ctxspec.fastengine._sessions` and
    `ctxspec.fastengine._tokens` off."""
    with (
        mock.patch.multiple(tree, _C_SCAN=None, _C_NONES=None),
        mock.patch.multiple(
            session,
            _C_ARRAY=None,
            _C_LINES=None,
            C_CONTEXT=None,
            _C_PATH=None,
            _C_WITHOUT_HEADERS=None,
        ),
        mock.patch.object(tokens, "C_CONTEXT_TOKENS", None),
        mock.patch.object(branch, "_C_COLLECT", None),
        mock.patch.object(walks, "C_BUDGET_REACHED_AT", None),
        mock.patch.multiple(
            compaction,
            C_FILE_OP_CALLS=None,
            C_SCAN_WITH_CALLS=None,
            C_SLOTS_WITH_CALLS=None,
            C_SLOTS=None,
            C_CONTEXT=None,
        ),
    ):
        yield
