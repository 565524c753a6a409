"""Protocol 1.1: the session helper ops, the trust prompt, store errors, navigate's request."""

from __future__ import annotations

from typing import Any

import pytest

from ctxspec.conformance.engines.reference import HELLO, handle
from ctxspec.conformance.protocol import validate_result
from ctxspec.reference.errors import InvalidInput
from ctxspec.reference.tokens import get_last_assistant_usage
from ctxspec.reference.tree import Listing
from ctxspec.reference.trust import (
    TrustPromptAnswer,
    UnreadableTrustStore,
    read_trust_store,
    resolve_project_trusted,
    trust_prompt,
)

NEW_OPS = (
    "tokens.calculate",
    "compaction.last_usage",
    "compaction.turn_start",
    "session.context_entries",
    "compaction.file_lists",
    "compaction.format_file_ops",
)
SKILL = "---\nname: s\ndescription: d\n---\n"


def _call(op: str, args: dict[str, Any]) -> Any:
    reply = handle(op, args)
    assert reply.error is None, reply.error
    validate_result(op, reply.result)
    return reply.result


class TestHelperOps:
    """The six helper ops of the reference adapter."""

    def test_hello_lists_the_new_ops(self) -> None:
        """The reference's hello offers every helper op."""
        offered = HELLO["ops"]
        assert isinstance(offered, list)
        assert set(NEW_OPS) <= set(offered)

    def test_file_lists_are_sets(self) -> None:
        """A path given twice is listed once; written or edited paths are not read-only."""
        ops = {"read": ["b", "a", "b"], "written": ["w"], "edited": ["a"]}
        result = _call("compaction.file_lists", {"fileOps": ops})
        assert result == {"readFiles": ["b"], "modifiedFiles": ["a", "w"]}

    def test_turn_start_outside_the_entries_is_invalid(self) -> None:
        """An entryIndex past the end is invalid input naming the field, not an IndexError."""
        reply = handle("compaction.turn_start", {"entries": [], "entryIndex": 0})
        assert reply.error is not None and reply.error.field == "entryIndex"

    def test_last_usage_needs_a_message_object(self) -> None:
        """A message entry without a message object is invalid input."""
        with pytest.raises(InvalidInput):
            get_last_assistant_usage([{"type": "message", "id": "a"}])


class TestTrustPrompt:
    """The trust prompt with a UI, and the store errors beside `stored: null`."""

    def test_root_has_no_parent_option(self) -> None:
        """At `/` the parent option is left out."""
        prompt, options = trust_prompt(Listing({}), "/")
        assert "Trust parent folder" not in " ".join(prompt.options)
        assert list(options) == list(prompt.options)

    def test_saved_pick_is_written_sorted(self) -> None:
        """A saving pick rewrites trust.json with sorted keys and two-space JSON."""
        listing = Listing.from_wire(
            {"ws/repo/.pi/skills/s/SKILL.md": SKILL, "agent/trust.json": '{"/z": false}'}
        )
        resolution = resolve_project_trusted(
            listing,
            cwd="/ws/repo",
            agent_dir="/agent",
            home="/home",
            ui=TrustPromptAnswer(pick="Trust"),
        )
        assert resolution.trusted
        assert resolution.store_after == '{\n  "/ws/repo": true,\n  "/z": false\n}\n'

    def test_unreadable_store_is_eacces(self) -> None:
        """A file without read permission is Node's EACCES, told by its kind (as a non-root
        user; PROTOCOL.md, an engine's words)."""
        listing = Listing.from_wire({"agent/trust.json": {"content": "{}", "mode": 0}})
        with pytest.raises(UnreadableTrustStore) as raised:
            read_trust_store(listing, "/agent")
        assert raised.value.kind == "unreadable"
        assert str(raised.value).endswith("<EACCES /agent/trust.json>")

    def test_unneeded_broken_store_is_reported(self) -> None:
        """An override leaves the store unread for the decision; its error is carried."""
        result = _call(
            "trust.resolve",
            {
                "tree": {"agent/trust.json": "{x"},
                "cwd": "/ws",
                "agentDir": "/agent",
                "home": "/home",
                "trustOverride": False,
            },
        )
        assert result["storeError"] == {"kind": "notJson", "path": "/agent/trust.json"}
        assert result["stored"] is None and result["trusted"] is False

    def test_pick_must_be_a_label(self) -> None:
        """A pick that is not a string or null is invalid input naming the field."""
        reply = handle(
            "trust.resolve",
            {
                "tree": {},
                "cwd": "/ws/r",
                "agentDir": "/a",
                "home": "/h",
                "trustPrompt": {"pick": 1},
            },
        )
        assert reply.error is not None and reply.error.field == "trustPrompt.pick"


def test_navigate_carries_its_request() -> None:
    """session.navigate with a summary returns the request; without one, null."""
    entries = [
        {
            "type": "message",
            "id": "u",
            "parentId": None,
            "timestamp": "t",
            "message": {"role": "user", "content": "hi", "timestamp": 1},
        },
        {
            "type": "message",
            "id": "v",
            "parentId": "u",
            "timestamp": "t",
            "message": {"role": "user", "content": "other", "timestamp": 2},
        },
    ]
    args = {"entries": entries, "leafId": "v", "targetId": "u", "timestamp": "2026-01-01T00:00:00Z"}
    assert _call("session.navigate", args)["request"] is None
    summarized = _call(
        "session.navigate", {**args, "summarize": True, "model": {"reply": {"text": "s"}}}
    )
    assert summarized["request"]["prompt"].startswith("<conversation>\n[User]: other")
