"""The session helpers of `ctxspec.reference.session`, fast: one parse per file, paths as slices.

- `parse_session_entries` parses the usual file, every line JSON and nothing unusual in
  it, in one C pass (`_json.lines`: Python's json's values, about twice its speed: keys
  shared and interned, containers made at their size and out of the collector's lists).
  Otherwise it parses every line that keeps to itself as one JSON array (the
  C pass `_parse.array_of_lines` writes it, and finds the others, which are parsed alone
  as the reference does), and runs the reference's parse with the walk `parse_line` of
  that text (`ParsedTogether`): one parse shares each key string among all entries and lays
  them out in order, so the walks over them read about half the memory, and the parse is
  faster. The parse runs with the cyclic collector paused, and its values are kept out
  of the collector's lists after it (`_parse.untrack`: parsed JSON holds no cycle).
- `build_session_path` and `build_context_entries` are the reference's on a `RunTree`,
  whose paths are slices.
- `build_session_context` takes the path's messages as slices of the tree's `slots`; only
  the path's other entries (metadata, compactions, summaries, messages needing SS-2) are
  looked at one by one.
- `as_entries` wraps as the reference does, and notes the entries the reference refuses
  when it reads them (`EntryList.unreadable`: nulls, message entries whose message is not
  an object), so `ctxspec.fastengine.compaction.find_cut_point`, which reads only part of a range,
  still refuses one anywhere in it.

Each answers as its `ctxspec.reference.session` namesake (tests/fastengine/test_sessions.py).
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from ctxspec.fastengine._native import native
from ctxspec.fastengine.tree import RunTree, any_between, joined, none_positions, slot_of
from ctxspec.reference import migration, session, session_file
from ctxspec.reference.migration import LoadedSession
from ctxspec.reference.session import (
    UNSET,
    SessionContext,
    SessionTree,
    kept_from_position,
    leaf_position,
    message_of,
    session_entry_to_context_messages,
)
from ctxspec.reference.session_file import JSON_DECODER, ParsedSession
from ctxspec.reference.walks import Walks

__all__ = [
    "EntryList",
    "ParsedTogether",
    "as_entries",
    "build_context_entries",
    "build_session_context",
    "build_session_path",
    "load_session",
    "parse_session_entries",
    "plain_context",
]

Entry = Mapping[str, Any]

# the settled lines as one JSON array's text, the others' numbers, and how many it holds
_C_ARRAY: Final[Callable[[str], tuple[str, list[int], int]] | None] = native(
    "_parse", "array_of_lines"
)
_C_UNTRACK: Final[Callable[[Any], None] | None] = native("_parse", "untrack")
# the messages of a path of plain message entries, walked in C (None: RunTree's walk)
C_CONTEXT: Final[Callable[..., tuple[Any, ...] | None] | None] = native(
    "_sessions", "context_messages"
)
# the entries of a leaf's path, walked in C (None: RunTree's walk)
_C_PATH: Final[Callable[[Any, Any], tuple[Any, ...] | None] | None] = native("_sessions", "path")
# the values but the `session` headers, for exact dicts only (None: the Python filter)
_C_WITHOUT_HEADERS: Final[Callable[[Any], tuple[Any, ...] | None] | None] = native(
    "_sessions", "without_headers"
)
# every line's value as json.loads gives it, in one pass; None where it is not sure
_C_LINES: Final[Callable[[str], tuple[Any, ...] | None] | None] = native("_json", "lines")


class EntryList(list[Any]):
    """Entries that `as_entries` wrapped, with the positions of those the reference refuses
    when it reads them: the helpers that skip reading part of a range (`find_cut_point`)
    still refuse one in it."""

    unreadable: tuple[int, ...] = ()


def as_entries(values: Sequence[Any]) -> Sequence[Any]:
    """`ctxspec.reference.session.as_entries`, noting the unreadable entries; the list comes back as
    it is when every value is a dict and none is unreadable (nothing to wrap or note)."""
    unreadable = tuple(at for at, value in enumerate(values) if not _readable(value))
    if not unreadable and set(map(type, values)) <= {dict}:
        return values
    entries = EntryList(session.as_entries(values))
    entries.unreadable = unreadable
    return entries


def _readable(value: Any) -> bool:
    """Whether the reference reads the value as an entry without refusing it: not a null,
    nor a message entry whose message is not an object."""
    if not isinstance(value, Mapping):
        return value is not None
    return value.get("type") != "message" or isinstance(value.get("message"), Mapping)


def parse_session_entries(text: str) -> ParsedSession:
    """`ctxspec.reference.session_file.parse_session_entries`: every line in one C pass
    (`_json.lines`) when each is JSON alone, else the settled lines parsed at once."""
    each = _C_LINES(text) if _C_LINES is not None else None
    if each is not None:
        return ParsedSession(entries=each, skipped=())
    together = _parse_together(text)
    if together is None:  # a line that is not JSON among them, or no C pass
        return session_file.parse_session_entries(text)
    values, alone = together
    if not alone:
        return ParsedSession(entries=tuple(values), skipped=())
    return session_file.parse_session_entries(text, walks=ParsedTogether(values, alone))


class ParsedTogether(Walks):
    """The walk `parse_line` of one text whose settled lines were parsed at once: their
    values, in order, and the lines parsed alone (`alone`, by their offset among the lines
    of the trimmed text), as the reference parses each."""

    __slots__ = ("alone", "settled")

    def __init__(self, values: Sequence[Any], alone: frozenset[int]) -> None:
        self.settled = iter(values).__next__  # the values of the lines not `alone`, in order
        self.alone = alone

    def parse_line(self, offset: int, line: str) -> Any:
        return super().parse_line(offset, line) if offset in self.alone else self.settled()


def _parse_together(text: str) -> tuple[list[Any], frozenset[int]] | None:
    """The values of the settled lines parsed as one JSON array, and the lines left to
    parse alone (numbered among the lines of the trimmed text).

    `_parse.array_of_lines` writes the array (every line but the blank ones and those
    whose string, bracket or comma is not closed on it: a line cut short, or JSON spread
    over lines) in one pass; a successful parse of it gives each such line's value, in
    order. None when that parse fails (a line that is not JSON) or without the C pass.
    """
    if _C_ARRAY is None:
        return None
    array, alone, count = _C_ARRAY(text)
    try:
        values = _parsed(array)
    except (ValueError, RecursionError):  # a line that is not JSON, or nests too deep
        return None
    return (values, frozenset(alone)) if len(values) == count else None  # equal when settled


def _parsed(array: str) -> list[Any]:
    """The JSON array's values, parsed with the cyclic collector paused and then kept out
    of its lists (`_parse.untrack`): parsed JSON holds no cycle, and a collection during
    or after the parse would only traverse its objects again (most of a large parse's
    time with the collector on)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        values: list[Any] = JSON_DECODER.decode(array)
    finally:
        if enabled:
            gc.enable()
    if _C_UNTRACK is not None:
        _C_UNTRACK(values)
    return values


def load_session(entries: Sequence[Any]) -> LoadedSession:
    """`ctxspec.reference.migration.load_session`: what `SessionManager` holds of these entries.

    For the usual file, every value an object and no header asking for a migration, that
    is the entries but the headers (the reference's passes copy, unwrap and check each
    entry on the way, which costs a file of 1,000 entries about a tenth of its parse);
    anything else is the reference's.
    """
    kept = _C_WITHOUT_HEADERS(entries) if _C_WITHOUT_HEADERS is not None else None
    if kept is None:  # not all exact dicts (or no C pass)
        if type(entries) not in (list, tuple) or set(map(type, entries)) - {dict}:
            return migration.load_session(entries)
        kept = tuple(entry for entry in entries if entry.get("type") != "session")
    version = migration.session_version(entries)
    if version is not None and not version >= migration.CURRENT_SESSION_VERSION:
        return migration.load_session(entries)  # (NaN included: it is migrated too)
    return LoadedSession(entries=kept, leaf_id=kept[-1].get("id", UNSET) if kept else None)


def build_session_path(
    entries: Sequence[Any] | SessionTree, leaf_id: Any = UNSET
) -> tuple[Entry, ...]:
    """`ctxspec.reference.session.build_session_path` (SS-1): for a list of plain parsed entries,
    one C walk (`_sessions.path`) without the tree; else on a `RunTree`."""
    if _C_PATH is not None and (leaf_id is UNSET or type(leaf_id) is str):
        found = _C_PATH(entries, None if leaf_id is UNSET else leaf_id)
        if found is not None:
            return found
    return session.build_session_path(RunTree.of(entries), leaf_id)


def build_context_entries(
    entries: Sequence[Any] | SessionTree, leaf_id: Any = UNSET
) -> tuple[Entry, ...]:
    """`ctxspec.reference.session.build_context_entries` on a `RunTree` (SS-1)."""
    return session.build_context_entries(RunTree.of(entries), leaf_id)


def build_session_context(
    entries: Sequence[Any] | SessionTree, leaf_id: Any = UNSET
) -> SessionContext:
    """`ctxspec.reference.session.build_session_context`: the path's messages as slices of the
    tree's `slots`, or, for a list of plain message entries, from one C walk
    (`_sessions.context_messages`) without the tree."""
    if C_CONTEXT is not None and (leaf_id is UNSET or type(leaf_id) is str):
        messages = C_CONTEXT(entries, None if leaf_id is UNSET else leaf_id)
        if messages is not None:
            return plain_context(messages)
    tree = RunTree.of(entries)
    leaf = leaf_position(tree, leaf_id)
    if leaf is None:
        return _context_of((), ())
    ranges = tree.segments(leaf)
    if ranges is None:  # ids repeat: walk entry by entry
        path = tree.path_to(leaf)
        return _context_of(path, [slot_of(e) for e in path])
    return _context_of(joined(tree.entries, ranges), joined(tree.slots, ranges))


def plain_context(messages: tuple[dict[str, Any], ...]) -> SessionContext:
    """The context of a path of message entries only (`_sessions.context_messages`): their
    messages, the thinking level off, the model of the last assistant message's."""
    return SessionContext(
        messages=messages, thinking_level="off", model=_model_of(messages, messages, {})
    )


def _context_of(path: Sequence[Entry], slots: Sequence[dict[str, Any] | None]) -> SessionContext:
    thinking: Any = "off"
    latest = -1
    converted: dict[int, dict[str, Any]] = {}  # path index -> message of a None slot
    others = none_positions(slots)  # the entries without a slot, in path order
    for at in others:
        entry = path[at]
        kind = entry.get("type")
        if kind == "message":
            converted[at] = message_of(entry)  # raises for a message that is not an object
        elif kind == "thinking_level_change":
            thinking = entry.get("thinkingLevel", UNSET)
        elif kind == "compaction":
            latest = at
    model = _model_of(path, slots, converted)
    if latest < 0:
        bounds = [(0, len(path))]
        messages: list[dict[str, Any]] = []
    else:
        bounds = [(kept_from_position(path, latest), latest), (latest + 1, len(path))]
        messages = list(session_entry_to_context_messages(path[latest]))
    for start, stop in bounds:
        part = slots[start:stop]
        if not any_between(others, start, stop):
            messages += part  # type: ignore[arg-type]  # no None in it
            continue
        for offset, slot in enumerate(part, start):
            if slot is not None:
                messages.append(slot)
            elif offset in converted:
                messages.append(converted[offset])
            else:
                messages.extend(session_entry_to_context_messages(path[offset]))
    return SessionContext(messages=tuple(messages), thinking_level=thinking, model=model)


def _model_of(
    path: Sequence[Entry],
    slots: Sequence[dict[str, Any] | None],
    converted: Mapping[int, dict[str, Any]],
) -> dict[str, Any] | None:
    """The model of the path's last assistant message or model_change entry, newest first."""
    for at in range(len(path) - 1, -1, -1):
        message = slots[at] if slots[at] is not None else converted.get(at)
        if message is not None:
            if message.get("role") == "assistant":
                return _present(
                    provider=message.get("provider", UNSET), modelId=message.get("model", UNSET)
                )
        elif path[at].get("type") == "model_change":
            entry = path[at]
            return _present(
                provider=entry.get("provider", UNSET), modelId=entry.get("modelId", UNSET)
            )
    return None


def _present(**fields: Any) -> dict[str, Any]:
    return {key: value for key, value in fields.items() if value is not UNSET}
