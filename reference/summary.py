"""The summaries a Pi 0.85.0 compaction asks for: requests, replies, the `CompactionResult`.

Decides what `compact(preparation, model, ...)` sends and keeps: `history_summary_request`
(the conversation before the cut, or an update of the previous summary),
`turn_prefix_request` (the start of a split turn), `plan_compaction_requests` (which of
the two are made, in order), `compact` (the replies made one summary with the file
lists, or the failure that stops it) and `combine_usage`.

A model is never called: the caller scripts the reply of each request (`ScriptedReply`,
keyed `"reply"` for the history and `"turnPrefixReply"` for the turn prefix), so every
function here is pure. The prompt texts below are the wire-format strings Pi 0.85.0
sends, captured from the requests its scripted `streamFn` received.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ctxspec.reference._jsjson import js_join
from ctxspec.reference.branch_summary import SUMMARIZATION_SYSTEM_PROMPT, ScriptedReply
from ctxspec.reference.compaction import CompactionPreparation
from ctxspec.reference.errors import InvalidInput
from ctxspec.reference.file_ops import compute_file_lists, format_file_operations
from ctxspec.reference.messages import convert_to_llm
from ctxspec.reference.session import js_truthy
from ctxspec.reference.transcript import get_summarization_failure, serialize_conversation

__all__ = [
    "HISTORY_REPLY",
    "NO_PRIOR_HISTORY",
    "SUMMARIZATION_PROMPT",
    "SUMMARY_CALLS",
    "TURN_CONTEXT_SEPARATOR",
    "TURN_PREFIX_REPLY",
    "TURN_PREFIX_SUMMARIZATION_PROMPT",
    "UPDATE_SUMMARIZATION_PROMPT",
    "CompactionOutcome",
    "SummaryRequest",
    "combine_usage",
    "compact",
    "history_summary_request",
    "plan_compaction_requests",
    "summary_refusal",
    "turn_prefix_request",
]

SUMMARIZATION_PROMPT: Final = (
    "The messages above are a conversation to summarize. Create a structured context "
    "checkpoint summary that another LLM will use to continue the work.\n"
    "\n"
    "Use this EXACT format:\n"
    "\n"
    "## Goal\n"
    "[What is the user trying to accomplish? Can be multiple items if the session covers "
    "different tasks.]\n"
    "\n"
    "## Constraints & Preferences\n"
    "- [Any constraints, preferences, or requirements mentioned by user]\n"
    '- [Or "(none)" if none were mentioned]\n'
    "\n"
    "## Progress\n"
    "### Done\n"
    "- [x] [Completed tasks/changes]\n"
    "\n"
    "### In Progress\n"
    "- [ ] [Current work]\n"
    "\n"
    "### Blocked\n"
    "- [Issues preventing progress, if any]\n"
    "\n"
    "## Key Decisions\n"
    "- **[Decision]**: [Brief rationale]\n"
    "\n"
    "## Next Steps\n"
    "1. [Ordered list of what should happen next]\n"
    "\n"
    "## Critical Context\n"
    "- [Any data, examples, or references needed to continue]\n"
    '- [Or "(none)" if not applicable]\n'
    "\n"
    "Keep each section concise. Preserve exact file paths, function names, and error "
    "messages."
)
UPDATE_SUMMARIZATION_PROMPT: Final = (
    "The messages above are NEW conversation messages to incorporate into the existing "
    "summary provided in <previous-summary> tags.\n"
    "\n"
    "Update the existing structured summary with new information. RULES:\n"
    "- PRESERVE all existing information from the previous summary\n"
    "- ADD new progress, decisions, and context from the new messages\n"
    '- UPDATE the Progress section: move items from "In Progress" to "Done" when completed\n'
    '- UPDATE "Next Steps" based on what was accomplished\n'
    "- PRESERVE exact file paths, function names, and error messages\n"
    "- If something is no longer relevant, you may remove it\n"
    "\n"
    "Use this EXACT format:\n"
    "\n"
    "## Goal\n"
    "[Preserve existing goals, add new ones if the task expanded]\n"
    "\n"
    "## Constraints & Preferences\n"
    "- [Preserve existing, add new ones discovered]\n"
    "\n"
    "## Progress\n"
    "### Done\n"
    "- [x] [Include previously done items AND newly completed items]\n"
    "\n"
    "### In Progress\n"
    "- [ ] [Current work - update based on progress]\n"
    "\n"
    "### Blocked\n"
    "- [Current blockers - remove if resolved]\n"
    "\n"
    "## Key Decisions\n"
    "- **[Decision]**: [Brief rationale] (preserve all previous, add new)\n"
    "\n"
    "## Next Steps\n"
    "1. [Update based on current state]\n"
    "\n"
    "## Critical Context\n"
    "- [Preserve important context, add new if needed]\n"
    "\n"
    "Keep each section concise. Preserve exact file paths, function names, and error "
    "messages."
)
TURN_PREFIX_SUMMARIZATION_PROMPT: Final = (
    "This is the PREFIX of a turn that was too large to keep. The SUFFIX (recent work) is "
    "retained.\n"
    "\n"
    "Summarize the prefix to provide context for the retained suffix:\n"
    "\n"
    "## Original Request\n"
    "[What did the user ask for in this turn?]\n"
    "\n"
    "## Early Progress\n"
    "- [Key decisions and work done in the prefix]\n"
    "\n"
    "## Context for Suffix\n"
    "- [Information needed to understand the retained recent work]\n"
    "\n"
    "Be concise. Focus on what's needed to understand the kept suffix."
)

# CP-11: a split turn's summary is the history summary, this separator, the prefix summary
TURN_CONTEXT_SEPARATOR: Final = "\n\n---\n\n**Turn Context (split turn):**\n\n"
# CP-11: the history half of a split turn with nothing before the turn
NO_PRIOR_HISTORY: Final = "No prior history."
HISTORY_REPLY: Final = "reply"
TURN_PREFIX_REPLY: Final = "turnPrefixReply"
# the two summary calls: (share of reserveTokens for maxTokens, failure label)
SUMMARY_CALLS: Final = {
    HISTORY_REPLY: (0.8, "Summarization"),
    TURN_PREFIX_REPLY: (0.5, "Turn prefix summarization"),
}


@dataclass(frozen=True, slots=True, kw_only=True)
class SummaryRequest:
    """What one summary call sends: the system prompt, the user text and the options."""

    system_prompt: str
    prompt: str
    max_tokens: float
    reasoning: str | None = None
    cache_retention: str = "none"

    def to_pi(self) -> dict[str, Any]:
        return {
            "systemPrompt": self.system_prompt,
            "prompt": self.prompt,
            "maxTokens": self.max_tokens,
            "reasoning": self.reasoning,
            "cacheRetention": self.cache_retention,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class CompactionOutcome:
    """`compact`'s `CompactionResult` (None: nothing to compact) or its error, and the
    requests made before it returned or failed."""

    result: Mapping[str, Any] | None = None
    error: str | None = None
    requests: tuple[SummaryRequest, ...] = ()

    def to_pi(self) -> dict[str, Any]:
        requests = [r.to_pi() for r in self.requests]
        if self.error is not None:
            return {"error": self.error, "requests": requests}
        return {"result": None if self.result is None else dict(self.result), "requests": requests}


def _max_tokens(share: float, reserve_tokens: float, model_max_tokens: float) -> float:
    # CP-10: a share of reserveTokens, rounded down, never above the model's own cap
    cap = model_max_tokens if model_max_tokens > 0 else math.inf
    return min(math.floor(share * reserve_tokens), cap)


def _reasoning(model_reasoning: bool, thinking_level: Any) -> str | None:
    # CP-10: the thinking level is sent only to a reasoning model, and never "off"
    if model_reasoning and js_truthy(thinking_level) and thinking_level != "off":
        return str(thinking_level)
    return None


def _conversation(messages: Sequence[Mapping[str, Any]]) -> str:
    return (
        f"<conversation>\n{serialize_conversation(convert_to_llm(messages))}\n</conversation>\n\n"
    )


def history_summary_request(
    messages: Sequence[Mapping[str, Any]],
    *,
    reserve_tokens: float,
    model_max_tokens: float = 0,
    model_reasoning: bool = False,
    thinking_level: Any = None,
    custom_instructions: Any = None,
    previous_summary: Any = None,
) -> SummaryRequest:
    """The request summarising `messages` (CP-10).

    With a (non-empty) previous summary it is quoted in `<previous-summary>` and the
    update instructions are used; custom instructions follow as `Additional focus: `.
    """
    instructions = (
        UPDATE_SUMMARIZATION_PROMPT if js_truthy(previous_summary) else SUMMARIZATION_PROMPT
    )
    if js_truthy(custom_instructions):
        instructions += f"\n\nAdditional focus: {custom_instructions}"
    prompt = _conversation(messages)
    if js_truthy(previous_summary):
        prompt += f"<previous-summary>\n{previous_summary}\n</previous-summary>\n\n"
    share = SUMMARY_CALLS[HISTORY_REPLY][0]
    return SummaryRequest(
        system_prompt=SUMMARIZATION_SYSTEM_PROMPT,
        prompt=prompt + instructions,
        max_tokens=_max_tokens(share, reserve_tokens, model_max_tokens),
        reasoning=_reasoning(model_reasoning, thinking_level),
    )


def turn_prefix_request(
    messages: Sequence[Mapping[str, Any]],
    *,
    reserve_tokens: float,
    model_max_tokens: float = 0,
    model_reasoning: bool = False,
    thinking_level: Any = None,
) -> SummaryRequest:
    """The request summarising the start of a split turn: no previous summary, no focus."""
    share = SUMMARY_CALLS[TURN_PREFIX_REPLY][0]
    return SummaryRequest(
        system_prompt=SUMMARIZATION_SYSTEM_PROMPT,
        prompt=_conversation(messages) + TURN_PREFIX_SUMMARIZATION_PROMPT,
        max_tokens=_max_tokens(share, reserve_tokens, model_max_tokens),
        reasoning=_reasoning(model_reasoning, thinking_level),
    )


def plan_compaction_requests(
    preparation: CompactionPreparation,
    *,
    model_max_tokens: float = 0,
    model_reasoning: bool = False,
    thinking_level: Any = None,
    custom_instructions: Any = None,
) -> tuple[tuple[str, SummaryRequest], ...]:
    """The summary calls `compact` makes, in order, each keyed by the reply it reads.

    A split turn with a turn prefix makes the history call (only when there are
    messages before the turn) and then the turn-prefix call; otherwise one history call.
    """
    options = {
        "reserve_tokens": preparation.settings.reserve_tokens,
        "model_max_tokens": model_max_tokens,
        "model_reasoning": model_reasoning,
        "thinking_level": thinking_level,
    }
    history = (
        HISTORY_REPLY,
        history_summary_request(
            preparation.messages_to_summarize,
            custom_instructions=custom_instructions,
            previous_summary=preparation.previous_summary,
            **options,
        ),
    )
    if not (preparation.is_split_turn and preparation.turn_prefix_messages):
        return (history,)
    prefix = (TURN_PREFIX_REPLY, turn_prefix_request(preparation.turn_prefix_messages, **options))
    return (history, prefix) if preparation.messages_to_summarize else (prefix,)


def compact(
    preparation: CompactionPreparation | None,
    replies: Mapping[str, ScriptedReply],
    *,
    model_max_tokens: float = 0,
    model_reasoning: bool = False,
    thinking_level: Any = None,
    custom_instructions: Any = None,
) -> CompactionOutcome:
    """`compact(preparation, model, ...)` with scripted replies (CP-8, CP-10, CP-11).

    The calls of `plan_compaction_requests` are made in order; the first reply that
    stopped on `length` or `error`, or calls a tool, ends it with that error (no
    summary). The summary is the reply text (text blocks joined by newlines), for a
    split turn the history text (or `No prior history.`), the separator and the prefix
    text, then the file lists. Raises `InvalidInput` when a needed reply is missing.
    """
    if preparation is None:
        return CompactionOutcome()
    planned = plan_compaction_requests(
        preparation,
        model_max_tokens=model_max_tokens,
        model_reasoning=model_reasoning,
        thinking_level=thinking_level,
        custom_instructions=custom_instructions,
    )
    made: list[SummaryRequest] = []
    texts: dict[str, str] = {}
    usages: list[Mapping[str, Any]] = []
    for key, request in planned:
        made.append(request)
        reply = replies.get(key)
        if reply is None:
            raise InvalidInput(f"model.{key}", "this summary request needs a scripted reply")
        failure = summary_refusal(reply, key)
        if failure is not None:  # CP-8: nothing is produced
            return CompactionOutcome(error=failure, requests=tuple(made))
        # contentText: the text blocks' `text` joined as `join` writes them
        texts[key] = js_join(
            (b.get("text") for b in reply.content if b.get("type") == "text"), "\n"
        )
        usages.append(reply.usage or {})
    if TURN_PREFIX_REPLY in texts:
        history = texts.get(HISTORY_REPLY, NO_PRIOR_HISTORY)
        summary = history + TURN_CONTEXT_SEPARATOR + texts[TURN_PREFIX_REPLY]
    else:
        summary = texts[HISTORY_REPLY]
    usage = usages[0] if len(usages) == 1 else combine_usage(usages[0], usages[1])
    read, modified = compute_file_lists(preparation.file_ops)
    return CompactionOutcome(
        result={
            "summary": summary + format_file_operations(read, modified),
            "firstKeptEntryId": preparation.first_kept_entry_id,
            "tokensBefore": preparation.tokens_before,
            "usage": dict(usage),
            "details": {"readFiles": list(read), "modifiedFiles": list(modified)},
        },
        requests=tuple(made),
    )


def summary_refusal(reply: ScriptedReply, key: str) -> str | None:
    """Why `compact` refuses the reply to its `key` call (CP-8), or None: a `length` or
    `error` stop, or a tool call."""
    label = SUMMARY_CALLS[key][1]
    failure = get_summarization_failure(
        {"stopReason": reply.stop_reason, "errorMessage": reply.error_message}, label
    )
    if failure is None and any(b.get("type") == "toolCall" for b in reply.content):
        failure = f"{label} attempted to call a tool"
    return failure


def combine_usage(first: Mapping[str, Any], second: Mapping[str, Any]) -> dict[str, Any]:
    """The usage of two calls added field by field (the optional fields when either has them)."""
    out: dict[str, Any] = {k: _sum(first, second, k) for k in ("input", "output", "cacheRead")}
    out["cacheWrite"] = _sum(first, second, "cacheWrite")
    for optional in ("cacheWrite1h", "reasoning"):
        if optional in first or optional in second:
            out[optional] = first.get(optional, 0) + second.get(optional, 0)
    out["totalTokens"] = _sum(first, second, "totalTokens")
    costs = (_cost(first), _cost(second))
    keys = ("input", "output", "cacheRead", "cacheWrite", "total")
    out["cost"] = {k: _sum(costs[0], costs[1], k) for k in keys}
    return out


def _sum(first: Mapping[str, Any], second: Mapping[str, Any], key: str) -> Any:
    a, b = first.get(key), second.get(key)
    if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in (a, b)):
        raise InvalidInput(f"usage.{key}", "must be a number in both replies")
    return a + b  # type: ignore[operator]


def _cost(usage: Mapping[str, Any]) -> Mapping[str, Any]:
    cost = usage.get("cost")
    if not isinstance(cost, Mapping):
        raise InvalidInput("usage.cost", "must be an object")
    return cost
