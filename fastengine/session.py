"""The session helpers of `reference.session`, fast: one parse per file, paths as slices.

- `parse_session_entries` parses every line that keeps to itself as one JSON array (the
  C pass `unsettled_lines` finds the others, which are parsed alone as the reference
  does): one parse shares each key string among all entries and lays them out in order,
  so the walks over them read about half the memory, and the parse is faster.
- `build_session_path` and `build_context_entries` are the reference's on a `RunTree`,
  whose paths are slices.
- `build_session_context` takes the path's messages as slices of the tree's `slots`; only
  the path's other entries (metadata, compactions, summaries, messages needing SS-2) are
  looked at one by one.
- `as_entries` wraps as the reference does, and notes the entries the reference refuses
  when it reads them (`EntryList.unreadable`: nulls, message entries whose message is not
  an object), so `fastengine.compaction.find_cut_point`, which reads only part of a range,
  still refuses one anywhere in it.

Each answers as its `reference.session` namesake (tests/fastengine/test_sessions.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from fastengine._native import native
from fastengine.tree import RunTree, any_between, joined, none_positions, slot_of
from reference import session
from reference.session import (
    JS_SPACE,
    JSON_DECODER,
    UNSET,
    ParsedSession,
    SessionContext,
    SessionTree,
    kept_from_position,
    leaf_position,
    message_of,
    parse_line,
    session_entry_to_context_messages,
)

__all__ = [
    "EntryList",
    "as_entries",
    "build_context_entries",
    "build_session_context",
    "build_session_path",
    "parse_session_entries",
]

Entry = Mapping[str, Any]

_C_UNSETTLED: Final[Callable[[str], list[int]] | None] = native("_sessions", "unsettled_lines")


class EntryList(list[Any]):
    """Entries that `as_entries` wrapped, with the positions of those the reference refuses
    when it reads them: the helpers that skip reading part of a range (`find_cut_point`)
    still refuse one in it."""

    unreadable: tuple[int, ...] = ()


def as_entries(values: Sequence[Any]) -> Sequence[Any]:
    """`reference.session.as_entries`, noting the unreadable entries; the list comes back as
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
    """`reference.session.parse_session_entries`, the settled lines parsed at once."""
    body = text.strip(JS_SPACE)
    lines = body.split("\n")
    together = _parse_together(body, lines)
    if together is None:  # a line that is not JSON among them, or no C pass
        return session.parse_session_entries(text)
    values, alone = together
    if not alone:
        return ParsedSession(entries=tuple(values), skipped=())
    settled = iter(values).__next__  # the values of the lines not `alone`, in order
    return session.read_session_lines(
        text, lambda offset, line: parse_line(line) if offset in alone else settled(), lines=lines
    )


def _parse_together(body: str, lines: list[str]) -> tuple[list[Any], frozenset[int]] | None:
    """The values of the lines parsed as one JSON array, and the lines left to parse alone.

    Every line but those `_sessions.unsettled_lines` finds (a string, bracket or comma not
    closed on it: a line cut short, or JSON spread over lines) goes into one array; a
    successful parse of it gives each such line's value, in order (blank lines have none).
    None when that parse fails (a line that is not JSON) or without the C pass.
    """
    if _C_UNSETTLED is None:
        return None
    alone = frozenset(_C_UNSETTLED(body))
    kept = [line for at, line in enumerate(lines) if at not in alone and _visible(line)]
    if not kept:
        return [], alone
    try:
        values = JSON_DECODER.decode(f"[{','.join(kept)}]")
    except (ValueError, RecursionError):  # a line that is not JSON, or nests too deep
        return None
    return (values, alone) if len(values) == len(kept) else None  # equal when settled


def _visible(line: str) -> bool:
    """Whether a line holds more than JSON's blanks (a line of only these is skipped)."""
    return bool(line.strip(" \t\r"))


def build_session_path(
    entries: Sequence[Any] | SessionTree, leaf_id: Any = UNSET
) -> tuple[Entry, ...]:
    """`reference.session.build_session_path` on a `RunTree` (SS-1)."""
    return session.build_session_path(RunTree.of(entries), leaf_id)


def build_context_entries(
    entries: Sequence[Any] | SessionTree, leaf_id: Any = UNSET
) -> tuple[Entry, ...]:
    """`reference.session.build_context_entries` on a `RunTree` (SS-1)."""
    return session.build_context_entries(RunTree.of(entries), leaf_id)


def build_session_context(
    entries: Sequence[Any] | SessionTree, leaf_id: Any = UNSET
) -> SessionContext:
    """`reference.session.build_session_context`: the path's messages as slices of the
    tree's `slots`."""
    tree = RunTree.of(entries)
    leaf = leaf_position(tree, leaf_id)
    if leaf is None:
        return _context_of((), ())
    ranges = tree.segments(leaf)
    if ranges is None:  # ids repeat: walk entry by entry
        path = tree.path_to(leaf)
        return _context_of(path, [slot_of(e) for e in path])
    return _context_of(joined(tree.entries, ranges), joined(tree.slots, ranges))


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
