"""Where an agent run checks for compaction (CP-12): a whole session, scripted.

Pi's `AgentSession` checks at three points: (1) before each further model call inside a
run (after a tool batch), on the estimate of the turn's messages; (2) after the run, on
the last assistant message; (3) before a new prompt, on the last assistant message of
the context, aborted ones included. Points 2 and 3 skip a message that is not newer than
the latest compaction, read the provider usage, and fall back to the estimate when the
message is an error or its usage is all zero. A compaction that cannot be prepared is
silent; one whose summary fails appends nothing and ends with an error event.

This is the composition of the pure parts (estimate, `shouldCompact`,
`prepareCompaction`, the summary calls) in the order Pi runs them, over a scripted
model and scripted tools.

CP-15, overflow recovery: a reply of the session's model that stopped on `length` below
the model's `maxTokens` (a recoverable length stop), or with no output and an input of
at least 99% of the window (an overflow), is dropped from the context, the session is
compacted (`overflow`, `willRetry: true`) and the run continues with another model call;
once per prompt: a second such stop ends with `compaction_end` and Pi's error
(`RECOVERY_FAILED`). A completed reply whose input is over the window compacts as
`overflow` without a retry. A provider error whose text names a context overflow is not
recognised here (the scripted errors must not look like one).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final

from ctxspec.reference._jsdate import js_date_ms
from ctxspec.reference.branch_summary import ScriptedReply
from ctxspec.reference.compaction import (
    DEFAULT_COMPACTION_SETTINGS,
    CompactionSettings,
    prepare_compaction,
    should_compact,
)
from ctxspec.reference.errors import InvalidInput
from ctxspec.reference.messages import convert_to_llm
from ctxspec.reference.session import UNSET, build_session_context, build_session_path, js_truthy
from ctxspec.reference.summary import compact, plan_compaction_requests, summary_refusal
from ctxspec.reference.tokens import ZERO_USAGE, calculate_context_tokens, estimate_context_tokens

__all__ = ["RECOVERY_FAILED", "RunModel", "RunResult", "ScriptedToolResult", "run_agent_session"]

# the clock of a run starts here unless the session holds later stamps
CLOCK_START_MS: Final = 1767225600000  # 2026-01-01T00:00:00.000Z
AUTO_COMPACTION_FAILED: Final = "Auto-compaction failed: "
OVERFLOW_RECOVERY_FAILED: Final = "Context overflow recovery failed: "
# CP-15: what a second overflow (or recoverable length stop) within one prompt ends with
RECOVERY_FAILED: Final = {
    "overflow": (
        "Context overflow recovery failed after one compact-and-retry attempt. "
        "Try reducing context or switching to a larger-context model."
    ),
    "length": "Truncated response recovery failed after one compact-and-retry attempt.",
}


@dataclass(frozen=True, slots=True, kw_only=True)
class RunModel:
    """The model of the session: who it is and its limits."""

    provider: str = "anthropic"
    id: str = "scripted"
    context_window: float = 0
    max_tokens: float = 0


DEFAULT_RUN_MODEL: Final = RunModel()


@dataclass(frozen=True, slots=True, kw_only=True)
class ScriptedToolResult:
    """What a scripted tool returns for one call: a text, or an error with that text."""

    text: str = ""
    is_error: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class RunResult:
    """The events of the run, the session's entries and those it appended, the leaf."""

    events: tuple[dict[str, Any], ...]
    entries: tuple[dict[str, Any], ...]
    appended: tuple[dict[str, Any], ...]
    leaf_id: Any


@dataclass(slots=True)
class _Run:
    entries: list[dict[str, Any]]
    model: RunModel
    settings: CompactionSettings
    replies: Iterator[ScriptedReply]
    summary_replies: Iterator[ScriptedReply]
    tool_results: Mapping[str, ScriptedToolResult]
    new_ids: Iterator[str]
    clock: int
    leaf_id: Any = None
    messages: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    appended: list[dict[str, Any]] = field(default_factory=list)
    last_assistant: dict[str, Any] | None = None
    recovery_attempted: bool = False  # CP-15: one compact-and-retry per prompt

    def now(self) -> int:
        self.clock += 1
        return self.clock

    def append(self, entry_type: str, **fields: Any) -> dict[str, Any]:
        stamp = datetime.fromtimestamp(self.now() / 1000, UTC)
        entry = {"type": entry_type, "id": next(self.new_ids), "parentId": self.leaf_id}
        if self.leaf_id is UNSET:  # the leaf had no id: Pi's `parentId: undefined` is no key
            del entry["parentId"]
        entry["timestamp"] = stamp.isoformat(timespec="milliseconds").replace("+00:00", "Z")
        entry.update(fields)
        self.entries.append(entry)
        self.appended.append(entry)
        self.leaf_id = entry["id"]
        return entry

    def append_message(self, message: dict[str, Any]) -> None:
        self.append("message", message=message)
        self.messages.append(message)
        self.events.append({"type": "message", "role": message["role"]})

    def branch(self) -> tuple[Mapping[str, Any], ...]:
        """`SessionManager.getBranch()`: nothing when the leaf is null, absent or falsy."""
        if self.leaf_id is UNSET or not js_truthy(self.leaf_id):
            return ()
        return build_session_path(self.entries, self.leaf_id)

    def latest_compaction(self) -> Mapping[str, Any] | None:
        return next((e for e in reversed(self.branch()) if e.get("type") == "compaction"), None)


def _stamp_ms(value: Any) -> int | None:
    """`new Date(value).getTime()`, None where JS gives NaN or the form is local time."""
    try:
        stamp = js_date_ms(value)
    except InvalidInput:
        return None
    return None if stamp is None else int(stamp)


def _older_than(message: Mapping[str, Any], compaction: Mapping[str, Any] | None) -> bool:
    """Pi's stale check: the message is not newer than the compaction entry."""
    if compaction is None:
        return False
    stamp = _stamp_ms(compaction.get("timestamp"))
    moment = message.get("timestamp")
    return stamp is not None and isinstance(moment, (int, float)) and moment <= stamp


def run_agent_session(
    entries: Sequence[Mapping[str, Any]],
    prompts: Sequence[str],
    *,
    replies: Sequence[ScriptedReply],
    summary_replies: Sequence[ScriptedReply] = (),
    tool_results: Mapping[str, ScriptedToolResult] | None = None,
    model: RunModel = DEFAULT_RUN_MODEL,
    settings: CompactionSettings = DEFAULT_COMPACTION_SETTINGS,
    new_ids: Iterator[str],
) -> RunResult:
    """Create an agent session over `entries`, send `prompts` in turn, and record where
    it compacted (CP-12).

    A session without messages starts with a `model_change` and a
    `thinking_level_change`; one with messages gets a `thinking_level_change` only when
    its path has none. Raises `InvalidInput` when a call has no scripted reply, a tool
    call no scripted result, or a reply is never asked for.
    """
    stamps = [
        s
        for e in entries
        for s in (
            _stamp_ms(e.get("timestamp")),
            _stamp_ms((e.get("message") or {}).get("timestamp")),
        )
        if s is not None
    ]
    run = _Run(
        entries=[dict(e) for e in entries],
        model=model,
        settings=settings,
        replies=iter(replies),
        summary_replies=iter(summary_replies),
        tool_results=tool_results or {},
        new_ids=new_ids,
        clock=max([CLOCK_START_MS - 1, *stamps]),
        leaf_id=entries[-1].get("id", UNSET) if entries else None,
    )
    existing = build_session_context(run.entries, run.leaf_id) if entries else None
    if existing is not None and existing.messages:
        run.messages = [dict(m) for m in existing.messages]
        if not any(e.get("type") == "thinking_level_change" for e in run.branch()):
            run.append("thinking_level_change", thinkingLevel="off")
    else:
        run.append("model_change", provider=model.provider, modelId=model.id)
        run.append("thinking_level_change", thinkingLevel="off")
    for text in prompts:
        run.events.append({"type": "prompt"})
        _prompt(run, text)
    if next(run.replies, None) is not None:
        raise InvalidInput("replies", "scripted replies were never asked for")
    return RunResult(
        events=tuple(run.events),
        entries=tuple(run.entries),
        appended=tuple(run.appended),
        leaf_id=run.leaf_id,
    )


def _prompt(run: _Run, text: str) -> None:
    last = next((m for m in reversed(run.messages) if m.get("role") == "assistant"), None)
    if last is not None:  # (3) before the new prompt, aborted messages included; no retry
        _check_compaction(run, last, skip_aborted=False)
    run.append_message(
        {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": run.now()}
    )
    run.recovery_attempted = False
    _agent_loop(run)
    # (2) after the run; CP-15: an overflow recovery continues the run
    while run.last_assistant is not None and _check_compaction(
        run, run.last_assistant, skip_aborted=True
    ):
        _agent_loop(run)


def _agent_loop(run: _Run) -> None:
    """Model calls until a reply asks for no tool (Pi's agent loop, prompt or continue)."""
    run.last_assistant = None
    while True:
        roles = [m["role"] for m in convert_to_llm(run.messages)]
        run.events.append({"type": "model", "kind": "agent", "roles": roles})
        reply = next(run.replies, None)
        if reply is None:
            raise InvalidInput("replies", "an agent call has no scripted reply")
        message = {
            "role": "assistant",
            "content": list(reply.content),
            "api": "anthropic-messages",
            "provider": run.model.provider,
            "model": run.model.id,
            "usage": dict(reply.usage) if reply.usage is not None else dict(ZERO_USAGE),
            "stopReason": reply.stop_reason,
            "timestamp": run.now(),
        }
        if reply.error_message is not None:
            message["errorMessage"] = reply.error_message
        run.append_message(message)
        run.last_assistant = message
        if reply.stop_reason not in ("error", "length"):
            run.recovery_attempted = False
        if reply.stop_reason in ("error", "aborted"):
            break
        calls = [b for b in reply.content if b.get("type") == "toolCall"]
        if not calls:
            break
        for call in calls:
            run.append_message(_tool_result(run, call))
        # (1) before the next model call, on the estimate of the turn's messages
        window = run.model.context_window
        if window > 0 and should_compact(
            estimate_context_tokens(run.messages).tokens, window, run.settings
        ):
            _auto_compact(run, "threshold")


def _tool_result(run: _Run, call: Mapping[str, Any]) -> dict[str, Any]:
    scripted = run.tool_results.get(str(call.get("id")))
    if scripted is None:
        raise InvalidInput(f"toolResults.{call.get('id')}", "the tool call needs a scripted result")
    return {
        "role": "toolResult",
        "toolCallId": call.get("id"),
        "toolName": call.get("name"),
        "content": [{"type": "text", "text": scripted.text}],
        "details": {},
        "isError": scripted.is_error,
        "timestamp": run.now(),
    }


def _check_compaction(run: _Run, message: Mapping[str, Any], *, skip_aborted: bool) -> bool:
    """Points 2 and 3: Pi's `_checkCompaction`; True when the run is to continue (CP-15)."""
    if not run.settings.enabled:
        return False
    stop = message.get("stopReason")
    if skip_aborted and stop == "aborted":
        return False
    compaction = run.latest_compaction()
    if _older_than(message, compaction):
        return False
    window = run.model.context_window
    usage = message.get("usage") or {}
    same_model = (
        message.get("provider") == run.model.provider and message.get("model") == run.model.id
    )
    if same_model:
        prompt_tokens = usage.get("input", 0) + usage.get("cacheRead", 0)
        output = usage.get("output", 0)
        overflow = bool(window) and (
            (stop == "stop" and prompt_tokens > window)
            or (stop == "length" and output == 0 and prompt_tokens >= window * 0.99)
        )
        recoverable = (
            stop == "length" and run.model.max_tokens > 0 and output < run.model.max_tokens
        )
        if overflow and stop == "stop":
            _auto_compact(run, "overflow")  # the answer completed: compact, no retry
            return False
        if overflow or recoverable:
            if run.recovery_attempted:
                run.events.append(
                    {
                        "type": "compaction_end",
                        "reason": "overflow",
                        "aborted": False,
                        "willRetry": False,
                        "errorMessage": RECOVERY_FAILED["overflow" if overflow else "length"],
                    }
                )
                return False
            # CP-15: the cut reply leaves the context, the session is compacted, the run goes on
            run.recovery_attempted = True
            if run.messages and run.messages[-1].get("role") == "assistant":
                run.messages.pop()
            return _auto_compact(run, "overflow", will_retry=True)
    direct = calculate_context_tokens(usage) if message.get("usage") else 0
    if stop == "error" or direct == 0:
        estimate = estimate_context_tokens(run.messages)
        if estimate.last_usage_index is not None:
            source = run.messages[estimate.last_usage_index]
            if source.get("role") == "assistant" and _older_than(source, compaction):
                return False
        tokens = estimate.tokens
    else:
        tokens = direct
    if should_compact(tokens, window, run.settings):
        _auto_compact(run, "threshold")
    return False


def _auto_compact(run: _Run, reason: str, *, will_retry: bool = False) -> bool:
    """Pi's `_runAutoCompaction`; True when the run continues after it (CP-15)."""
    preparation = prepare_compaction(run.branch(), run.settings)
    if preparation is None:
        return False  # nothing to summarise: no event at all
    run.events.append({"type": "compaction_start", "reason": reason})
    planned = plan_compaction_requests(preparation, model_max_tokens=run.model.max_tokens)
    scripted = {}
    for key, _request in planned:
        run.events.append({"type": "model", "kind": "summary", "roles": ["user"]})
        reply = next(run.summary_replies, None)
        if reply is None:
            raise InvalidInput("summaryReplies", "a summary call has no scripted reply")
        scripted[key] = reply
        if summary_refusal(reply, key) is not None:
            break  # compact stops at the first refused summary
    outcome = compact(preparation, scripted, model_max_tokens=run.model.max_tokens)
    end: dict[str, Any] = {"type": "compaction_end", "reason": reason, "aborted": False}
    if outcome.error is not None:
        prefix = OVERFLOW_RECOVERY_FAILED if reason == "overflow" else AUTO_COMPACTION_FAILED
        run.events.append({**end, "willRetry": False, "errorMessage": prefix + outcome.error})
        return False
    result = outcome.result or {}
    run.append(
        "compaction",
        summary=result["summary"],
        firstKeptEntryId=result["firstKeptEntryId"],
        tokensBefore=result["tokensBefore"],
        details=result["details"],
        fromHook=False,
        usage=result["usage"],
    )
    run.messages = [dict(m) for m in build_session_context(run.entries, run.leaf_id).messages]
    run.events.append(
        {
            **end,
            "willRetry": will_retry,
            "tokensBefore": result["tokensBefore"],
            "firstKeptEntryId": result["firstKeptEntryId"],
        }
    )
    if not will_retry:
        return False
    # the kept entries may bring the cut reply back: it leaves the context again
    last = run.messages[-1] if run.messages else {}
    if last.get("role") == "assistant" and last.get("stopReason") in ("error", "length"):
        run.messages.pop()
    return True
