"""session.run: a whole scripted agent run and where it compacted (CP-12).

Replies are `{text | content, stopReason?, usage?, errorMessage?}` (usage defaults to all
zero); `toolResults` maps a tool call id to `{text, isError?}`. New entries are named
`new-1`, `new-2`, ... and stamped with the request's `timestamp` (their messages with
its epoch milliseconds), as the Pi adapter does, so the two answers compare.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from ctxspec.conformance.engines.reference.ops import Handler
from ctxspec.reference import agent_run, migration, session
from ctxspec.reference.branch_summary import ScriptedReply
from ctxspec.reference.compaction import CompactionSettings
from ctxspec.reference.errors import InvalidInput
from ctxspec.reference.tokens import ZERO_USAGE


def _reply(raw: Any, where: str) -> ScriptedReply:
    if not isinstance(raw, Mapping):
        raise InvalidInput(where, "must be an object")
    return ScriptedReply.from_pi({"usage": ZERO_USAGE, **raw})


def _run(a: Mapping[str, Any]) -> dict[str, Any]:
    model = a.get("model") or {}
    results = a.get("toolResults") or {}
    ran = agent_run.run_agent_session(
        list(migration.load_session(a.get("entries") or []).entries),
        list(a.get("prompts") or []),
        replies=[_reply(r, f"replies[{i}]") for i, r in enumerate(a.get("replies") or [])],
        summary_replies=[
            _reply(r, f"summaryReplies[{i}]") for i, r in enumerate(a.get("summaryReplies") or [])
        ],
        tool_results={
            str(k): agent_run.ScriptedToolResult(
                text=v.get("text", ""), is_error=bool(v.get("isError"))
            )
            for k, v in results.items()
        },
        model=agent_run.RunModel(
            provider=model.get("provider", "anthropic"),
            id=model.get("id", "scripted"),
            context_window=model.get("contextWindow", 0),
            max_tokens=model.get("maxTokens", 0),
        ),
        settings=CompactionSettings.from_pi(a.get("settings")),
        new_ids=(f"new-{n}" for n in itertools.count(1)),
    )
    stamp = a["timestamp"]
    epoch = int(datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp() * 1000)
    fresh = {e["id"] for e in ran.appended}

    def settle(entry: Mapping[str, Any]) -> dict[str, Any]:
        if entry.get("id") not in fresh:
            return dict(entry)
        out = {**entry, "timestamp": stamp}
        if "message" in out:
            out["message"] = {**out["message"], "timestamp": epoch}
        return out

    entries = [settle(e) for e in ran.entries]
    return {
        "events": list(ran.events),
        "appended": [e for e in entries if e.get("id") in fresh],
        "leafId": ran.leaf_id,
        "context": session.build_session_context(entries, ran.leaf_id).to_pi(),
    }


HANDLERS: dict[str, Handler] = {"session.run": _run}
