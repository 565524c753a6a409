"""The compaction helpers of `ctxspec.reference.compaction`, fast: reading only what decides.

Both are the reference's rules run with this engine's walks (`ctxspec.reference.walks`):

- `find_cut_point` with `FAST`, whose `choose_cut_point` (`ctxspec.fastengine.walks`)
  reads the entries from the start to the first cut point, from the end back to the
  budget (in C), and from there to the next cut point: only two cut points can be the
  answer, where the reference lists every one.
- `prepare_compaction` with the walks of one path (`PreparedPath`): each entry's message
  read once (`RunTree.slots`) for the walk back to the budget and the messages
  summarised. On a long path one `RunTree` gives them, the context estimate and the file
  operations from the same C pass (`scan_with_calls`), which finds each message's
  read/write/edit calls while the scan holds it; on a short one (`CALLS_IN_SCAN_FROM`)
  the slots come alone from C, the context from `build_session_context`'s C walk, the
  file operations from the messages summarised.

Each answers as its `ctxspec.reference.compaction` namesake (tests/fastengine/test_sessions.py).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Mapping, Sequence
from operator import itemgetter
from typing import Any, Final

from ctxspec.fastengine._native import native
from ctxspec.fastengine.session import C_CONTEXT, build_session_context, plain_context
from ctxspec.fastengine.tree import RunTree, any_between, none_positions
from ctxspec.fastengine.walks import FAST, FastWalks
from ctxspec.reference import compaction
from ctxspec.reference.compaction import (
    CompactionPreparation,
    CompactionSettings,
    CutPointResult,
)
from ctxspec.reference.file_ops import FILE_OP_TOOLS, file_op_calls
from ctxspec.reference.session import (
    UNSET,
    SessionContext,
    SessionTree,
    session_entry_to_context_messages,
)

__all__ = ["PreparedPath", "file_operation_calls", "find_cut_point", "prepare_compaction"]

Entry = Mapping[str, Any]

# the read/write/edit calls of plain parsed JSON messages, found in C (None: the Python loop)
C_FILE_OP_CALLS: Final[
    Callable[[Sequence[Any], dict[str, str]], list[tuple[str, str]] | None] | None
] = native("_sessions", "file_op_calls")
# RunTree.of's C pass with each slot's file calls (given FILE_OP_TOOLS)
C_SCAN_WITH_CALLS: Final[Callable[[Sequence[Any], dict[str, str]], Any] | None] = native(
    "_sessions", "scan_with_calls"
)
# the path length from which the scan gathers every message's file calls: on a shorter
# path, the messages summarised (often none) are read again after the cut, which costs
# less than reading every message's calls in the scan (1,000 entries: about 13% of the
# helper); on a long one, most of the path is summarised and a second walk over it costs
# more (10,000 entries: about 20%)
CALLS_IN_SCAN_FROM: Final = 2048
# a path's slots and their file calls, in C, its ids not read (None: as C_SCAN_WITH_CALLS)
C_SLOTS_WITH_CALLS: Final[Callable[[Sequence[Any], dict[str, str]], Any] | None] = native(
    "_sessions", "slots_with_calls"
)
# RunTree's slots alone, in C (None: not plain parsed JSON in a list or tuple)
C_SLOTS: Final[Callable[[Sequence[Any]], list[Any] | None] | None] = native("_sessions", "slots")


def file_operation_calls(messages: Sequence[Mapping[str, Any]]) -> list[tuple[str, str]]:
    """`ctxspec.reference.file_ops.file_op_calls`, from the C pass for plain parsed JSON."""
    found = C_FILE_OP_CALLS(messages, FILE_OP_TOOLS) if C_FILE_OP_CALLS is not None else None
    return file_op_calls(messages) if found is None else found


def find_cut_point(
    entries: Sequence[Entry], start_index: int, end_index: int, keep_recent_tokens: float
) -> CutPointResult:
    """`ctxspec.reference.compaction.find_cut_point` with this engine's walks (CP-3 to CP-7)."""
    return compaction.find_cut_point(
        entries, start_index, end_index, keep_recent_tokens, walks=FAST
    )


def prepare_compaction(
    path: Sequence[Entry], settings: CompactionSettings
) -> CompactionPreparation | None:
    """`ctxspec.reference.compaction.prepare_compaction` with the walks of this path
    (`PreparedPath`: its messages, context and file calls found once)."""
    if path and path[-1].get("type") == "compaction":
        return None  # (before the path is scanned)
    return compaction.prepare_compaction(path, settings, walks=PreparedPath(path))


class PreparedPath(FastWalks):
    """The walks of one `prepare_compaction` call: each entry's message as the context
    carries it or None (`slots`), the path's context, and on a long path the file calls
    of its messages by position (`calls`; None: read from the messages summarised)."""

    __slots__ = ("calls", "context", "others", "path", "slots")

    def __init__(self, path: Sequence[Entry]) -> None:
        self.path = path
        self.slots, self.context, self.calls = _slots_context_calls(path)
        self.others = none_positions(self.slots)  # the entries without a slot, in order

    def previous_compaction_index(self, path: Sequence[Entry]) -> int:
        if path is not self.path:
            return super().previous_compaction_index(path)
        # a compaction is one of the entries without a slot
        return next((i for i in reversed(self.others) if path[i].get("type") == "compaction"), -1)

    def build_session_context(
        self, entries: Sequence[Any] | SessionTree, leaf_id: Any
    ) -> SessionContext:
        if entries is self.path and leaf_id is UNSET:
            return self.context
        return super().build_session_context(entries, leaf_id)

    def budget_reached_at(
        self,
        entries: Sequence[Entry],
        start_index: int,
        end_index: int,
        keep_recent_tokens: float,
        slots: Sequence[Any] | None = None,
    ) -> int | None:
        found = self.slots if entries is self.path else slots  # the messages found: no lookups
        return super().budget_reached_at(entries, start_index, end_index, keep_recent_tokens, found)

    def compaction_messages(
        self, path: Sequence[Entry], start: int, end: int
    ) -> tuple[dict[str, Any], ...]:
        if path is not self.path:
            return super().compaction_messages(path, start, end)
        return _summarizable(path, self.slots, self.others, start, end)

    def file_op_calls(
        self, path: Sequence[Entry], start: int, end: int, messages: Sequence[Mapping[str, Any]]
    ) -> Sequence[tuple[str, str]]:
        if self.calls is None or path is not self.path:
            return file_operation_calls(messages)
        return _calls_between(self.calls, start, end)  # only `message` entries make calls


def _calls_between(
    calls: Sequence[tuple[int, str, str]], start: int, stop: int
) -> list[tuple[str, str]]:
    """The (kind, path) of the (position, kind, path) calls with a position in [start, stop)."""
    first = bisect_left(calls, start, key=itemgetter(0))
    last = bisect_left(calls, stop, lo=first, key=itemgetter(0))
    return [(kind, path) for _, kind, path in calls[first:last]]


def _slots_context_calls(
    path: Sequence[Entry],
) -> tuple[Sequence[Any], SessionContext, Sequence[tuple[int, str, str]] | None]:
    """Each entry's message as the context carries it or None (`RunTree.slots`), the
    path's context, and on a long path (`CALLS_IN_SCAN_FROM`) the file calls of the
    messages (None: they are read from the messages summarised).

    A path of plain parsed JSON takes the slots from C (`_sessions.slots`, on a long path
    with the calls: `slots_with_calls`) and, when every entry on it is a message, its
    context from `build_session_context`'s C walk: no index of the ids (a dict of ints,
    every id hashed) is made. Otherwise one `RunTree` gives both.
    """
    if len(path) >= CALLS_IN_SCAN_FROM and C_SLOTS_WITH_CALLS is not None and C_CONTEXT:
        found = C_SLOTS_WITH_CALLS(path, FILE_OP_TOOLS)
        if found is not None:
            slots, calls = found
            messages = C_CONTEXT(path, None, slots)
            if messages is not None:
                return slots, plain_context(messages), calls
    if len(path) < CALLS_IN_SCAN_FROM:
        found = C_SLOTS(path) if C_SLOTS is not None else None
        if found is not None:
            messages = C_CONTEXT(path, None, found) if C_CONTEXT is not None else None
            if messages is not None:  # every entry on the path a message: its context
                return found, plain_context(messages), None
            return found, build_session_context(path), None
        tree = RunTree.of(path)
        return tree.slots, build_session_context(tree), None
    tree, calls = _tree_and_calls(path)  # one pass: the context, the messages, their calls
    return tree.slots, build_session_context(tree), calls


def _tree_and_calls(
    path: Sequence[Entry],
) -> tuple[RunTree, Sequence[tuple[int, str, str]] | None]:
    """The path's tree and, from the same C pass, its slots' file calls (None without it).

    Gathering the calls while the scan holds each message saves a second walk over every
    message, which on a long session costs as much as the scan (memory, not work). Entries
    other than `message` ones make no calls: their messages have no tool calls.
    """
    found = C_SCAN_WITH_CALLS(path, FILE_OP_TOOLS) if C_SCAN_WITH_CALLS is not None else None
    if found is None:  # not plain parsed JSON in a list or tuple (or no C pass): Python's scan
        return RunTree.of(path), None
    *scanned, calls = found
    return RunTree(path, *scanned), calls


def _summarizable(
    path: Sequence[Entry],
    slots: Sequence[dict[str, Any] | None],
    others: Sequence[int],
    start: int,
    end: int,
) -> tuple[dict[str, Any], ...]:
    """The first message of each entry of `path[start:end]` but compactions (`others`: the
    positions whose slot is None)."""
    part = slots[start:end]
    if not any_between(others, start, end):
        return tuple(part)  # type: ignore[arg-type]  # no None in it
    out: list[dict[str, Any]] = []
    for offset, slot in enumerate(part, start):
        if slot is not None:
            out.append(slot)
            continue
        entry = path[offset]
        if entry.get("type") == "compaction":
            continue
        messages = session_entry_to_context_messages(entry)
        if messages:
            out.append(messages[0])
    return tuple(out)
