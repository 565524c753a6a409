"""The compaction helpers of `ctxspec.reference.compaction`, fast: reading only what decides.

- `find_cut_point` reads the entries from the start to the first cut point, from the end
  back to the budget, and from there to the next cut point: only two cut points can be
  the answer, where the reference lists every one. A malformed entry elsewhere in the
  range is not read; what the reference would refuse in it, `ctxspec.fastengine.session.as_entries`
  noted (`refuse_unreadable`).
- `prepare_compaction` reads each entry's message once (`RunTree.slots`) for the walk back
  to the budget and the messages summarised. On a long path one `RunTree` gives them, the
  context estimate and the file operations from the same C pass (`scan_with_calls`), which
  finds each message's read/write/edit calls while the scan holds it; on a short one
  (`CALLS_IN_SCAN_FROM`) the slots come alone from C, the context from
  `build_session_context`'s C walk, the file operations from the messages summarised.

Each answers as its `ctxspec.reference.compaction` namesake (tests/fastengine/test_sessions.py).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from operator import itemgetter
from typing import Any, Final

from ctxspec.fastengine._native import native
from ctxspec.fastengine.session import C_CONTEXT, build_session_context, plain_context
from ctxspec.fastengine.tokens import estimate_context_tokens
from ctxspec.fastengine.tree import RunTree, any_between, none_positions
from ctxspec.reference.compaction import (
    CUT_POINT_ROLES,
    FILE_OP_TOOLS,
    CompactionPreparation,
    CompactionSettings,
    CutPointResult,
    budget_reached_at,
    compaction_preparation,
    entry_tokens,
    file_op_calls,
    projects_to,
    settle_cut,
)
from ctxspec.reference.session import SessionContext, session_entry_to_context_messages

__all__ = ["file_operation_calls", "find_cut_point", "prepare_compaction", "refuse_unreadable"]

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
# CP-4's walk back from the newest entry, each plain message estimated in C (`_tokens.c`)
C_BUDGET_REACHED_AT: Final[Callable[..., Any] | None] = native("_tokens", "budget_reached_at")


def file_operation_calls(messages: Sequence[Mapping[str, Any]]) -> list[tuple[str, str]]:
    """`ctxspec.reference.compaction.file_op_calls`, from the C pass for plain parsed JSON."""
    found = C_FILE_OP_CALLS(messages, FILE_OP_TOOLS) if C_FILE_OP_CALLS is not None else None
    return file_op_calls(messages) if found is None else found


def _projects_to(entry: Entry, roles: frozenset[str]) -> bool:
    """`ctxspec.reference.compaction.projects_to`, a plain message's role read at once."""
    if type(entry) is dict and entry.get("type") == "message":
        message = entry.get("message")
        if type(message) is dict:  # the usual entry: no ABC check
            role = message.get("role")
            return isinstance(role, str) and role in roles
    return projects_to(entry, roles)


def refuse_unreadable(entries: Sequence[Entry], start: int, stop: int) -> None:
    """Raise at the first entry of `entries[start:stop]` that `as_entries` noted, as the
    reference does when it reads every entry of the range (by reading that one)."""
    marked = getattr(entries, "unreadable", ())
    if any_between(marked, start, stop):
        projects_to(entries[marked[bisect_left(marked, start)]], CUT_POINT_ROLES)


def _budget_reached_at(
    entries: Sequence[Entry],
    start_index: int,
    end_index: int,
    keep_recent_tokens: float,
    slots: Sequence[Any] | None = None,
) -> int | None:
    """`ctxspec.reference.compaction.budget_reached_at`, the plain message entries estimated in C
    and every other entry by the reference's `entry_tokens` (the walk is the whole cost
    of `find_cut_point` when the budget is not reached: every entry is estimated); with
    `slots` (the entries' `RunTree.slots`) each message is read from there."""
    if C_BUDGET_REACHED_AT is not None:
        found = C_BUDGET_REACHED_AT(
            entries, start_index, end_index, keep_recent_tokens, entry_tokens, slots
        )
        if found is not NotImplemented:
            return found  # type: ignore[no-any-return]
    return budget_reached_at(entries, start_index, end_index, keep_recent_tokens)


def _first_cut_point(entries: Sequence[Entry], start: int, end: int) -> int | None:
    return next((i for i in range(start, end) if _projects_to(entries[i], CUT_POINT_ROLES)), None)


def find_cut_point(
    entries: Sequence[Entry],
    start_index: int,
    end_index: int,
    keep_recent_tokens: float,
    *,
    slots: Sequence[Any] | None = None,
) -> CutPointResult:
    """`ctxspec.reference.compaction.find_cut_point`, reading only what decides (CP-3, CP-4): the
    first cut point, and the first after where the budget is reached; the reference's
    `settle_cut` settles the one chosen, with this engine's role reading. `slots`: the
    entries' `RunTree.slots`, when the caller has them (the walk reads the messages there)."""
    refuse_unreadable(entries, start_index, end_index)
    first = _first_cut_point(entries, start_index, end_index)
    if first is None:
        return CutPointResult(
            first_kept_entry_index=start_index, turn_start_index=-1, is_split_turn=False
        )
    cut = first  # CP-4: keep everything unless the budget picks a later cut point
    reached = _budget_reached_at(entries, start_index, end_index, keep_recent_tokens, slots)
    if reached is not None and reached > first:
        later = _first_cut_point(entries, reached, end_index)
        cut = first if later is None else later
    return settle_cut(entries, start_index, cut, _projects_to)


def prepare_compaction(
    path: Sequence[Entry], settings: CompactionSettings
) -> CompactionPreparation | None:
    """`ctxspec.reference.compaction.prepare_compaction` with this engine's walks: the reference's
    `compaction_preparation` given the path's messages (`slots`) and context estimate."""
    if path and path[-1].get("type") == "compaction":
        return None
    slots, context, calls = _slots_context_calls(path)
    others = none_positions(slots)  # a compaction entry is one of these
    previous_index = next((i for i in reversed(others) if path[i].get("type") == "compaction"), -1)
    tokens_before = estimate_context_tokens(context.messages).tokens

    def file_calls(
        start: int, end: int, messages: Sequence[Mapping[str, Any]]
    ) -> Sequence[tuple[str, str]]:
        if calls is None:
            return file_operation_calls(messages)
        return _calls_between(calls, start, end)  # only `message` entries make calls (the scan)

    return compaction_preparation(
        path,
        settings,
        previous_index,
        tokens_before,
        messages=lambda start, end: _summarizable(path, slots, others, start, end),
        cut_point=partial(find_cut_point, slots=slots),  # the messages found: no lookups
        file_calls=file_calls,
    )


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
