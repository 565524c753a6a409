"""Leaving a branch of a Pi 0.85.0 session: what is summarised, the request, the move.

Decides: `collect_entries_for_branch_summary` (the entries between the old leaf and the
lowest common ancestor with the target, LCA-1), `prepare_branch_entries` (the messages a
summary reads, within a token budget, LCA-2), `branch_summary_request` (the request the
model gets), `branch_summary_result` (the reply made a summary, or a failure), and
`navigate_tree` (the new leaf, the appended entries, the editor text, LCA-3/LCA-4).

A model is never called: the caller supplies the reply (`ScriptedReply`), so every
function here is pure. New entries take ids from the caller (`new_ids`) and its
`timestamp`, where Pi draws random ids and reads the clock.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from reference.errors import InvalidInput
from reference.file_ops import (
    FileOperations,
    compute_file_lists,
    extract_file_ops_from_message,
    format_file_operations,
)
from reference.messages import (
    convert_to_llm,
    create_branch_summary_message,
    create_compaction_summary_message,
    create_custom_message,
)
from reference.session import (
    UNSET,
    SessionContext,
    SessionTree,
    build_session_context,
    entry_key,
    js_truthy,
    plain_entry,
    walk_to_root,
)
from reference.tokens import estimate_tokens
from reference.transcript import get_summarization_failure, serialize_conversation

__all__ = [
    "BRANCH_SUMMARY_PREAMBLE",
    "BRANCH_SUMMARY_PROMPT",
    "DEFAULT_BRANCH_RESERVE_TOKENS",
    "NO_CONTENT_SUMMARY",
    "SUMMARIZATION_SYSTEM_PROMPT",
    "BranchPreparation",
    "BranchSummaryRequest",
    "BranchSummaryResult",
    "CollectEntriesResult",
    "NavigationResult",
    "ScriptedReply",
    "SummaryRefused",
    "branch_summary_request",
    "branch_summary_result",
    "collect_entries_for_branch_summary",
    "get_branch",
    "navigate_tree",
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
_DEFAULT_CONTEXT_WINDOW: Final = 128000
_MAX_SUMMARY_TOKENS: Final = 4096
# LCA-2: entry types that never reach a branch summary
_METADATA_TYPES: Final = frozenset(
    {"thinking_level_change", "model_change", "custom", "label", "session_info"}
)

Entry = Mapping[str, Any]
ContextOf = Callable[[Sequence[Entry] | SessionTree, Any], SessionContext]


@dataclass(frozen=True, slots=True, kw_only=True)
class CollectEntriesResult:
    """What `collectEntriesForBranchSummary` returns."""

    entries: tuple[Entry, ...]
    common_ancestor_id: Any

    def to_pi(self) -> dict[str, Any]:
        return {
            "entries": [plain_entry(e) for e in self.entries],
            "commonAncestorId": self.common_ancestor_id,
        }


# an engine's `collect_entries_for_branch_summary` (`navigate_tree`'s `collect`)
Collect = Callable[[Sequence[Entry] | SessionTree, Any, Any], CollectEntriesResult]


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


@dataclass(frozen=True, slots=True, kw_only=True)
class NavigationResult:
    """The outcome of `navigateTree`: Pi's result, the new leaf, what was appended."""

    cancelled: bool
    aborted: bool = False
    editor_text: str | None = None
    summary_entry: Mapping[str, Any] | None = None
    leaf_id: Any = None
    appended: tuple[Mapping[str, Any], ...] = ()
    entries: tuple[Mapping[str, Any], ...] = ()
    request: BranchSummaryRequest | None = None
    tree: SessionTree | None = field(default=None, repr=False, compare=False)
    # the engine's `build_session_context` (`navigate_tree`'s `context`)
    context_of: ContextOf = field(default=build_session_context, repr=False, compare=False)

    def context(self) -> SessionContext:
        """The session context at the new leaf (through the tree navigated, when given one)."""
        if self.tree is not None:
            return self.context_of(self.tree.extended(self.appended), self.leaf_id)
        return self.context_of(self.entries, self.leaf_id)


def get_branch(index: Mapping[Any, Entry], from_id: Any) -> tuple[Entry, ...]:
    """`SessionManager.getBranch(id)`: root -> id; `()` for an unknown id; a cycle raises."""
    leaf = index.get(entry_key(from_id)) if js_truthy(from_id) else None
    return () if leaf is None else walk_to_root(index, leaf)


def collect_entries_for_branch_summary(
    entries: Sequence[Entry] | SessionTree, old_leaf_id: Any, target_id: Any
) -> CollectEntriesResult:
    """The entries from the old leaf back to (not including) the LCA with the target (LCA-1).

    The LCA is the deepest entry of the target's path whose id is on the old leaf's path
    (None if they share none, then the whole old path is collected). No old leaf: `()`.
    `session` headers are not part of the tree (Pi's `SessionManager` leaves them out).
    Raises `InvalidInput` on a `parentId` cycle on either path.
    """
    if not js_truthy(old_leaf_id):
        return CollectEntriesResult(entries=(), common_ancestor_id=None)
    index = SessionTree.of(entries).without_headers().index()
    old_path = {entry_key(e.get("id")) for e in get_branch(index, old_leaf_id)}
    common: Any = None
    for entry in reversed(get_branch(index, target_id)):
        if entry_key(entry.get("id")) in old_path:
            common = entry.get("id")
            break
    collected: list[Entry] = []
    current = old_leaf_id
    while js_truthy(current) and current != common:
        found = index.get(entry_key(current))
        if found is None:
            break
        collected.append(found)  # no cycle: get_branch walked this path already
        current = found.get("parentId")
    return CollectEntriesResult(entries=tuple(reversed(collected)), common_ancestor_id=common)


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
    budget = (context_window or _DEFAULT_CONTEXT_WINDOW) - reserve_tokens
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
    cap = min(_MAX_SUMMARY_TOKENS, max_tokens if max_tokens > 0 else float("inf"))
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
    text = "\n".join(str(b.get("text")) for b in reply.content if b.get("type") == "text")
    read, modified = compute_file_lists(preparation.file_ops)
    summary = BRANCH_SUMMARY_PREAMBLE + text + format_file_operations(read, modified)
    return BranchSummaryResult(
        summary=summary, usage=reply.usage, read_files=read, modified_files=modified
    )


def navigate_tree(
    entries: Sequence[Entry] | SessionTree,
    leaf_id: Any,
    target_id: Any,
    *,
    summarize: bool = False,
    reply: ScriptedReply | None = None,
    context_window: float = 0,
    max_tokens: float = 0,
    reserve_tokens: float = DEFAULT_BRANCH_RESERVE_TOKENS,
    custom_instructions: str | None = None,
    replace_instructions: bool = False,
    label: str | None = None,
    new_ids: Iterator[str],
    timestamp: str,
    collect: Collect = collect_entries_for_branch_summary,
    context: ContextOf = build_session_context,
) -> NavigationResult:
    """`AgentSession.navigateTree(target, options)` with a scripted model (LCA-3, LCA-4).

    The new leaf is the target, or its parent when the target is a user or custom
    message (whose text becomes `editor_text`). With `summarize` and entries to
    summarise, a `branch_summary` child of the new leaf is appended (`fromId` = the old
    leaf, or "root"). Raises `InvalidInput` for an unknown target or leaf (None: no leaf;
    Pi's `branch()` throws) and `SummaryRefused` (nothing appended) when the reply cannot
    be a summary (LCA-5). `entries` may be a `SessionTree` (indexed once, as Pi's session
    holds its manager); the result keeps it, so `context()` extends it by the appended
    entries instead of indexing them all again.
    `collect` and `context` are the engine's session walks (`fastengine` passes its own).
    """
    tree = SessionTree.of(entries)
    entries = tree.entries
    current_leaf = leaf_id
    if leaf_id is not None and tree.get(leaf_id) is None:
        raise InvalidInput("leafId", f"Entry {leaf_id} not found")
    if target_id == current_leaf:
        return NavigationResult(
            cancelled=False,
            leaf_id=current_leaf,
            entries=tuple(entries),
            tree=tree,
            context_of=context,
        )
    target = tree.get(target_id)
    if target is None:
        raise InvalidInput("targetId", f"Entry {target_id} not found")
    collected = collect(tree, current_leaf, target_id)
    summary_text: str | None = None
    details: dict[str, Any] | None = None
    usage: Any = UNSET
    request = None
    if summarize and collected.entries:
        preparation, request = branch_summary_request(
            collected.entries,
            context_window=context_window,
            max_tokens=max_tokens,
            reserve_tokens=reserve_tokens,
            custom_instructions=custom_instructions,
            replace_instructions=replace_instructions,
        )
        result = branch_summary_result(preparation, reply if request is not None else None)
        if result.aborted:
            return NavigationResult(
                cancelled=True,
                aborted=True,
                leaf_id=current_leaf,
                entries=tuple(entries),
                request=request,
                tree=tree,
                context_of=context,
            )
        if result.error is not None:
            raise SummaryRefused(result.error, request)
        summary_text = result.summary
        usage = result.usage
        details = {
            "readFiles": list(result.read_files or ()),
            "modifiedFiles": list(result.modified_files or ()),
        }
    editor_text = None
    if target.get("type") == "message" and target["message"].get("role") == "user":
        new_leaf = target.get("parentId")
        editor_text = _content_text(target["message"].get("content"))
    elif target.get("type") == "custom_message":
        new_leaf = target.get("parentId")
        editor_text = _content_text(target.get("content"))
    else:
        new_leaf = target_id
    appended: list[dict[str, Any]] = []
    summary_entry = None
    if summary_text:
        # LCA-4: the summary hangs under the new leaf and remembers the leaf it came from
        summary_entry = {
            "type": "branch_summary",
            "id": next(new_ids),
            "parentId": new_leaf,
            "timestamp": timestamp,
            "fromId": current_leaf if current_leaf is not None else "root",
            "summary": summary_text,
            "details": details,
        }
        if usage is not UNSET and usage is not None:
            summary_entry["usage"] = usage
        summary_entry["fromHook"] = False
        appended.append(summary_entry)
        current_leaf = summary_entry["id"]
        if label:
            appended.append(
                _label(next(new_ids), current_leaf, summary_entry["id"], label, timestamp)
            )
            current_leaf = appended[-1]["id"]
    else:
        current_leaf = new_leaf
        if label:
            appended.append(_label(next(new_ids), current_leaf, target_id, label, timestamp))
            current_leaf = appended[-1]["id"]
    return NavigationResult(
        cancelled=False,
        editor_text=editor_text,
        summary_entry=summary_entry,
        leaf_id=current_leaf,
        appended=tuple(appended),
        entries=(*entries, *appended),
        request=request,
        tree=tree,
        context_of=context,
    )


class SummaryRefused(InvalidInput):
    """The model's reply cannot become a summary: Pi throws, appending nothing."""

    def __init__(self, message: str, request: BranchSummaryRequest | None) -> None:
        super().__init__("model.reply", message)
        self.message = message
        self.request = request


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _label(entry_id: str, parent: Any, target: Any, label: str, timestamp: str) -> dict[str, Any]:
    return {
        "type": "label",
        "id": entry_id,
        "parentId": parent,
        "timestamp": timestamp,
        "targetId": target,
        "label": label,
    }


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if content is None:
        raise InvalidInput("content", "a target without content has no editor text")
    return "".join(
        str(b.get("text")) for b in content if isinstance(b, Mapping) and b.get("type") == "text"
    )
