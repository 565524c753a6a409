"""`RunTree`: a session tree whose paths are slices of runs of consecutive entries.

A session file is mostly runs of entries each the child of the one before. `RunTree`
(a `ctxspec.reference.session.SessionTree`, so every reference helper takes it) lists, in order,
the positions whose parent is not the previous entry (`breaks`): a path is then a few
slices of the entries, a slice per branch point rather than a lookup per entry. The
slices are trusted only when every id is unique (a later duplicate would take an earlier
entry's place as a parent); with repeated ids, the reference's walk answers.

It also keeps, per entry, the message a `message` entry gives the context as it is
(`slots`: the entry's own message when it is a dict whose content is present and not
None, else None), so a context is slices of `slots` too, and the positions of `session`
headers (`headers`). The one pass that builds all of it is in C
(`ctxspec.fastengine._sessions.scan`) for plain parsed JSON, in Python otherwise.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any, Final

from ctxspec.fastengine._native import native
from ctxspec.reference.errors import InvalidInput
from ctxspec.reference.session import SessionTree, entry_key, js_truthy, walk_to_root

__all__ = ["RunTree", "any_between", "joined", "none_positions"]

Entry = Mapping[str, Any]
_Scanned = tuple[dict[Any, int], list[int], list[int], list[dict[str, Any] | None]]

# RunTree.of's pass in C: the Python scan's values for plain dict entries with str ids
_C_SCAN: Final[Callable[[Sequence[Any]], _Scanned | None] | None] = native("_sessions", "scan")
_C_NONES: Final[Callable[[Sequence[Any]], list[int]] | None] = native("_sessions", "nones")


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


def joined(items: Sequence[Any], ranges: Sequence[tuple[int, int]]) -> tuple[Any, ...]:
    """The items of these (first, last) position ranges, in order."""
    if len(ranges) == 1:
        return tuple(items[ranges[0][0] : ranges[0][1] + 1])
    return tuple(chain.from_iterable(items[a : b + 1] for a, b in ranges))


def slot_of(entry: Entry) -> dict[str, Any] | None:
    """The message a `message` entry gives the context as it is, or None."""
    message = entry.get("message") if entry.get("type") == "message" else None
    return message if type(message) is dict and message.get("content") is not None else None


@dataclass(frozen=True, slots=True)
class RunTree(SessionTree):
    """A `SessionTree` with its runs: see the module docstring."""

    breaks: Sequence[int]
    headers: Sequence[int]  # positions of `session` entries (Pi's manager leaves them out)
    # per entry: the message of a `message` entry whose message is a dict with content, as
    # the context carries it; None for every other entry (converted when it is projected)
    slots: Sequence[dict[str, Any] | None]

    @classmethod
    def of(cls, entries: Sequence[Any] | SessionTree) -> RunTree:
        """The tree of `entries` (a `RunTree` is returned as it is, another tree's entries
        are indexed again).

        Raises `InvalidInput` naming the first entry that is not an object.
        """
        if isinstance(entries, RunTree):
            return entries
        if isinstance(entries, SessionTree):
            entries = entries.entries
        found = _C_SCAN(entries) if _C_SCAN is not None else None
        if found is not None:  # plain dicts with str ids: the same values, from C
            return cls(entries, *found)
        return cls.scan(entries)

    @classmethod
    def scan(
        cls,
        entries: Sequence[Any],
        *,
        positions: dict[Any, int] | None = None,
        breaks: list[int] | None = None,
        headers: list[int] | None = None,
        slots: list[dict[str, Any] | None] | None = None,
        previous: Any = None,
        position: int = 0,
    ) -> RunTree:
        """The Python pass of `of` (from `position` on, continuing the lists given)."""
        positions = {} if positions is None else positions
        breaks = [] if breaks is None else breaks
        headers = [] if headers is None else headers
        slots = [] if slots is None else slots
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

    def extended(self, more: Sequence[Any]) -> RunTree:
        """The tree of these entries followed by `more` (this tree is left as it is); only
        `more` is scanned."""
        if not more:
            return self
        entries = (*self.entries, *more)
        previous = entry_key(self.entries[-1].get("id")) if self.entries else None
        return self.scan(
            entries,
            positions=dict(self.positions),
            breaks=list(self.breaks),
            headers=list(self.headers),
            slots=list(self.slots),
            previous=previous,
            position=len(self.entries),
        )

    def position(self, entry_id: Any) -> int | None:
        """`SessionTree.position`, a str id (its own key) looked up at once."""
        if type(entry_id) is str:
            return self.positions.get(entry_id)
        return SessionTree.position(self, entry_id)

    def without_headers(self) -> RunTree:
        """The tree of the entries other than `session` headers (`SessionManager`'s index)."""
        if not self.headers:
            return self
        return RunTree.of([e for e in self.entries if e.get("type") != "session"])

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
            if type(parent) is str:  # the usual parentId: its own key, truthy unless ""
                at = positions.get(parent) if parent else None
            else:
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
        return joined(self.entries, ranges)
