"""tokens.*, context.estimate, compaction.*, session.*, branch.*, messages.convert.

The scripted model of `branch.summarize` / `session.navigate` is the request's `model`:
`{contextWindow?, maxTokens?, reply: {text | content, stopReason?, usage?, errorMessage?}}`.
New entries get the ids `new-1`, `new-2`, ... and the request's `timestamp`. The session
walks are the engine's (`Engine`), the rest the reference's.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

from ctxspec.conformance.engines.reference.ops import Engine, Handler
from ctxspec.reference import (
    branch,
    branch_summary,
    compaction,
    messages,
    migration,
    session,
    summary,
    tokens,
    transcript,
)
from ctxspec.reference.errors import InvalidInput
from ctxspec.reference.tokens import ZERO_USAGE


def leaf_of(args: Mapping[str, Any]) -> Any:
    return args.get("leafId", session.UNSET)


def entries_of(engine: Engine, args: Mapping[str, Any]) -> Sequence[Any]:
    """The request's entries, a JSON value that is not an object read as Pi reads it."""
    if "jsonl" in args:
        entries: Any = list(engine.parse_session_entries(args["jsonl"]).entries)
    else:
        entries = args["entries"]
        if not isinstance(entries, list):
            raise InvalidInput("entries", "must be a list")
    return engine.as_entries(entries)


def _managed(engine: Engine, args: Mapping[str, Any]) -> migration.LoadedSession:
    """The request's entries as Pi's `SessionManager` holds them (migrated, no headers)."""
    return engine.load_session(entries_of(engine, args))


def _should(engine: Engine, a: Mapping[str, Any]) -> dict[str, Any]:
    settings = compaction.CompactionSettings.from_pi(a.get("settings"))
    if "messages" in a:
        count = engine.estimate_context_tokens(a["messages"]).tokens
    else:
        count = a["contextTokens"]
    return {
        "shouldCompact": compaction.should_compact(count, a["contextWindow"], settings),
        "contextTokens": count,
    }


def _cut_point(engine: Engine, a: Mapping[str, Any]) -> dict[str, Any]:
    entries = entries_of(engine, a)
    return engine.find_cut_point(
        entries, a.get("startIndex", 0), a.get("endIndex", len(entries)), a["keepRecentTokens"]
    ).to_pi()


def _prepare(engine: Engine, a: Mapping[str, Any]) -> Any:
    settings = compaction.CompactionSettings.from_pi(a.get("settings"))
    prepared = engine.prepare_compaction(entries_of(engine, a), settings)
    return None if prepared is None else prepared.to_pi()


def _model(a: Mapping[str, Any]) -> tuple[dict[str, Any], branch_summary.ScriptedReply | None]:
    model = a.get("model") or {}
    reply = model.get("reply")
    if reply is not None and "usage" not in reply:
        reply = {**reply, "usage": ZERO_USAGE}
    limits = {
        "context_window": model.get("contextWindow", 0),
        "max_tokens": model.get("maxTokens", 0),
    }
    return limits, None if reply is None else branch_summary.ScriptedReply.from_pi(reply)


def _options(a: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "reserve_tokens": a.get("reserveTokens", branch_summary.DEFAULT_BRANCH_RESERVE_TOKENS),
        "custom_instructions": a.get("customInstructions"),
        "replace_instructions": bool(a.get("replaceInstructions", False)),
    }


def _summarize(engine: Engine, a: Mapping[str, Any]) -> dict[str, Any]:
    limits, reply = _model(a)
    entries = entries_of(engine, a)
    preparation, request = branch_summary.branch_summary_request(entries, **limits, **_options(a))
    if request is not None and reply is None:
        raise InvalidInput("model.reply", "a summary request needs a scripted reply")
    result = branch_summary.branch_summary_result(preparation, reply if request else None)
    wire = None if request is None else request.to_pi(extended=a.get("extended") is True)
    return {"result": result.to_pi(), "request": wire}


def _navigate(engine: Engine, a: Mapping[str, Any]) -> dict[str, Any]:
    limits, reply = _model(a)
    managed = _managed(engine, a)
    entries = list(managed.entries)
    leaf = a.get("leafId", managed.leaf_id)
    if leaf is session.UNSET:  # a last entry without an id: navigation reads it as no leaf
        leaf = None
    ids = (f"new-{n}" for n in itertools.count(1))
    extended = a.get("extended") is True  # protocol 1.2: the request's cacheRetention
    try:
        moved = engine.navigate_tree(
            entries,
            leaf,
            a["targetId"],
            summarize=bool(a.get("summarize", False)),
            reply=reply,
            label=a.get("label"),
            new_ids=ids,
            timestamp=a["timestamp"],
            **limits,
            **_options(a),
        )
    except branch.SummaryRefused as refused:
        request = None if refused.request is None else refused.request.to_pi(extended=extended)
        return {"error": refused.message, "leafId": leaf, "appended": [], "request": request}
    out: dict[str, Any] = {"cancelled": moved.cancelled}
    if moved.aborted:
        out["aborted"] = True
    if moved.editor_text is not None:
        out["editorText"] = moved.editor_text
    if moved.summary_entry is not None:
        out["summaryEntry"] = dict(moved.summary_entry)
    out["leafId"] = moved.leaf_id
    out["appended"] = [dict(e) for e in moved.appended]
    out["context"] = moved.context().to_pi()
    out["request"] = None if moved.request is None else moved.request.to_pi(extended=extended)
    return out


def _compact(engine: Engine, a: Mapping[str, Any]) -> dict[str, Any]:
    settings = compaction.CompactionSettings.from_pi(a.get("settings"))
    model = a.get("model") or {}
    replies = {
        key: branch_summary.ScriptedReply.from_pi({"usage": ZERO_USAGE, **model[key]})
        for key in (summary.HISTORY_REPLY, summary.TURN_PREFIX_REPLY)
        if model.get(key) is not None
    }
    return summary.compact(
        engine.prepare_compaction(entries_of(engine, a), settings),
        replies,
        model_max_tokens=model.get("maxTokens", 0),
        model_reasoning=bool(model.get("reasoning", False)),
        thinking_level=a.get("thinkingLevel"),
        custom_instructions=a.get("customInstructions"),
    ).to_pi()


def _parse(engine: Engine, a: Mapping[str, Any]) -> Any:
    return engine.parse_session_entries(a["jsonl"]).to_pi()


def _context(engine: Engine, a: Mapping[str, Any]) -> Any:
    return engine.build_session_context(entries_of(engine, a), leaf_of(a)).to_pi()


def _collect(engine: Engine, a: Mapping[str, Any]) -> Any:
    return engine.collect_entries_for_branch_summary(
        list(_managed(engine, a).entries), a.get("oldLeafId"), a["targetId"]
    ).to_pi()


def _branch_prepare(engine: Engine, a: Mapping[str, Any]) -> Any:
    return branch_summary.prepare_branch_entries(
        entries_of(engine, a), a.get("tokenBudget", 0)
    ).to_pi()


_BY_ENGINE: dict[str, Callable[[Engine, Mapping[str, Any]], Any]] = {
    "compaction.compact": _compact,
    "compaction.cut_point": _cut_point,
    "compaction.prepare": _prepare,
    "session.parse": _parse,
    "session.context": _context,
    "branch.collect": _collect,
    "branch.prepare": _branch_prepare,
    "branch.summarize": _summarize,
    "session.navigate": _navigate,
}


def handlers(engine: Engine) -> dict[str, Handler]:
    return {
        "tokens.estimate": lambda a: tokens.estimate_tokens(a["message"]),
        "context.estimate": lambda a: engine.estimate_context_tokens(a["messages"]).to_pi(),
        "compaction.should": partial(_should, engine),
        "compaction.serialize": lambda a: transcript.serialize_conversation(a["messages"]),
        "compaction.failure": lambda a: transcript.get_summarization_failure(
            a["response"], a["label"]
        ),
        "messages.convert": lambda a: list(messages.convert_to_llm(a["messages"])),
        **{op: partial(answer, engine) for op, answer in _BY_ENGINE.items()},
    }
