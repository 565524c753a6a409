"""Leaving a branch of a Pi 0.85.0 session: what is summarised and the move.

Decides: `collect_entries_for_branch_summary` (the entries between the old leaf and the
lowest common ancestor with the target, LCA-1) and `navigate_tree` (the new leaf, the
appended entries, the editor text, LCA-3/LCA-4). The summary itself (the messages it
reads, the request, the reply kept: `prepare_branch_entries`, `branch_summary_request`,
`branch_summary_result`) is `ctxspec.reference.branch_summary`.

A model is never called: the caller supplies the reply (`ScriptedReply`), so every
function here is pure. New entries take ids from the caller (`new_ids`) and its
`timestamp`, where Pi draws random ids and reads the clock.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ctxspec.reference._jsjson import js_join
from ctxspec.reference.branch_summary import (
    DEFAULT_BRANCH_RESERVE_TOKENS,
    BranchSummaryRequest,
    ScriptedReply,
    branch_summary_request,
    branch_summary_result,
)
from ctxspec.reference.errors import InvalidInput
from ctxspec.reference.session import (
    UNSET,
    SessionContext,
    SessionTree,
    entry_key,
    js_truthy,
    plain_entry,
    walk_to_root,
)
from ctxspec.reference.walks import PLAIN, Walks

__all__ = [
    "CollectEntriesResult",
    "NavigationResult",
    "SummaryRefused",
    "collect_entries_for_branch_summary",
    "get_branch",
    "navigate_tree",
]

Entry = Mapping[str, Any]


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
    # the walks `navigate_tree` ran (`context()` builds the context with them)
    walks: Walks = field(default=PLAIN, repr=False, compare=False)

    def context(self) -> SessionContext:
        """The session context at the new leaf (through the tree navigated, when given one)."""
        if self.tree is not None:
            return self.walks.build_session_context(self.tree.extended(self.appended), self.leaf_id)
        return self.walks.build_session_context(self.entries, self.leaf_id)


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
    walks: Walks = PLAIN,
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
    The entries between the two leaves are the walk `collect_entries_for_branch_summary`,
    and the result's `context()` is built by the walk `build_session_context`.
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
            walks=walks,
        )
    target = tree.get(target_id)
    if target is None:
        raise InvalidInput("targetId", f"Entry {target_id} not found")
    collected = walks.collect_entries_for_branch_summary(tree, current_leaf, target_id)
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
                walks=walks,
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
        walks=walks,
    )


class SummaryRefused(InvalidInput):
    """The model's reply cannot become a summary: Pi throws, appending nothing."""

    def __init__(self, message: str, request: BranchSummaryRequest | None) -> None:
        super().__init__("model.reply", message)
        self.message = message
        self.request = request


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
    # contentText: the text blocks' `text` joined, as `join` writes them (a missing or
    # null text as "", a number as String(n))
    return js_join(
        (b.get("text") for b in content if isinstance(b, Mapping) and b.get("type") == "text"), ""
    )
