"""Pi 0.85.0 session files and trees: parsing JSONL, paths, the projected context.

Decides which messages a session gives the model: `parse_session_entries` (JSONL, v3),
`index_entries` (id -> entry, a later duplicate winning, as Pi's map does),
`SessionTree` (the entries indexed once, what Pi's `SessionManager` holds),
`build_session_path` (root -> leaf by `parentId`), `build_context_entries` (the latest
compaction's projection, SS-1), `session_entry_to_context_messages`, and
`build_session_context` (messages, thinking level, model). `check_tree` is the strict
check Pi does not make: duplicate ids, missing parents, cycles.

The helpers take a list of entries or a `SessionTree`. A path is walked as runs of
entries each the child of the one before (how session files are written), so it costs
a slice per branch point rather than a lookup per entry; with repeated ids, or on a
cycle, the plain walk one `parentId` at a time answers instead. Context messages are
the entries' own message objects, as in Pi: copy one before changing it.

Entries are Pi's JSON objects. A session file may also hold JSON lines that are not
objects (`42`, `"x"`, `[1]`, `true`): JavaScript reads every field of such a value as
undefined, so Pi passes over it as an entry of no type, no id and no parent.
`as_entries` wraps each in a `Fieldless` mapping, which reads the same way here. Where Pi
follows a `parentId` cycle forever, or throws on a `null` entry, these functions raise
`InvalidInput` instead.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any, Final

from reference._native import native
from reference.errors import InvalidInput
from reference.messages import (
    create_branch_summary_message,
    create_compaction_summary_message,
    create_custom_message,
)

__all__ = [
    "CURRENT_SESSION_VERSION",
    "MESSAGE_ROLES_WITH_CONTENT",
    "UNSET",
    "EntryList",
    "Fieldless",
    "NullEntry",
    "ParsedSession",
    "SessionContext",
    "SessionTree",
    "SkippedLine",
    "any_between",
    "as_entries",
    "build_context_entries",
    "build_session_context",
    "build_session_path",
    "check_tree",
    "entry_key",
    "index_entries",
    "js_truthy",
    "none_positions",
    "parse_session_entries",
    "plain_entry",
    "refuse_nulls",
    "session_entry_to_context_messages",
    "walk_to_root",
]

CURRENT_SESSION_VERSION: Final = 3
# SS-2: a message of these roles with null or missing content is projected with `[]`
MESSAGE_ROLES_WITH_CONTENT: Final = frozenset({"user", "assistant", "toolResult"})
# JavaScript's String.prototype.trim set: WhiteSpace and LineTerminator
_JS_SPACE: Final = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_JSON_SPACE: Final = re.compile(r"[ \t\n\r]*")

Entry = Mapping[str, Any]

_Scanned = tuple[dict[Any, int], list[int], list[int], list[dict[str, Any] | None]]


# SessionTree.of's pass in C: the Python scan's values for plain dict entries with str ids
_C_SCAN: Final[Callable[[Sequence[Any]], _Scanned | None] | None] = native("_sessions", "scan")
_C_NONES: Final[Callable[[Sequence[Any]], list[int]] | None] = native("_sessions", "nones")
_C_UNSETTLED: Final[Callable[[str], list[int]] | None] = native("_sessions", "unsettled_lines")


def any_between(positions: Sequence[int], start: int, stop: int) -> bool:
    """Whether the sorted `positions` hold one in [start, stop)."""
    at = bisect_left(positions, start)
    return at < len(positions) and positions[at] < stop


def none_positions(items: Sequence[Any]) -> list[int]:
    """Where `items` holds None, in order: the entries of a path that have no slot.

    The C pass compares pointers; `index(None)` and `in` ask each item's type, a memory
    access per item, which is most of the cost of a long path's context.
    """
    if _C_NONES is not None and type(items) in (list, tuple):
        return _C_NONES(items)
    found: list[int] = []
    at = -1
    while True:
        try:
            at = items.index(None, at + 1)
        except ValueError:
            return found
        found.append(at)


class Fieldless(Mapping[str, Any]):
    """A session entry that is a JSON value but not an object: it has no fields.

    Pi reads `entry.type`, `entry.id` and `entry.parentId` of `42` or `"x"` as undefined,
    so such an entry is no message, a root, and the leaf when it comes last. `value` is
    what the file held, which Pi's answers echo where they echo the entry.
    """

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __getitem__(self, key: str) -> Any:
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return f"Fieldless({self.value!r})"


class NullEntry(Mapping[str, Any]):
    """A `null` session entry: reading any field of it raises `InvalidInput`.

    Pi throws a TypeError at the first field it reads of a null, and only then: a walk
    that stops before the entry answers normally. This raises at the same reads.
    """

    __slots__ = ("position",)

    def __init__(self, position: int) -> None:
        self.position = position

    def _refuse(self) -> InvalidInput:
        return InvalidInput(f"entries[{self.position}]", "an entry must not be null")

    def __getitem__(self, key: str) -> Any:
        raise self._refuse()

    def __iter__(self) -> Iterator[str]:
        raise self._refuse()

    def __len__(self) -> int:
        raise self._refuse()


class EntryList(list[Any]):
    """Entries that `as_entries` wrapped, with the positions of their nulls: the helpers
    that skip reading part of a range (`find_cut_point`) still refuse a null in it."""

    nulls: tuple[int, ...] = ()


def as_entries(values: Sequence[Any]) -> Sequence[Any]:
    """`values` read as Pi reads them: a JSON value that is not an object as `Fieldless`,
    a `null` as `NullEntry`. The list comes back as it is when every value is a dict."""
    if set(map(type, values)) <= {dict}:
        return values
    entries = EntryList(
        value
        if isinstance(value, Mapping)
        else NullEntry(position)
        if value is None
        else Fieldless(value)
        for position, value in enumerate(values)
    )
    entries.nulls = tuple(none_positions(values))
    return entries


def refuse_nulls(entries: Sequence[Any], start: int, stop: int) -> None:
    """Raise `InvalidInput` at the first null of `entries[start:stop]`, as Pi throws when
    it reads the type of every entry of a range."""
    nulls = getattr(entries, "nulls", ())
    if any_between(nulls, start, stop):
        raise NullEntry(nulls[bisect_left(nulls, start)])._refuse()


def plain_entry(entry: Entry) -> Any:
    """The JSON value of an entry: a copy of its fields, or what a `Fieldless` held."""
    return entry.value if type(entry) is Fieldless else dict(entry)


class _Unset:
    def __repr__(self) -> str:
        return "UNSET"


UNSET: Final = _Unset()  # an absent `leafId` (JS `undefined`), unlike `None` (JS `null`)


@dataclass(frozen=True, slots=True, kw_only=True)
class SkippedLine:
    """A line `parseSessionEntries` drops: its 1-based number in the text and why."""

    line: int
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ParsedSession:
    """The JSON values of a session file's lines (header included), and the lines dropped."""

    entries: tuple[Any, ...]
    skipped: tuple[SkippedLine, ...]

    def to_pi(self) -> dict[str, Any]:
        return {"entries": list(self.entries)}


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionContext:
    """What `buildSessionContext` returns; `thinking_level` None means absent."""

    messages: tuple[dict[str, Any], ...]
    thinking_level: Any
    model: Mapping[str, Any] | None

    def to_pi(self) -> dict[str, Any]:
        result: dict[str, Any] = {"messages": list(self.messages)}
        if self.thinking_level is not UNSET:
            result["thinkingLevel"] = self.thinking_level
        result["model"] = None if self.model is None else dict(self.model)
        return result


def js_truthy(value: Any) -> bool:
    """JavaScript truthiness of a JSON value (`{}` and `[]` are true, `""` and 0 false)."""
    if isinstance(value, Mapping | list):
        return True
    return bool(value)


def parse_session_entries(text: str) -> ParsedSession:
    """Pi's `parseSessionEntries`: one JSON value per non-blank line; bad lines skipped.

    The text is trimmed (JavaScript's whitespace set) and split on `\\n`; a line that is
    not JSON is dropped silently by Pi, and reported here in `skipped` with its number.

    >>> parsed = parse_session_entries('{"type":"session"}\\nnot json\\n\\n{"id":"a"}\\n')
    >>> parsed.entries
    ({'type': 'session'}, {'id': 'a'})
    >>> [(s.line, s.reason) for s in parsed.skipped]
    [(2, 'not JSON: Expecting value at column 1')]
    """
    body = text.strip(_JS_SPACE)
    first_line = 1 + text[: len(text) - len(text.lstrip(_JS_SPACE))].count("\n")
    lines = body.split("\n")
    together = _parse_together(body, lines)
    if together is not None and not together[1]:
        return ParsedSession(entries=tuple(together[0]), skipped=())
    values, alone = together or ((), None)  # None: every line parsed alone
    next_value = iter(values).__next__
    entries: list[Any] = []
    skipped: list[SkippedLine] = []
    for offset, line in enumerate(lines):
        if alone is not None and offset not in alone:
            if _visible(line):
                entries.append(next_value())
            continue
        if not line.strip(_JS_SPACE):
            continue
        try:
            entries.append(_json_parse(line))
        except ValueError as error:
            skipped.append(SkippedLine(line=first_line + offset, reason=f"not JSON: {error}"))
    return ParsedSession(entries=tuple(entries), skipped=tuple(skipped))


def _parse_together(body: str, lines: list[str]) -> tuple[list[Any], frozenset[int]] | None:
    """The values of the lines parsed as one JSON array, and the lines left to parse alone.

    Every line but those `_sessions.unsettled_lines` finds (a string, bracket or comma not
    closed on it: a line cut short, or JSON spread over lines) goes into one array; a
    successful parse of it gives each such line's value, in order (blank lines have none).
    None when that parse fails (a line that is not JSON) or without the C pass: the caller
    parses every line alone. Why: one parse shares each key string among all entries and
    lays the entries out in order, so the walks over them read about half the memory (the
    session helpers run about twice as fast on 100k entries), and the parse is faster.
    """
    if _C_UNSETTLED is None:
        return None
    alone = frozenset(_C_UNSETTLED(body))
    kept = [line for at, line in enumerate(lines) if at not in alone and _visible(line)]
    if not kept:
        return [], alone
    try:
        values = _DECODER.decode(f"[{','.join(kept)}]")
    except (ValueError, RecursionError):  # a line that is not JSON, or nests too deep
        return None
    return (values, alone) if len(values) == len(kept) else None  # equal when settled


def _visible(line: str) -> bool:
    """Whether a line holds more than JSON's blanks (a line of only these is skipped)."""
    return bool(line.strip(" \t\r"))


def index_entries(entries: Sequence[Any]) -> dict[Any, Entry]:
    """id -> entry, a later entry with the same id replacing the earlier (Pi's Map)."""
    index: dict[Any, Entry] = {}
    for position, entry in enumerate(entries):
        if type(entry) is not dict and not isinstance(entry, Mapping):  # dict: skip the ABC
            raise InvalidInput(f"entries[{position}]", "an entry must be an object")
        index[entry_key(entry.get("id"))] = entry
    return index


@dataclass(frozen=True, slots=True)
class SessionTree:
    """A session's entries with their index: what Pi's `SessionManager` keeps in memory.

    Built by `SessionTree.of(entries)` in one pass; the helpers that take entries also
    take a tree, so a caller asking several questions of one session indexes it once.
    `get(id)` is the entry with that id (a later duplicate winning, as in Pi's map);
    `path_to(position)` the root -> leaf walk of `walk_to_root`. The entries are held,
    not copied: they must not change while the tree is in use.

    A session file is mostly runs of entries each the child of the one before; `breaks`
    lists, in order, the positions whose parent is not the previous entry, so a path is a
    few slices of the entries. The slices are trusted only when every id is unique: a
    later duplicate would take an earlier entry's place as a parent.
    """

    entries: Sequence[Entry]
    positions: Mapping[Any, int]  # entry_key(id) -> position of the last entry with it
    breaks: Sequence[int]
    headers: Sequence[int]  # positions of `session` entries (Pi's manager leaves them out)
    # per entry: the message of a `message` entry whose message is a dict with content, as
    # the context carries it; None for every other entry (converted when it is projected)
    slots: Sequence[dict[str, Any] | None]

    @classmethod
    def of(cls, entries: Sequence[Any] | SessionTree) -> SessionTree:
        """The tree of `entries` (a tree is returned as it is).

        Raises `InvalidInput` naming the first entry that is not an object.
        """
        if isinstance(entries, SessionTree):
            return entries
        found = _C_SCAN(entries) if _C_SCAN is not None else None
        if found is not None:  # plain dicts with str ids: the same values, from C
            return cls(entries, *found)
        return cls._scan(
            entries, positions={}, breaks=[], headers=[], slots=[], previous=None, position=0
        )

    @classmethod
    def _scan(
        cls,
        entries: Sequence[Any],
        *,
        positions: dict[Any, int],
        breaks: list[int],
        headers: list[int],
        slots: list[dict[str, Any] | None],
        previous: Any,
        position: int,
    ) -> SessionTree:
        mark, keep = breaks.append, slots.append
        for entry in entries[position:] if position else entries:
            if type(entry) is not dict and not isinstance(entry, Mapping):
                raise InvalidInput(f"entries[{position}]", "an entry must be an object")
            key = entry.get("id")
            if type(key) is not str:
                key = entry_key(key)
            parent = entry.get("parentId")
            if type(parent) is str:
                if not parent or parent != previous:
                    mark(position)
            elif not js_truthy(parent) or entry_key(parent) != previous:
                mark(position)  # no entry_key is None: the first entry always breaks
            kind = entry.get("type")
            if kind == "message":
                message = entry.get("message")
                if type(message) is dict and message.get("content") is not None:
                    keep(message)
                else:
                    keep(None)
            else:
                keep(None)
                if kind == "session":
                    headers.append(position)
            positions[key] = position
            previous = key
            position += 1
        return cls(entries, positions, breaks, headers, slots)

    def extended(self, more: Sequence[Any]) -> SessionTree:
        """The tree of these entries followed by `more` (this tree is left as it is)."""
        if not more:
            return self
        entries = (*self.entries, *more)
        previous = entry_key(self.entries[-1].get("id")) if self.entries else None
        return self._scan(
            entries,
            positions=dict(self.positions),
            breaks=list(self.breaks),
            headers=list(self.headers),
            slots=list(self.slots),
            previous=previous,
            position=len(self.entries),
        )

    def without_headers(self) -> SessionTree:
        """The tree of the entries other than `session` headers (`SessionManager`'s index)."""
        if not self.headers:
            return self
        return SessionTree.of([e for e in self.entries if e.get("type") != "session"])

    def get(self, entry_id: Any) -> Entry | None:
        """The entry with this id, or None (`SessionManager.getEntry`)."""
        position = self.positions.get(entry_key(entry_id))
        return None if position is None else self.entries[position]

    def position(self, entry_id: Any) -> int | None:
        """Where the entry with this id is in `entries`, or None."""
        return self.positions.get(entry_key(entry_id))

    def index(self) -> dict[Any, Entry]:
        """entry_key(id) -> entry, as `index_entries` gives it."""
        entries = self.entries
        return {key: entries[at] for key, at in self.positions.items()}

    def segments(self, leaf: int) -> list[tuple[int, int]] | None:
        """The path root -> `entries[leaf]` as (first, last) position ranges, root first.

        None when ids repeat (then only the plain walk is right). Raises `InvalidInput` on
        a `parentId` cycle, as `walk_to_root` does.
        """
        if len(self.positions) != len(self.entries):
            return None
        entries, breaks, positions = self.entries, self.breaks, self.positions
        found: list[tuple[int, int]] = []
        length = 0
        at: int | None = leaf
        while at is not None:
            start = breaks[bisect_right(breaks, at) - 1]
            found.append((start, at))
            length += at + 1 - start
            if length > len(entries):  # an entry came back: a cycle; the plain walk says so
                walk_to_root(self.index(), entries[leaf])
                raise InvalidInput("parentId", "a parentId cycle")  # pragma: no cover
            parent = entries[start].get("parentId")
            at = positions.get(entry_key(parent)) if js_truthy(parent) else None
        found.reverse()
        return found

    def path_to(self, leaf: int) -> tuple[Entry, ...]:
        """Root -> the entry at position `leaf`, as `walk_to_root` walks it.

        Raises `InvalidInput` on a `parentId` cycle.
        """
        ranges = self.segments(leaf)
        if ranges is None:  # duplicate ids: the plain walk
            return walk_to_root(self.index(), self.entries[leaf])
        return self.slices(ranges)

    def slices(self, ranges: Sequence[tuple[int, int]]) -> tuple[Entry, ...]:
        """The entries of these (first, last) position ranges, in order."""
        return _joined(self.entries, ranges)


def _joined(items: Sequence[Any], ranges: Sequence[tuple[int, int]]) -> tuple[Any, ...]:
    if len(ranges) == 1:
        return tuple(items[ranges[0][0] : ranges[0][1] + 1])
    return tuple(chain.from_iterable(items[a : b + 1] for a, b in ranges))


def build_session_path(
    entries: Sequence[Any] | SessionTree, leaf_id: Any = UNSET
) -> tuple[Entry, ...]:
    """Root -> leaf along `parentId` (SS-1).

    `leaf_id` None gives `()`; UNSET, a falsy or an unknown id starts at the last entry
    (Pi falls back silently). A parent that is not in the entries ends the walk there.
    Raises `InvalidInput` on a `parentId` cycle (Pi loops forever).
    """
    tree = SessionTree.of(entries)
    leaf = _leaf(tree, leaf_id)
    return () if leaf is None else tree.path_to(leaf)


def _leaf(tree: SessionTree, leaf_id: Any) -> int | None:
    """The leaf's position: None for no path, the last entry when the id is not found."""
    if leaf_id is None or not tree.entries:
        return None
    found = tree.position(leaf_id) if js_truthy(leaf_id) else None
    return len(tree.entries) - 1 if found is None else found


def build_context_entries(
    entries: Sequence[Any] | SessionTree, leaf_id: Any = UNSET
) -> tuple[Entry, ...]:
    """The path with only the latest compaction's projection (SS-1).

    `[compaction, entries from its firstKeptEntryId up to it, every entry after it]`;
    a `firstKeptEntryId` not on the path keeps only the entries after the compaction.
    """
    return _project(build_session_path(entries, leaf_id))


def _project(path: tuple[Entry, ...]) -> tuple[Entry, ...]:
    latest = next((i for i in range(len(path) - 1, -1, -1) if _kind(path[i]) == "compaction"), -1)
    if latest < 0:
        return path
    kept_from = _kept_from(path, latest)
    return (path[latest], *path[kept_from:latest], *path[latest + 1 :])


def _kind(entry: Entry) -> Any:
    return entry.get("type")


def _kept_from(path: Sequence[Entry], at: int) -> int:
    """Where the compaction at `path[at]` starts keeping: its firstKeptEntryId, else `at`.

    A path holds each id once (it is walked through an index), so the entry with the kept
    id is the one found walking back from the compaction, where it usually is close by.
    """
    kept = entry_key(path[at].get("firstKeptEntryId"))
    return next((i for i in range(at - 1, -1, -1) if entry_key(path[i].get("id")) == kept), at)


def session_entry_to_context_messages(entry: Entry) -> tuple[dict[str, Any], ...]:
    """The messages one entry contributes to the context (none for metadata entries).

    A message entry contributes its own message object, as Pi's does (copy it before
    changing it); the other kinds a new message.
    """
    kind = entry.get("type")
    if kind == "message":
        return (_message_of(entry),)
    if kind == "custom_message":
        content = entry.get("content")
        return (create_custom_message(entry, [] if content is None else content),)
    if kind == "branch_summary" and js_truthy(entry.get("summary")):
        return (create_branch_summary_message(entry),)
    if kind == "compaction":
        return (create_compaction_summary_message(entry),)
    return ()


def _message_of(entry: Entry) -> dict[str, Any]:
    """The message of a `message` entry as the context carries it (SS-2)."""
    message = entry.get("message")
    if type(message) is not dict:
        if not isinstance(message, Mapping):
            raise InvalidInput("message", "a message entry needs a message object")
        message = dict(message)
    # SS-2: null content of a user/assistant/toolResult message reads as []
    if message.get("content") is None and message.get("role") in MESSAGE_ROLES_WITH_CONTENT:
        return {**message, "content": []}
    return message


def build_session_context(
    entries: Sequence[Any] | SessionTree, leaf_id: Any = UNSET
) -> SessionContext:
    """Pi's `buildSessionContext`: the projected messages, thinking level and model.

    The path's messages are slices of the tree's `slots`; only the path's other entries
    (metadata, compactions, summaries, messages needing SS-2) are looked at one by one.
    """
    tree = SessionTree.of(entries)
    leaf = _leaf(tree, leaf_id)
    if leaf is None:
        return _context_of((), ())
    ranges = tree.segments(leaf)
    if ranges is None:  # ids repeat: walk entry by entry
        path = tree.path_to(leaf)
        return _context_of(path, [_slot(e) for e in path])
    return _context_of(_joined(tree.entries, ranges), _joined(tree.slots, ranges))


def _slot(entry: Entry) -> dict[str, Any] | None:
    message = entry.get("message") if entry.get("type") == "message" else None
    return message if type(message) is dict and message.get("content") is not None else None


def _context_of(path: Sequence[Entry], slots: Sequence[dict[str, Any] | None]) -> SessionContext:
    thinking: Any = "off"
    latest = -1
    converted: dict[int, dict[str, Any]] = {}  # path index -> message of a None slot
    others = none_positions(slots)  # the entries without a slot, in path order
    for at in others:
        entry = path[at]
        kind = entry.get("type")
        if kind == "message":
            converted[at] = _message_of(entry)  # raises for a message that is not an object
        elif kind == "thinking_level_change":
            thinking = entry.get("thinkingLevel", UNSET)
        elif kind == "compaction":
            latest = at
    model = _model_of(path, slots, converted)
    if latest < 0:
        bounds = [(0, len(path))]
        messages: list[dict[str, Any]] = []
    else:
        bounds = [(_kept_from(path, latest), latest), (latest + 1, len(path))]
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


def check_tree(entries: Sequence[Any]) -> None:
    """Raise `InvalidInput` unless ids are unique and every `parentId` leads to a root.

    Pi makes none of these checks: a duplicate id shadows the earlier entry, a missing
    parent ends the path early, and a cycle makes the path walk loop forever.
    """
    seen: dict[Any, int] = {}
    for position, entry in enumerate(entries):
        if not isinstance(entry, Mapping):
            raise InvalidInput(f"entries[{position}]", "an entry must be an object")
        key = entry_key(entry.get("id"))
        if key in seen:
            raise InvalidInput(f"entries[{position}].id", f"duplicate id {entry.get('id')!r}")
        seen[key] = position
    index = index_entries(entries)
    for position, entry in enumerate(entries):
        parent = entry.get("parentId")
        if js_truthy(parent) and entry_key(parent) not in index:
            raise InvalidInput(f"entries[{position}].parentId", f"no entry has id {parent!r}")
    for entry in entries:
        walk_to_root(index, entry)


def walk_to_root(index: Mapping[Any, Entry], leaf: Entry) -> tuple[Entry, ...]:
    path: list[Entry] = []
    visited: set[int] = set()
    current: Entry | None = leaf
    while current is not None:
        if id(current) in visited:
            raise InvalidInput(
                "parentId", f"a parentId cycle runs through {current.get('id')!r}: Pi never returns"
            )
        visited.add(id(current))
        path.append(current)
        parent = current.get("parentId")
        current = index.get(entry_key(parent)) if js_truthy(parent) else None
    path.reverse()
    return tuple(path)


def entry_key(value: Any) -> Any:
    """A dict key with JavaScript's SameValueZero (`true` is not `1`; objects by identity)."""
    if type(value) is str:  # the usual id; every other kind of key is a tuple
        return value
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, int | float):
        return ("number", float(value))
    if isinstance(value, str):  # a str subclass
        return str(value)
    if value is None:
        return ("null",)
    return ("object", id(value))


def _present(**fields: Any) -> dict[str, Any]:
    return {key: value for key, value in fields.items() if value is not UNSET}


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")  # NaN, Infinity, -Infinity: Python's, not JSON


_DECODER: Final = json.JSONDecoder(parse_constant=_reject_constant)


def _json_parse(line: str) -> Any:
    match = _JSON_SPACE.match(line)
    start = match.end() if match else 0
    if line[start : start + 1] == "":
        raise ValueError("empty")
    try:
        return json.loads(line, parse_constant=_reject_constant)
    except json.JSONDecodeError as error:
        raise ValueError(f"{error.msg} at column {error.colno}") from None
