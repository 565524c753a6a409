"""Pi 0.85.0's session versions: what `SessionManager` holds after loading entries.

Decides what the ops built on a session manager (`branch.collect`, `session.navigate`,
`session.run`) see of a session's entries: `load_session` (Pi's `_loadEntries` and
`_buildIndex`: the entries without their headers, migrated to version 3 when a header
asks for it, and the leaf), `migrate_session_entries` and `session_version`. The other
session ops read entries as given, with no migration (Pi's `parseSessionEntries` and
`buildSessionContext` do not migrate).

The migrations (rule SS-7) run only when the entries hold a header (the first entry of
type `session`) whose `version` is below 3; a missing or null version reads as 1:

- **v1 -> v2** gives every entry but the headers a new id and the entry before it as
  parent (`null` for the first), and turns a compaction's numeric
  `firstKeptEntryIndex` into the `firstKeptEntryId` of the entry at that index (unless
  that is a header or there is none), dropping the index. Pi draws each id at random
  (8 hex digits); here, as in the protocol, the n-th is named `m-n`.
- **v2 -> v3** gives a `message` entry's `hookMessage` role the name `custom`.

Both mark every header with the version they reach. Without a header Pi starts a new
session and appends the entries to it as they are.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ctxspec.reference._jsjson import js_to_number
from ctxspec.reference.errors import InvalidInput
from ctxspec.reference.session import UNSET, Fieldless, NullEntry, as_entries

__all__ = [
    "CURRENT_SESSION_VERSION",
    "MIGRATED_ID_PREFIX",
    "LoadedSession",
    "load_session",
    "migrate_session_entries",
    "session_version",
]

CURRENT_SESSION_VERSION: Final = 3
MIGRATED_ID_PREFIX: Final = "m-"  # the n-th id the v1 -> v2 migration draws is m-n


@dataclass(frozen=True, slots=True, kw_only=True)
class LoadedSession:
    """What a `SessionManager` made from entries holds: its entries (`getEntries()`, no
    headers) and its leaf: the last entry's id, `UNSET` when it has none (JavaScript's
    undefined), None when there are no entries."""

    entries: tuple[Any, ...]
    leaf_id: Any


def session_version(entries: Sequence[Any]) -> float | None:
    """The version the first header declares, as JavaScript's `version < 3` reads it
    (a missing or null version is 1, a string its number, NaN as `nan`); None without a
    header. Raises `InvalidInput` for a null entry before the header (Pi's `find` throws
    reading its type)."""
    for position, entry in enumerate(entries):
        if entry is None:
            raise InvalidInput(f"entries[{position}]", "an entry must not be null")
        if isinstance(entry, Mapping) and entry.get("type") == "session":
            version = entry.get("version")
            return 1.0 if version is None else js_to_number(version)
    return None


def migrate_session_entries(entries: Sequence[Any]) -> list[Any]:
    """The entries migrated to version 3 as Pi's `migrateSessionEntries` does (SS-7), on
    copies: entries that change are new dicts, the others are the given objects.

    Raises `InvalidInput` where Pi throws: a migration reading a null entry, or the
    v1 -> v2 migration setting an id on an entry that is not an object.

    >>> old = [{"type": "session"}, {"type": "message", "message": {"role": "hookMessage"}}]
    >>> [(e.get("id"), e.get("parentId"), e.get("version")) for e in migrate_session_entries(old)]
    [(None, None, 3), ('m-1', None, None)]
    >>> migrate_session_entries(old)[1]["message"]["role"]
    'custom'
    """
    entries = [_raw(entry) for entry in entries]
    version = session_version(entries)
    if version is None or version >= CURRENT_SESSION_VERSION:
        return entries
    migrated = entries
    if version < 2:
        migrated = _v1_to_v2(migrated)
    if version < 3:
        migrated = _v2_to_v3(migrated)
    return migrated


def _v1_to_v2(entries: list[Any]) -> list[Any]:
    out: list[Any] = []
    previous: str | None = None
    drawn = 0
    for position, entry in enumerate(entries):
        _refuse_null(entry, position)
        if not isinstance(entry, Mapping):
            raise InvalidInput(f"entries[{position}]", "an entry of a v1 session must be an object")
        if entry.get("type") == "session":
            out.append({**entry, "version": 2})
            continue
        drawn += 1
        new = {**entry, "id": f"{MIGRATED_ID_PREFIX}{drawn}", "parentId": previous}
        previous = new["id"]
        out.append(new)
    # a compaction's firstKeptEntryIndex names the entry at that index, once all have ids
    for position, entry in enumerate(out):
        if entry.get("type") == "compaction" and _is_number(entry.get("firstKeptEntryIndex")):
            target = _at(out, entry["firstKeptEntryIndex"])
            fields = {key: value for key, value in entry.items() if key != "firstKeptEntryIndex"}
            if isinstance(target, Mapping) and target.get("type") != "session":
                fields["firstKeptEntryId"] = target.get("id")
            out[position] = fields
    return out


def _v2_to_v3(entries: list[Any]) -> list[Any]:
    out: list[Any] = []
    for position, entry in enumerate(entries):
        _refuse_null(entry, position)
        if not isinstance(entry, Mapping):
            out.append(entry)
        elif entry.get("type") == "session":
            out.append({**entry, "version": 3})
        elif entry.get("type") == "message" and _is_hook_message(entry.get("message")):
            out.append({**entry, "message": {**entry["message"], "role": "custom"}})
        else:
            out.append(entry)
    return out


def load_session(entries: Sequence[Any]) -> LoadedSession:
    """`SessionManager.inMemory(cwd, undefined, entries)`: the entries it holds and its leaf.

    With a header the entries are migrated (`migrate_session_entries`); the headers are
    left out either way. The leaf is the id of the last entry, whatever it is (`UNSET`
    when absent). Raises `InvalidInput` for a null entry (Pi's index reads every entry's type).
    """
    loaded = migrate_session_entries(entries)
    kept: list[Any] = []
    for position, entry in enumerate(loaded):
        _refuse_null(entry, position)
        if not (isinstance(entry, Mapping) and entry.get("type") == "session"):
            kept.append(entry)
    leaf: Any = None
    if kept:
        last = kept[-1]
        leaf = last.get("id", UNSET) if isinstance(last, Mapping) else UNSET
    return LoadedSession(entries=tuple(as_entries(kept)), leaf_id=leaf)


def _raw(entry: Any) -> Any:
    """The JSON value of an entry `as_entries` may have wrapped."""
    if type(entry) is Fieldless:
        return entry.value
    return None if type(entry) is NullEntry else entry


def _is_hook_message(message: Any) -> bool:
    return isinstance(message, Mapping) and message.get("role") == "hookMessage"


def _refuse_null(entry: Any, position: int) -> None:
    if entry is None:
        raise InvalidInput(f"entries[{position}]", "an entry must not be null")


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _at(items: list[Any], index: float) -> Any:
    """`items[index]` as JavaScript reads it: only an integral index within the list."""
    if not math.isfinite(index) or index != int(index) or not 0 <= index < len(items):
        return None
    return items[int(index)]
