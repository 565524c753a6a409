"""Pi 0.85.0 session files and trees: parsing JSONL, paths, the projected context.

Decides which messages a session gives the model: `parse_session_entries` (JSONL, v3),
`index_entries` (id -> entry, a later duplicate winning, as Pi's map does),
`build_session_path` (root -> leaf by `parentId`), `build_context_entries` (the latest
compaction's projection, SS-1), `session_entry_to_context_messages`, and
`build_session_context` (messages, thinking level, model). `check_tree` is the strict
check Pi does not make: duplicate ids, missing parents, cycles.

Entries are Pi's JSON objects. Where Pi follows a `parentId` cycle forever, or throws on
an entry that is not an object, these functions raise `InvalidInput` instead.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

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
    "ParsedSession",
    "SessionContext",
    "SkippedLine",
    "build_context_entries",
    "build_session_context",
    "build_session_path",
    "check_tree",
    "entry_key",
    "index_entries",
    "js_truthy",
    "parse_session_entries",
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
    entries: list[Any] = []
    skipped: list[SkippedLine] = []
    for offset, line in enumerate(body.split("\n")):
        if not line.strip(_JS_SPACE):
            continue
        try:
            entries.append(_json_parse(line))
        except ValueError as error:
            skipped.append(SkippedLine(line=first_line + offset, reason=f"not JSON: {error}"))
    return ParsedSession(entries=tuple(entries), skipped=tuple(skipped))


def index_entries(entries: Sequence[Any]) -> dict[Any, Entry]:
    """id -> entry, a later entry with the same id replacing the earlier (Pi's Map)."""
    index: dict[Any, Entry] = {}
    for position, entry in enumerate(entries):
        if type(entry) is not dict and not isinstance(entry, Mapping):  # dict: skip the ABC
            raise InvalidInput(f"entries[{position}]", "an entry must be an object")
        index[entry_key(entry.get("id"))] = entry
    return index


def build_session_path(entries: Sequence[Any], leaf_id: Any = UNSET) -> tuple[Entry, ...]:
    """Root -> leaf along `parentId` (SS-1).

    `leaf_id` None gives `()`; UNSET, a falsy or an unknown id starts at the last entry
    (Pi falls back silently). A parent that is not in the entries ends the walk there.
    Raises `InvalidInput` on a `parentId` cycle (Pi loops forever).
    """
    index = index_entries(entries)
    if leaf_id is None:
        return ()
    leaf = index.get(entry_key(leaf_id)) if js_truthy(leaf_id) else None
    if leaf is None:
        if not entries:
            return ()
        leaf = entries[-1]
    return walk_to_root(index, leaf)


def build_context_entries(entries: Sequence[Any], leaf_id: Any = UNSET) -> tuple[Entry, ...]:
    """The path with only the latest compaction's projection (SS-1).

    `[compaction, entries from its firstKeptEntryId up to it, every entry after it]`;
    a `firstKeptEntryId` not on the path keeps only the entries after the compaction.
    """
    return _project(build_session_path(entries, leaf_id))


def _project(path: tuple[Entry, ...]) -> tuple[Entry, ...]:
    latest = next((e for e in reversed(path) if e.get("type") == "compaction"), None)
    if latest is None:
        return path
    # SS-1: the first entry with the compaction's id marks it (ids are assumed unique)
    at = next(
        i for i, e in enumerate(path) if entry_key(e.get("id")) == entry_key(latest.get("id"))
    )
    kept_from = next(
        (
            i
            for i in range(at)
            if entry_key(path[i].get("id")) == entry_key(latest.get("firstKeptEntryId"))
        ),
        at,
    )
    return (latest, *path[kept_from:at], *path[at + 1 :])


def session_entry_to_context_messages(entry: Entry) -> tuple[dict[str, Any], ...]:
    """The messages one entry contributes to the context (none for metadata entries)."""
    kind = entry.get("type")
    if kind == "message":
        message = entry.get("message")
        if not isinstance(message, Mapping):
            raise InvalidInput("message", "a message entry needs a message object")
        # SS-2: null content of a user/assistant/toolResult message reads as []
        if message.get("role") in MESSAGE_ROLES_WITH_CONTENT and message.get("content") is None:
            return ({**message, "content": []},)
        return (dict(message),)
    if kind == "custom_message":
        content = entry.get("content")
        return (create_custom_message(entry, [] if content is None else content),)
    if kind == "branch_summary" and js_truthy(entry.get("summary")):
        return (create_branch_summary_message(entry),)
    if kind == "compaction":
        return (create_compaction_summary_message(entry),)
    return ()


def build_session_context(entries: Sequence[Any], leaf_id: Any = UNSET) -> SessionContext:
    """Pi's `buildSessionContext`: the projected messages, thinking level and model."""
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
            message = entry.get("message")
            if not isinstance(message, Mapping):
                raise InvalidInput("message", "a message entry needs a message object")
            if message.get("role") == "assistant":
                model = _present(
                    provider=message.get("provider", UNSET), modelId=message.get("model", UNSET)
                )
    messages = tuple(m for e in _project(path) for m in session_entry_to_context_messages(e))
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


def _json_parse(line: str) -> Any:
    def reject(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")

    match = _JSON_SPACE.match(line)
    start = match.end() if match else 0
    if line[start : start + 1] == "":
        raise ValueError("empty")
    try:
        return json.loads(line, parse_constant=reject)
    except json.JSONDecodeError as error:
        raise ValueError(f"{error.msg} at column {error.colno}") from None
