"""When Pi 0.85.0 compacts a session and what it keeps: threshold, cut point, preparation.

Decides: `should_compact` (the threshold), `find_cut_point` (the first kept entry,
CP-3/CP-4), `find_turn_start_index` (split turns), `prepare_compaction` (what is
summarised, what kept). The file operations a summary lists (`ctxspec.reference.file_ops`) and
the text a summariser reads (`ctxspec.reference.transcript`) are re-exported here.

Entries are the entries of one path, root first (Pi's JSON objects). Token counts come
from `ctxspec.reference.tokens`. Each function is Pi's algorithm as Pi runs it (every cut point
listed, every entry of a range read); `ctxspec.fastengine.compaction` gives the same answers
reading less, and is checked against these.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from ctxspec.reference import file_ops, transcript
from ctxspec.reference._jsnum import js_add
from ctxspec.reference.errors import InvalidInput
from ctxspec.reference.file_ops import *  # noqa: F403  (every name re-exported: `__all__`)
from ctxspec.reference.file_ops import (
    FileOperations,
    compute_file_lists,
    file_op_calls,
    previous_file_ops,
)
from ctxspec.reference.messages import role_of
from ctxspec.reference.session import (
    build_session_context,
    js_truthy,
    session_entry_to_context_messages,
)
from ctxspec.reference.tokens import estimate_context_tokens, estimate_tokens
from ctxspec.reference.transcript import *  # noqa: F403  (every name re-exported: `__all__`)

__all__ = [
    "CUT_POINT_ROLES",
    "DEFAULT_COMPACTION_SETTINGS",
    "TURN_START_ROLES",
    "CompactionPreparation",
    "CompactionSettings",
    "CutPointOf",
    "CutPointResult",
    "FileCallsOf",
    "ProjectsTo",
    "budget_reached_at",
    "compaction_preparation",
    "entry_tokens",
    "find_cut_point",
    "find_turn_start_index",
    "prepare_compaction",
    "projects_to",
    "settle_cut",
    "should_compact",
    "summarizable",
]
__all__ += file_ops.__all__ + transcript.__all__  # re-exported

# CP-3: roles an entry may project to for the cut to land on it (never a tool result)
CUT_POINT_ROLES: Final = frozenset(
    {"user", "assistant", "bashExecution", "custom", "branchSummary", "compactionSummary"}
)
# CP-5: roles that start a turn (a cut anywhere else splits the turn)
TURN_START_ROLES: Final = CUT_POINT_ROLES - {"assistant"}

Entry = Mapping[str, Any]
# whether an entry gives the context a message of one of the roles (`projects_to`)
ProjectsTo = Callable[[Entry, frozenset[str]], bool]
# an engine's `find_cut_point`
CutPointOf = Callable[[Sequence[Entry], int, int, float], "CutPointResult"]
# the (kind, path) of the file tool calls of the messages of path[start:end]
FileCallsOf = Callable[[int, int, Sequence[Mapping[str, Any]]], Sequence[tuple[str, str]]]
# the role of the message an entry that is not a `message` gives the context (compactions
# left out: a cut never lands on one)
_ENTRY_ROLES: Final = {"custom_message": "custom", "branch_summary": "branchSummary"}


@dataclass(frozen=True, slots=True, kw_only=True)
class CompactionSettings:
    """`compaction.*` settings; Pi's defaults."""

    enabled: bool = True
    reserve_tokens: float = 16384
    keep_recent_tokens: float = 20000

    @classmethod
    def from_pi(cls, raw: Mapping[str, Any] | None) -> CompactionSettings:
        raw = raw or {}
        return cls(
            enabled=raw.get("enabled", True),
            reserve_tokens=raw.get("reserveTokens", 16384),
            keep_recent_tokens=raw.get("keepRecentTokens", 20000),
        )

    def to_pi(self) -> dict[str, Any]:
        return {
            "enabled": self.enabled,
            "reserveTokens": self.reserve_tokens,
            "keepRecentTokens": self.keep_recent_tokens,
        }


DEFAULT_COMPACTION_SETTINGS: Final = CompactionSettings()


@dataclass(frozen=True, slots=True, kw_only=True)
class CutPointResult:
    """What `findCutPoint` returns; `turn_start_index` is -1 when the cut starts a turn."""

    first_kept_entry_index: int
    turn_start_index: int
    is_split_turn: bool

    @property
    def history_end(self) -> int:
        """Where the history a compaction summarises ends: the turn's start on a split
        turn (the rest of the turn is its prefix), else the cut."""
        return self.turn_start_index if self.is_split_turn else self.first_kept_entry_index

    def to_pi(self) -> dict[str, Any]:
        return {
            "firstKeptEntryIndex": self.first_kept_entry_index,
            "turnStartIndex": self.turn_start_index,
            "isSplitTurn": self.is_split_turn,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class CompactionPreparation:
    """What `prepareCompaction` returns (file operations as lists, plus their summary lists)."""

    first_kept_entry_id: Any
    messages_to_summarize: tuple[dict[str, Any], ...]
    turn_prefix_messages: tuple[dict[str, Any], ...]
    is_split_turn: bool
    tokens_before: float
    previous_summary: Any
    file_ops: FileOperations
    settings: CompactionSettings = field(default=DEFAULT_COMPACTION_SETTINGS)

    def to_pi(self) -> dict[str, Any]:
        read, modified = compute_file_lists(self.file_ops)
        return {
            "firstKeptEntryId": self.first_kept_entry_id,
            "messagesToSummarize": list(self.messages_to_summarize),
            "turnPrefixMessages": list(self.turn_prefix_messages),
            "isSplitTurn": self.is_split_turn,
            "tokensBefore": self.tokens_before,
            "previousSummary": self.previous_summary,
            "fileOps": self.file_ops.to_pi(),
            "readFiles": list(read),
            "modifiedFiles": list(modified),
            "settings": self.settings.to_pi(),
        }


def should_compact(
    context_tokens: float, context_window: float, settings: CompactionSettings
) -> bool:
    """CP-6: compact when enabled and the context is over `window - reserveTokens`.

    >>> s = CompactionSettings()
    >>> should_compact(111616, 128000, s), should_compact(111617, 128000, s)
    (False, True)
    """
    # `!settings.enabled` is JavaScript truthiness; the subtraction is on doubles
    threshold = js_add(context_window, -settings.reserve_tokens)
    return js_truthy(settings.enabled) and context_tokens > threshold


def projects_to(entry: Entry, roles: frozenset[str]) -> bool:
    """Whether the entry gives the context a message of one of `roles`, read from the entry
    without making the message (a compaction's summary never counts). Raises
    `InvalidInput` for a message entry whose message is not an object."""
    kind = entry.get("type")
    if kind == "message":
        message = entry.get("message")
        if not isinstance(message, Mapping):
            raise InvalidInput("message", "a message entry needs a message object")
        return role_of(message) in roles
    if kind == "branch_summary" and not js_truthy(entry.get("summary")):
        return False  # no message at all
    return isinstance(kind, str) and _ENTRY_ROLES.get(kind, "") in roles


def find_turn_start_index(
    entries: Sequence[Entry],
    entry_index: int,
    start_index: int,
    projects: ProjectsTo = projects_to,
) -> int:
    """The nearest turn start at or before `entry_index` (down to `start_index`), or -1.
    `projects` reads an entry's role (`projects_to`; a fast engine passes its own)."""
    starts = range(entry_index, start_index - 1, -1)
    return next((i for i in starts if projects(entries[i], TURN_START_ROLES)), -1)


def find_cut_point(
    entries: Sequence[Entry], start_index: int, end_index: int, keep_recent_tokens: float
) -> CutPointResult:
    """Where to cut `entries[start:end]` to keep about `keep_recent_tokens` (CP-3, CP-4).

    The cut points are the entries that project to a message of `CUT_POINT_ROLES` (never
    a tool result, CP-3). Estimates are summed from the newest entry back; at the first
    entry where the sum reaches the budget, the cut is the first cut point at or after
    it. When there is none, or the budget is never reached, the cut is the first cut
    point (CP-4); with no cut point at all, `start_index`. The cut then moves back over
    entries that project to no message, stopping at a compaction (CP-7). A cut that
    does not start a turn is a split turn when a turn start precedes it (CP-5).
    """
    points = [i for i in range(start_index, end_index) if projects_to(entries[i], CUT_POINT_ROLES)]
    if not points:
        return CutPointResult(
            first_kept_entry_index=start_index, turn_start_index=-1, is_split_turn=False
        )
    cut = points[0]  # CP-4: keep everything unless the budget picks a later cut point
    reached = budget_reached_at(entries, start_index, end_index, keep_recent_tokens)
    if reached is not None:
        cut = next((point for point in points if point >= reached), cut)
    return settle_cut(entries, start_index, cut)


def budget_reached_at(
    entries: Sequence[Entry], start_index: int, end_index: int, keep_recent_tokens: float
) -> int | None:
    """The entry of `entries[start:end]` where the estimates summed from the newest entry
    back first reach `keep_recent_tokens` (an entry of no tokens is passed over), or None
    when they never do (CP-4's walk)."""
    accumulated: float = 0
    for index in range(end_index - 1, start_index - 1, -1):
        tokens = entry_tokens(entries[index])
        if tokens == 0:
            continue
        accumulated += tokens
        if accumulated >= keep_recent_tokens:
            return index
    return None


def entry_tokens(entry: Entry) -> int:
    """The estimated tokens of the messages one entry gives the context (CP-2)."""
    return sum(estimate_tokens(m) for m in session_entry_to_context_messages(entry))


def settle_cut(
    entries: Sequence[Entry], start_index: int, cut: int, projects: ProjectsTo = projects_to
) -> CutPointResult:
    """The cut point chosen at `cut`, settled: moved back over the metadata entries just
    before it (CP-7), then a split turn or not (CP-5). The tail of `find_cut_point`, kept
    apart so that a fast engine, which chooses the cut its own way, settles it by this same
    rule (`projects` reads an entry's role: `projects_to`, or the engine's own)."""
    # CP-7: metadata entries just before the cut (model/thinking changes, labels...) are kept
    while cut > start_index:
        previous = entries[cut - 1]
        if previous.get("type") == "compaction" or session_entry_to_context_messages(previous):
            break
        cut -= 1
    starts_turn = projects(entries[cut], TURN_START_ROLES)
    turn_start = -1 if starts_turn else find_turn_start_index(entries, cut, start_index, projects)
    return CutPointResult(
        first_kept_entry_index=cut,
        turn_start_index=turn_start,
        is_split_turn=not starts_turn and turn_start != -1,
    )


def prepare_compaction(
    path: Sequence[Entry], settings: CompactionSettings
) -> CompactionPreparation | None:
    """What a compaction of this path summarises and keeps, or None (nothing to do).

    None when the last entry is a compaction, the kept entry has no id, or there is no
    message to summarise. The range starts at the previous compaction's
    `firstKeptEntryId` (else just after it); `tokensBefore` is the estimate of the
    path's projected context. The history summarised runs to the cut (to the turn's
    start on a split turn), the turn prefix from the turn's start to the cut; each
    entry gives its first context message, compactions none. File operations are the
    previous compaction's lists (unless it came from a hook), then the tool calls of
    the messages summarised.
    """
    if path and path[-1].get("type") == "compaction":
        return None
    previous_index = next(
        (i for i in range(len(path) - 1, -1, -1) if path[i].get("type") == "compaction"), -1
    )
    tokens_before = estimate_context_tokens(build_session_context(path).messages).tokens
    return compaction_preparation(
        path,
        settings,
        previous_index,
        tokens_before,
        messages=lambda start, end: summarizable(path[start:end]),
    )


def compaction_preparation(
    path: Sequence[Entry],
    settings: CompactionSettings,
    previous_index: int,
    tokens_before: float,
    *,
    messages: Callable[[int, int], tuple[dict[str, Any], ...]],
    cut_point: CutPointOf = find_cut_point,
    file_calls: FileCallsOf = lambda _start, _end, messages: file_op_calls(messages),
) -> CompactionPreparation | None:
    """The rest of `prepare_compaction`, once the path's last compaction (`previous_index`,
    -1: none) and the context's estimate are known: the range, the cut, what is summarised,
    the file lists. Written once for every engine, with the walks as parameters (the
    reference's, or a fast engine's own): `messages(start, end)` is `summarizable` of
    `path[start:end]`, `cut_point` is `find_cut_point`, and `file_calls(start, end,
    messages)` the (kind, path) of those messages' file tool calls (`file_op_calls`).
    """
    start, previous_summary = _range_start(path, previous_index)
    cut = cut_point(path, start, len(path), settings.keep_recent_tokens)
    first_kept = _kept_entry(path, cut)
    if first_kept is None:
        return None
    to_summarize = messages(start, cut.history_end)
    split = cut.turn_start_index, cut.first_kept_entry_index  # the turn's prefix, if split
    prefix = messages(*split) if cut.is_split_turn else ()
    if not to_summarize and not prefix:
        return None
    ops = previous_file_ops(path[previous_index] if previous_index >= 0 else None).adding()
    ops.add_calls(file_calls(start, cut.history_end, to_summarize))
    if cut.is_split_turn:
        ops.add_calls(file_calls(*split, prefix))
    return CompactionPreparation(
        first_kept_entry_id=first_kept["id"],
        messages_to_summarize=to_summarize,
        turn_prefix_messages=prefix,
        is_split_turn=cut.is_split_turn,
        tokens_before=tokens_before,
        previous_summary=previous_summary,
        file_ops=ops.build(),
        settings=settings,
    )


def _range_start(path: Sequence[Entry], previous_index: int) -> tuple[int, Any]:
    """Where the range to compact starts, and the previous compaction's summary, given
    the position of the path's last compaction (-1: none; the range is the whole path).
    The range starts at that compaction's `firstKeptEntryId`, else just after it."""
    if previous_index < 0:
        return 0, None
    previous = path[previous_index]
    kept_id = previous.get("firstKeptEntryId")
    kept = next((i for i, e in enumerate(path) if e.get("id") == kept_id), -1)
    return (kept if kept >= 0 else previous_index + 1), previous.get("summary")


def _kept_entry(path: Sequence[Entry], cut: CutPointResult) -> Entry | None:
    """The first entry the cut keeps, or None when there is none or it has no id (then
    there is no compaction to prepare)."""
    at = cut.first_kept_entry_index
    first_kept = path[at] if at < len(path) else None
    return first_kept if first_kept is not None and js_truthy(first_kept.get("id")) else None


def summarizable(entries: Sequence[Entry]) -> tuple[dict[str, Any], ...]:
    """The first context message of each entry but compactions, in order."""
    kept = (e for e in entries if e.get("type") != "compaction")
    return tuple(found[0] for found in map(session_entry_to_context_messages, kept) if found)
