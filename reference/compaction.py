"""When Pi 0.85.0 compacts a session and what it keeps: threshold, cut point, preparation.

Decides: `should_compact` (the threshold), `find_cut_point` (the first kept entry,
CP-3/CP-4), `find_turn_start_index` (split turns), `prepare_compaction` (what is
summarised, what kept). The file operations a summary lists are
`ctxspec.reference.file_ops`, the text a summariser reads `ctxspec.reference.transcript`.

Entries are the entries of one path, root first (Pi's JSON objects). Token counts come
from `ctxspec.reference.tokens`. Each function is Pi's algorithm as Pi runs it (every cut point
listed, every entry of a range read). Their inner loops are the walks
(`ctxspec.reference.walks`): the plain ones are the private functions here, which
`walks.PLAIN` runs; `ctxspec.fastengine` passes its own, reading less, and is checked
against these.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from ctxspec.reference._jsnum import js_add
from ctxspec.reference.errors import InvalidInput
from ctxspec.reference.file_ops import FileOperations, compute_file_lists, previous_file_ops
from ctxspec.reference.messages import role_of
from ctxspec.reference.session import UNSET, js_truthy, session_entry_to_context_messages
from ctxspec.reference.tokens import estimate_tokens
from ctxspec.reference.walks import PLAIN, Walks

__all__ = [
    "CUT_POINT_ROLES",
    "DEFAULT_COMPACTION_SETTINGS",
    "TURN_START_ROLES",
    "CompactionPreparation",
    "CompactionSettings",
    "CutPointResult",
    "find_cut_point",
    "find_turn_start_index",
    "prepare_compaction",
    "should_compact",
]

# CP-3: roles an entry may project to for the cut to land on it (never a tool result)
CUT_POINT_ROLES: Final = frozenset(
    {"user", "assistant", "bashExecution", "custom", "branchSummary", "compactionSummary"}
)
# CP-5: roles that start a turn (a cut anywhere else splits the turn)
TURN_START_ROLES: Final = CUT_POINT_ROLES - {"assistant"}

Entry = Mapping[str, Any]
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


def find_turn_start_index(
    entries: Sequence[Entry], entry_index: int, start_index: int, *, walks: Walks = PLAIN
) -> int:
    """The nearest turn start at or before `entry_index` (down to `start_index`), or -1
    (CP-5: an entry that projects to a message of `TURN_START_ROLES`)."""
    starts = range(entry_index, start_index - 1, -1)
    return next((i for i in starts if walks.projects_to(entries[i], TURN_START_ROLES)), -1)


def find_cut_point(
    entries: Sequence[Entry],
    start_index: int,
    end_index: int,
    keep_recent_tokens: float,
    *,
    walks: Walks = PLAIN,
) -> CutPointResult:
    """Where to cut `entries[start:end]` to keep about `keep_recent_tokens` (CP-3, CP-4).

    The cut points are the entries that project to a message of `CUT_POINT_ROLES` (never
    a tool result, CP-3). Estimates are summed from the newest entry back; at the first
    entry where the sum reaches the budget, the cut is the first cut point at or after
    it. When there is none, or the budget is never reached, the cut is the first cut
    point (CP-4); with no cut point at all, `start_index` (that choice is the walk
    `choose_cut_point`: `_choose_cut_point` below). The cut then moves back over
    entries that project to no message, stopping at a compaction (CP-7). A cut that
    does not start a turn is a split turn when a turn start precedes it (CP-5).
    """
    cut = walks.choose_cut_point(entries, start_index, end_index, keep_recent_tokens)
    if cut is None:
        return CutPointResult(
            first_kept_entry_index=start_index, turn_start_index=-1, is_split_turn=False
        )
    # CP-7: metadata entries just before the cut (model/thinking changes, labels...) are kept
    while cut > start_index:
        previous = entries[cut - 1]
        if previous.get("type") == "compaction" or session_entry_to_context_messages(previous):
            break
        cut -= 1
    starts_turn = walks.projects_to(entries[cut], TURN_START_ROLES)
    turn_start = (
        -1 if starts_turn else find_turn_start_index(entries, cut, start_index, walks=walks)
    )
    return CutPointResult(
        first_kept_entry_index=cut,
        turn_start_index=turn_start,
        is_split_turn=not starts_turn and turn_start != -1,
    )


def _choose_cut_point(
    entries: Sequence[Entry],
    start_index: int,
    end_index: int,
    keep_recent_tokens: float,
    *,
    walks: Walks,
) -> int | None:
    """The plain `Walks.choose_cut_point`: every cut point of `entries[start:end]` listed
    (CP-3), then the first at or after the entry where the budget is reached (the walk
    `budget_reached_at`), else the first (CP-4); None when there is no cut point."""
    points = [i for i in range(start_index, end_index) if _projects_to(entries[i], CUT_POINT_ROLES)]
    if not points:
        return None
    reached = walks.budget_reached_at(entries, start_index, end_index, keep_recent_tokens)
    if reached is None:
        return points[0]
    return next((point for point in points if point >= reached), points[0])


def _budget_reached_at(
    entries: Sequence[Entry], start_index: int, end_index: int, keep_recent_tokens: float
) -> int | None:
    """The plain `Walks.budget_reached_at`: the entry of `entries[start:end]` where the
    estimates summed from the newest entry back first reach `keep_recent_tokens` (an entry
    of no tokens is passed over), or None when they never do (CP-4's walk)."""
    accumulated: float = 0
    for index in range(end_index - 1, start_index - 1, -1):
        tokens = _entry_tokens(entries[index])
        if tokens == 0:
            continue
        accumulated += tokens
        if accumulated >= keep_recent_tokens:
            return index
    return None


def _projects_to(entry: Entry, roles: frozenset[str]) -> bool:
    """The plain `Walks.projects_to`: whether the entry gives the context a message of one
    of `roles`, read from the entry without making the message (a compaction's summary
    never counts). Raises `InvalidInput` for a message entry whose message is not an
    object."""
    kind = entry.get("type")
    if kind == "message":
        message = entry.get("message")
        if not isinstance(message, Mapping):
            raise InvalidInput("message", "a message entry needs a message object")
        return role_of(message) in roles
    if kind == "branch_summary" and not js_truthy(entry.get("summary")):
        return False  # no message at all
    return isinstance(kind, str) and _ENTRY_ROLES.get(kind, "") in roles


def _entry_tokens(entry: Entry) -> int:
    """The plain `Walks.entry_tokens`: the estimated tokens of the messages one entry gives
    the context (CP-2)."""
    return sum(estimate_tokens(m) for m in session_entry_to_context_messages(entry))


def prepare_compaction(
    path: Sequence[Entry], settings: CompactionSettings, *, walks: Walks = PLAIN
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
    previous_index = walks.previous_compaction_index(path)
    context = walks.build_session_context(path, UNSET)
    tokens_before = walks.estimate_context_tokens(context.messages).tokens
    start, previous_summary = _range_start(path, previous_index)
    cut = find_cut_point(path, start, len(path), settings.keep_recent_tokens, walks=walks)
    first_kept = _kept_entry(path, cut)
    if first_kept is None:
        return None
    to_summarize = walks.compaction_messages(path, start, cut.history_end)
    split = cut.turn_start_index, cut.first_kept_entry_index  # the turn's prefix, if split
    prefix = walks.compaction_messages(path, *split) if cut.is_split_turn else ()
    if not to_summarize and not prefix:
        return None
    ops = previous_file_ops(path[previous_index] if previous_index >= 0 else None).adding()
    ops.add_calls(walks.file_op_calls(path, start, cut.history_end, to_summarize))
    if cut.is_split_turn:
        ops.add_calls(walks.file_op_calls(path, *split, prefix))
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


def _previous_compaction_index(path: Sequence[Entry]) -> int:
    """The plain `Walks.previous_compaction_index`: the path read back to its last
    compaction entry (-1: none)."""
    return next(
        (i for i in range(len(path) - 1, -1, -1) if path[i].get("type") == "compaction"), -1
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


def _compaction_messages(entries: Sequence[Entry]) -> tuple[dict[str, Any], ...]:
    """The plain `Walks.compaction_messages`: the first context message of each entry but
    compactions, in order."""
    kept = (e for e in entries if e.get("type") != "compaction")
    return tuple(found[0] for found in map(session_entry_to_context_messages, kept) if found)
