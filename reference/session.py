"""Pi 0.85.0 session trees: paths, the projected context.

Decides which messages a session gives the model (the JSONL text of a v3 file is read by
`ctxspec.reference.session_file`): `index_entries` (id -> entry, a later duplicate
winning, as Pi's map does), `SessionTree` (the entries indexed once, what Pi's
`SessionManager` holds), `build_session_path` (root -> leaf by `parentId`),
`build_context_entries` (the latest compaction's projection, SS-1),
`session_entry_to_context_messages`, and `build_session_context` (messages, thinking
level, model). `check_tree` is the strict check Pi does not make: duplicate ids,
missing parents, cycles.

The helpers take a list of entries or a `SessionTree` (the entries with their index, what
Pi's `SessionManager` holds). Each is Pi's algorithm written plainly: a path is walked one
`parentId` at a time through the index, a context is the projection of that path. This
is the oracle; `fastengine` answers the same faster (runs of entries, C passes), and is
checked against these functions. Context messages are the entries' own message objects,
as in Pi: copy one before changing it.

Entries are Pi's JSON objects. A session file may also hold JSON lines that are not
objects (`42`, `"x"`, `[1]`, `true`): JavaScript reads every field of such a value as
undefined, so Pi passes over it as an entry of no type, no id and no parent.
`as_entries` wraps each in a `Fieldless` mapping, which reads the same way here. Where Pi
follows a `parentId` cycle forever, or throws on a `null` entry, these functions raise
`InvalidInput` instead.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ctxspec.reference._jsjson import js_truthy  # re-exported: `if (value)` of a JSON value
from ctxspec.reference.errors import InvalidInput
from ctxspec.reference.messages import (
    create_branch_summary_message,
    create_compaction_summary_message,
    create_custom_message,
    role_of,
)

__all__ = [
    "CURRENT_SESSION_VERSION",
    "ENTRY_TYPES",
    "MESSAGE_ROLES_WITH_CONTENT",
    "UNSET",
    "Fieldless",
    "NullEntry",
    "SessionContext",
    "SessionTree",
    "as_entries",
    "build_context_entries",
    "build_session_context",
    "build_session_path",
    "check_tree",
    "entry_key",
    "index_entries",
    "js_truthy",
    "kept_from_position",
    "leaf_position",
    "message_of",
    "plain_entry",
    "project_path",
    "session_entry_to_context_messages",
    "walk_to_root",
]

CURRENT_SESSION_VERSION: Final = 3
# §10: the entry types Pi 0.85.0 writes to a v3 session file, its header (`session`) first;
# an entry of any other type projects nothing (SS-2). The corpus's tests read this table to
# find an op that no case shows one of them (tests/corpora/test_entry_types.py).
ENTRY_TYPES: Final = (
    "session",
    "message",
    "thinking_level_change",
    "model_change",
    "compaction",
    "branch_summary",
    "custom",
    "custom_message",
    "label",
    "session_info",
)
# SS-2: a message of these roles with null or missing content is projected with `[]`
MESSAGE_ROLES_WITH_CONTENT: Final = frozenset({"user", "assistant", "toolResult"})

Entry = Mapping[str, Any]


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


def as_entries(values: Sequence[Any]) -> list[Any]:
    """`values` read as Pi reads them: a JSON value that is not an object as `Fieldless`,
    a `null` as `NullEntry`, an object as it is."""
    return [
        value
        if isinstance(value, Mapping)
        else NullEntry(position)
        if value is None
        else Fieldless(value)
        for position, value in enumerate(values)
    ]


def plain_entry(entry: Entry) -> Any:
    """The JSON value of an entry: a copy of its fields, or what a `Fieldless` held."""
    return entry.value if type(entry) is Fieldless else dict(entry)


class _Unset:
    def __repr__(self) -> str:
        return "UNSET"


UNSET: Final = _Unset()  # an absent `leafId` (JS `undefined`), unlike `None` (JS `null`)


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


def index_entries(entries: Sequence[Any]) -> dict[Any, Entry]:
    """id -> entry, a later entry with the same id replacing the earlier (Pi's Map)."""
    return SessionTree.of(entries).index()


@dataclass(frozen=True, slots=True)
class SessionTree:
    """A session's entries with their index: what Pi's `SessionManager` keeps in memory.

    `SessionTree.of(entries)` indexes them once; the helpers that take entries also take
    a tree, so a caller asking several questions of one session indexes it once.
    `get(id)` is the entry with that id (a later duplicate winning, as in Pi's map);
    `path_to(position)` the root -> leaf walk of `walk_to_root`. The entries are held,
    not copied: they must not change while the tree is in use.

    An engine may subclass it to walk faster (`ctxspec.fastengine.tree.RunTree` walks runs of
    consecutive entries); every helper here takes such a tree as it is.
    """

    entries: Sequence[Entry]
    positions: Mapping[Any, int]  # entry_key(id) -> position of the last entry with it

    @classmethod
    def of(cls, entries: Sequence[Any] | SessionTree) -> SessionTree:
        """The tree of `entries` (a tree is returned as it is).

        Raises `InvalidInput` naming the first entry that is not an object.
        """
        if isinstance(entries, SessionTree):
            return entries
        positions: dict[Any, int] = {}
        for position, entry in enumerate(entries):
            if not isinstance(entry, Mapping):
                raise InvalidInput(f"entries[{position}]", "an entry must be an object")
            positions[entry_key(entry.get("id"))] = position
        return SessionTree(entries, positions)

    def extended(self, more: Sequence[Any]) -> SessionTree:
        """The tree of these entries followed by `more` (this tree is left as it is)."""
        return SessionTree.of((*self.entries, *more))

    def without_headers(self) -> SessionTree:
        """The tree of the entries other than `session` headers (`SessionManager`'s index)."""
        return SessionTree.of([e for e in self.entries if e.get("type") != "session"])

    def get(self, entry_id: Any) -> Entry | None:
        """The entry with this id, or None (`SessionManager.getEntry`)."""
        position = self.position(entry_id)
        return None if position is None else self.entries[position]

    def position(self, entry_id: Any) -> int | None:
        """Where the entry with this id is in `entries`, or None."""
        return self.positions.get(entry_key(entry_id))

    def index(self) -> dict[Any, Entry]:
        """entry_key(id) -> entry, as `index_entries` gives it."""
        return {key: self.entries[at] for key, at in self.positions.items()}

    def path_to(self, leaf: int) -> tuple[Entry, ...]:
        """Root -> the entry at position `leaf`, one `parentId` at a time (`walk_to_root`).

        Raises `InvalidInput` on a `parentId` cycle.
        """
        return walk_to_root(self.index(), self.entries[leaf])


def build_session_path(
    entries: Sequence[Any] | SessionTree, leaf_id: Any = UNSET
) -> tuple[Entry, ...]:
    """Root -> leaf along `parentId` (SS-1).

    `leaf_id` None gives `()`; UNSET, a falsy or an unknown id starts at the last entry
    (Pi falls back silently). A parent that is not in the entries ends the walk there.
    Raises `InvalidInput` on a `parentId` cycle (Pi loops forever).
    """
    tree = SessionTree.of(entries)
    leaf = leaf_position(tree, leaf_id)
    return () if leaf is None else tree.path_to(leaf)


def leaf_position(tree: SessionTree, leaf_id: Any) -> int | None:
    """The leaf's position: None for no path, the last entry when the id is not found (SS-4)."""
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
    return project_path(build_session_path(entries, leaf_id))


def project_path(path: Sequence[Entry]) -> tuple[Entry, ...]:
    """`build_context_entries` of a path: the latest compaction's projection of it (SS-1)."""
    latest = next((i for i in range(len(path) - 1, -1, -1) if _kind(path[i]) == "compaction"), -1)
    if latest < 0:
        return tuple(path)
    kept_from = kept_from_position(path, latest)
    return (path[latest], *path[kept_from:latest], *path[latest + 1 :])


def _kind(entry: Entry) -> Any:
    return entry.get("type")


def kept_from_position(path: Sequence[Entry], at: int) -> int:
    """Where the compaction at `path[at]` starts keeping: its firstKeptEntryId, else `at`.

    A path holds each id once (it is walked through an index), so the entry with the kept
    id is the one found walking back from the compaction.
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
        return (message_of(entry),)
    if kind == "custom_message":
        content = entry.get("content")
        return (create_custom_message(entry, [] if content is None else content),)
    if kind == "branch_summary" and js_truthy(entry.get("summary")):
        return (create_branch_summary_message(entry),)
    if kind == "compaction":
        return (create_compaction_summary_message(entry),)
    return ()


def message_of(entry: Entry) -> dict[str, Any]:
    """The message of a `message` entry as the context carries it (SS-2).

    Raises `InvalidInput` when the entry's message is not an object.
    """
    message = entry.get("message")
    if type(message) is not dict:  # (a dict, the usual message, needs no ABC check)
        if not isinstance(message, Mapping):
            raise InvalidInput("message", "a message entry needs a message object")
        message = dict(message)
    # SS-2: null content of a user/assistant/toolResult message reads as []
    if message.get("content") is None and role_of(message) in MESSAGE_ROLES_WITH_CONTENT:
        return {**message, "content": []}
    return message


def build_session_context(
    entries: Sequence[Any] | SessionTree, leaf_id: Any = UNSET
) -> SessionContext:
    """Pi's `buildSessionContext`: the projected messages, thinking level and model.

    One walk along the path gives the settings: the latest `thinking_level_change` sets
    the thinking level ("off" without one), the latest assistant message or
    `model_change` the model (None without one). Every message entry of the path is read,
    so one whose message is not an object raises `InvalidInput`, projected or not. The
    messages are those of the projected path (`build_context_entries`).
    """
    path = build_session_path(entries, leaf_id)
    thinking: Any = "off"
    model: dict[str, Any] | None = None
    for entry in path:
        kind = entry.get("type")
        if kind == "thinking_level_change":
            thinking = entry.get("thinkingLevel", UNSET)
        elif kind == "model_change":
            model = _present(
                provider=entry.get("provider", UNSET), modelId=entry.get("modelId", UNSET)
            )
        elif kind == "message":
            message = message_of(entry)
            if message.get("role") == "assistant":
                model = _present(
                    provider=message.get("provider", UNSET), modelId=message.get("model", UNSET)
                )
    messages = tuple(
        m for entry in project_path(path) for m in session_entry_to_context_messages(entry)
    )
    return SessionContext(messages=messages, thinking_level=thinking, model=model)


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
