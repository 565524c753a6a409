"""A Pi 0.85.0 branch summary: the messages it reads, the request, the reply kept.

Decides: `prepare_branch_entries` (the messages a summary reads, within a token budget,
LCA-2), `branch_summary_request` (the request the model gets) and `branch_summary_result`
(the reply made a summary, or a failure, LCA-5). Apart from `ctxspec.reference.branch` because
summarising is one concern and moving in the tree another: `navigate_tree` asks for a
summary through these, and `ctxspec.reference.summary` shares the system prompt and the scripted
reply. `ctxspec.reference.branch` re-exports these names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ctxspec.reference._jsjson import js_join
from ctxspec.reference.errors import InvalidInput
from ctxspec.reference.file_ops import (
    FileOperations,
    compute_file_lists,
    extract_file_ops_from_message,
    format_file_operations,
)
from ctxspec.reference.messages import (
    convert_to_llm,
    create_branch_summary_message,
    create_compaction_summary_message,
    create_custom_message,
)
from ctxspec.reference.session import js_truthy
from ctxspec.reference.tokens import estimate_tokens
from ctxspec.reference.transcript import get_summarization_failure, serialize_conversation

__all__ = [
    "BRANCH_SUMMARY_PREAMBLE",
    "BRANCH_SUMMARY_PROMPT",
    "DEFAULT_BRANCH_RESERVE_TOKENS",
    "DEFAULT_CONTEXT_WINDOW",
    "MAX_SUMMARY_TOKENS",
    "NO_CONTENT_SUMMARY",
    "SUMMARIZATION_SYSTEM_PROMPT",
    "BranchPreparation",
    "BranchSummaryRequest",
    "BranchSummaryResult",
    "ScriptedReply",
    "branch_summary_request",
    "branch_summary_result",
    "prepare_branch_entries",
]

SUMMARIZATION_SYSTEM_PROMPT: Final = (
    "You are a context summarization assistant. Your task is to read a conversation between a "
    "user and an AI assistant, then produce a structured summary following the exact format "
    "specified.\n\nDo NOT continue the conversation. Do NOT respond to any questions in the "
    "conversation. ONLY output the structured summary."
)
BRANCH_SUMMARY_PROMPT: Final = "\n\n".join(
    (
        "Create a structured summary of this conversation branch for context when returning later.",
        "Use this EXACT format:",
        "## Goal\n[What was the user trying to accomplish in this branch?]",
        "## Constraints & Preferences\n"
        "- [Any constraints, preferences, or requirements mentioned]\n"
        '- [Or "(none)" if none were mentioned]',
        "## Progress\n### Done\n- [x] [Completed tasks/changes]",
        "### In Progress\n- [ ] [Work that was started but not finished]",
        "### Blocked\n- [Issues preventing progress, if any]",
        "## Key Decisions\n- **[Decision]**: [Brief rationale]",
        "## Next Steps\n1. [What should happen next to continue this work]",
        "Keep each section concise. Preserve exact file paths, function names, and error messages.",
    )
)
BRANCH_SUMMARY_PREAMBLE: Final = (
    "The user explored a different conversation branch before returning here.\n"
    "Summary of that exploration:\n\n"
)
NO_CONTENT_SUMMARY: Final = "No content to summarize"
DEFAULT_BRANCH_RESERVE_TOKENS: Final = 16384
DEFAULT_CONTEXT_WINDOW: Final = 128000  # LCA-2: the window of a model that names none
MAX_SUMMARY_TOKENS: Final = 4096  # LCA-7: the summary's cap, lowered to the model's maxTokens
# LCA-2: entry types that never reach a branch summary
_METADATA_TYPES: Final = frozenset(
    {"thinking_level_change", "model_change", "custom", "label", "session_info"}
)

Entry = Mapping[str, Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class BranchPreparation:
    """What `prepareBranchEntries` returns."""

    messages: tuple[dict[str, Any], ...]
    file_ops: FileOperations
    total_tokens: int

    def to_pi(self) -> dict[str, Any]:
        return {
            "messages": list(self.messages),
            "fileOps": self.file_ops.to_pi(),
            "totalTokens": self.total_tokens,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class BranchSummaryRequest:
    """The one request a branch summary sends the model."""

    system_prompt: str
    prompt: str
    max_tokens: float
    # LCA-8: a one-off summary asks the provider to keep no prompt cache
    cache_retention: str = "none"

    def to_pi(self, *, extended: bool = False) -> dict[str, Any]:
        wire: dict[str, Any] = {
            "systemPrompt": self.system_prompt,
            "prompt": self.prompt,
            "maxTokens": self.max_tokens,
        }
        if extended:
            wire["cacheRetention"] = self.cache_retention
        return wire


@dataclass(frozen=True, slots=True, kw_only=True)
class ScriptedReply:
    """The model's reply: content blocks, stop reason, usage, error message (or None)."""

    content: tuple[Mapping[str, Any], ...]
    stop_reason: str
    usage: Mapping[str, Any] | None = None
    error_message: str | None = None

    @classmethod
    def from_pi(cls, raw: Mapping[str, Any]) -> ScriptedReply:
        """From the protocol's `model.reply`: `{text | content, stopReason, usage, ...}`."""
        if "content" in raw:
            content = tuple(raw["content"])
        else:
            content = ({"type": "text", "text": raw.get("text", "")},)
        return cls(
            content=content,
            stop_reason=raw.get("stopReason", "stop"),
            usage=raw.get("usage"),
            error_message=raw.get("errorMessage"),
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class BranchSummaryResult:
    """What `generateBranchSummary` returns; only the fields Pi sets are present."""

    summary: str | None = None
    usage: Mapping[str, Any] | None = None
    read_files: tuple[str, ...] | None = None
    modified_files: tuple[str, ...] | None = None
    aborted: bool = False
    error: str | None = None

    def to_pi(self) -> dict[str, Any]:
        if self.aborted:
            return {"aborted": True}
        if self.error is not None:
            return {"error": self.error}
        out: dict[str, Any] = {"summary": self.summary}
        if self.read_files is not None:
            out["usage"] = None if self.usage is None else dict(self.usage)
            out["readFiles"] = list(self.read_files)
            out["modifiedFiles"] = list(self.modified_files or ())
        return out


def _branch_message(entry: Entry) -> dict[str, Any] | None:
    kind = entry.get("type")
    if kind == "message":
        message = entry.get("message")
        if not isinstance(message, Mapping):
            raise InvalidInput("message", "a message entry needs a message object")
        # LCA-2: tool results never reach a branch summary
        return None if message.get("role") == "toolResult" else dict(message)
    if kind == "custom_message":
        return create_custom_message(entry, entry.get("content"))
    if kind == "branch_summary":
        return create_branch_summary_message(entry)
    if kind == "compaction":
        return create_compaction_summary_message(entry)
    return None  # metadata (_METADATA_TYPES) and unknown types


def prepare_branch_entries(entries: Sequence[Entry], token_budget: float = 0) -> BranchPreparation:
    """The messages a branch summary reads, newest first until the budget (LCA-2).

    File operations of earlier non-hook branch summaries are added first; a message's
    paths are read before the budget check. Over budget (`budget > 0`), a compaction
    or branch summary is still added while the total is under 90% of it, then the walk stops.
    """
    ops = FileOperations()
    for entry in entries:
        details = entry.get("details")
        from_summary = entry.get("type") == "branch_summary" and not js_truthy(
            entry.get("fromHook")
        )
        if from_summary and isinstance(details, Mapping):
            for name in _list(details.get("readFiles")):
                ops = ops.add("read", name)
            for name in _list(details.get("modifiedFiles")):
                ops = ops.add("edited", name)
    kept: list[dict[str, Any]] = []
    total = 0
    for entry in reversed(entries):
        message = _branch_message(entry)
        if message is None:
            continue
        ops = extract_file_ops_from_message(message, ops)
        tokens = estimate_tokens(message)
        if token_budget > 0 and total + tokens > token_budget:
            if entry.get("type") in ("compaction", "branch_summary") and total < token_budget * 0.9:
                kept.insert(0, message)
                total += tokens
            break
        kept.insert(0, message)
        total += tokens
    return BranchPreparation(messages=tuple(kept), file_ops=ops, total_tokens=total)


def branch_summary_request(
    entries: Sequence[Entry],
    *,
    context_window: float = 0,
    max_tokens: float = 0,
    reserve_tokens: float = DEFAULT_BRANCH_RESERVE_TOKENS,
    custom_instructions: str | None = None,
    replace_instructions: bool = False,
) -> tuple[BranchPreparation, BranchSummaryRequest | None]:
    """The preparation and the request (None when there is nothing to summarise)."""
    budget = (context_window or DEFAULT_CONTEXT_WINDOW) - reserve_tokens
    preparation = prepare_branch_entries(entries, budget)
    if not preparation.messages:
        return preparation, None
    conversation = serialize_conversation(convert_to_llm(preparation.messages))
    if replace_instructions and custom_instructions:
        instructions = custom_instructions
    elif custom_instructions:
        instructions = f"{BRANCH_SUMMARY_PROMPT}\n\nAdditional focus: {custom_instructions}"
    else:
        instructions = BRANCH_SUMMARY_PROMPT
    cap = min(MAX_SUMMARY_TOKENS, max_tokens if max_tokens > 0 else float("inf"))
    request = BranchSummaryRequest(
        system_prompt=SUMMARIZATION_SYSTEM_PROMPT,
        prompt=f"<conversation>\n{conversation}\n</conversation>\n\n{instructions}",
        max_tokens=cap,
    )
    return preparation, request


def branch_summary_result(
    preparation: BranchPreparation, reply: ScriptedReply | None
) -> BranchSummaryResult:
    """`generateBranchSummary`'s result for the model's reply (None: no request was made)."""
    if reply is None:
        return BranchSummaryResult(summary=NO_CONTENT_SUMMARY)
    if reply.stop_reason == "aborted":
        return BranchSummaryResult(aborted=True)
    failure = get_summarization_failure(
        {"stopReason": reply.stop_reason, "errorMessage": reply.error_message},
        "Branch summarization",
    )
    if failure is not None:  # LCA-5: a reply cut at the token cap is refused
        return BranchSummaryResult(error=failure)
    if any(b.get("type") == "toolCall" for b in reply.content):
        return BranchSummaryResult(error="Branch summarization attempted to call a tool")
    # contentText: the text blocks' `text` joined as `join` writes them (null as "")
    text = js_join((b.get("text") for b in reply.content if b.get("type") == "text"), "\n")
    read, modified = compute_file_lists(preparation.file_ops)
    summary = BRANCH_SUMMARY_PREAMBLE + text + format_file_operations(read, modified)
    return BranchSummaryResult(
        summary=summary, usage=reply.usage, read_files=read, modified_files=modified
    )


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
