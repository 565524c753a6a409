"""The builders of case files: long or invisible values written in a few readable lines.

A mapping with a key starting with `$` in a case's `args` or `expect` is a builder,
replaced by the value it builds when the case is loaded (`expand`, inside out, so
builders nest and YAML anchors can name one):

- `{$repeat: S, $times: N}`: S repeated N times (S a string, or a list: its items N
  times over);
- `{$concat: [part, ...]}`: the parts joined, strings into one string, lists into one list;
- `{$codeUnits: [0xD83D, ...]}`: the string of these UTF-16 code units (lone surrogates
  too);
- `{$lines: TEMPLATE, $count: N, $start: 1, $join: "\\n"}`: N numbered lines, TEMPLATE
  with `{n}` (Python's format: `{n:04}` pads) for n = start, start + 1, ..., joined;
- `{$session: [item, ...]}`: session entries from a script
  (`ctxspec.corpora.generators.sessions`);
- `{$slice: LIST, $from: ID or index, $to: ID or index}`: the items from `$from` up to,
  not including, `$to`; an id names the item with that `id`; either end may be left out;
- `{$messages: LIST}`: the `message` of each `message` entry of LIST, in order (the other
  entries are left out);
- `{$jsonl: LIST}`: a session file's text, each item as compact JSON on its own line,
  each line ending in `\\n`;
- `{$base64: STRING}`: the base64 of STRING's UTF-8 bytes (a `chunksB64` item whose
  bytes are text, e.g. `{$base64: {$lines: "{n}", $count: 3000}}`).

Repeated blocks nest the others: `{$repeat: {$concat: [{$repeat: y, $times: 1000}, "\\n"]},
$times: 60}` is 60 lines of 1000 `y`s.

Problems are `CorpusError`s naming where the builder is (`where`).
"""

from __future__ import annotations

import base64
import json
import struct
from collections.abc import Callable, Mapping
from typing import Any, Final, TypeGuard

from ctxspec.conformance.errors import CorpusError
from ctxspec.corpora.generators.sessions import session

__all__ = ["BUILDERS", "expand"]

_MAX_TIMES: Final = 1 << 30  # a builder may not ask for more than 1 Gi repetitions
_MAX_LINES: Final = 1 << 22


def expand(value: Any, where: str = "") -> Any:
    """Expand the builders inside a YAML value (recursively, innermost first)."""
    if isinstance(value, list):
        return [expand(item, where) for item in value]
    if not isinstance(value, dict):
        return value
    named = [key for key in value if isinstance(key, str) and key.startswith("$")]
    if not named:
        return {key: expand(item, where) for key, item in value.items()}
    builder = next((key for key in named if key in BUILDERS), None)
    if builder is None:
        raise CorpusError(f"{where}: unknown builder {sorted(named)}")
    keys, build = BUILDERS[builder]
    extra = set(value) - keys
    if extra:
        raise CorpusError(f"{where}: unexpected keys {sorted(extra)} beside {sorted(keys)}")
    return build({key: expand(item, where) for key, item in value.items()}, where)


def _repeat(value: dict[str, Any], where: str) -> Any:
    part, times = value["$repeat"], value.get("$times")
    if not isinstance(part, str | list) or not _count(times, _MAX_TIMES):
        raise CorpusError(f"{where}: $repeat takes a string or a list and $times a count 0..2**30")
    return part * times


def _concat(value: dict[str, Any], where: str) -> Any:
    parts = value["$concat"]
    if isinstance(parts, list) and all(isinstance(p, str) for p in parts):
        return "".join(parts)
    if isinstance(parts, list) and all(isinstance(p, list) for p in parts):
        return [item for part in parts for item in part]
    raise CorpusError(f"{where}: $concat takes a list of strings, or a list of lists")


def _code_units(value: dict[str, Any], where: str) -> str:
    units = value["$codeUnits"]
    if not isinstance(units, list) or not all(_count(u, 0xFFFF) for u in units):
        raise CorpusError(f"{where}: $codeUnits takes a list of integers 0..0xFFFF")
    return struct.pack(f"<{len(units)}H", *units).decode("utf-16-le", "surrogatepass")


def _lines(value: dict[str, Any], where: str) -> str:
    template, count = value["$lines"], value.get("$count")
    start, join = value.get("$start", 1), value.get("$join", "\n")
    if not isinstance(template, str) or not _count(count, _MAX_LINES):
        raise CorpusError(f"{where}: $lines takes a template string and $count a count 0..2**22")
    if not isinstance(start, int) or isinstance(start, bool) or not isinstance(join, str):
        raise CorpusError(f"{where}: $start takes an integer and $join a string")
    try:
        return join.join(template.format(n=n) for n in range(start, start + count))
    except (KeyError, IndexError, ValueError) as error:
        raise CorpusError(f"{where}: $lines template {template!r}: {error}") from None


def _session(value: dict[str, Any], where: str) -> list[dict[str, Any]]:
    try:
        return session(value["$session"])
    except ValueError as error:
        raise CorpusError(f"{where}: $session: {error}") from None


def _slice(value: dict[str, Any], where: str) -> list[Any]:
    items = value["$slice"]
    if not isinstance(items, list):
        raise CorpusError(f"{where}: $slice takes a list")
    start = _position(items, value.get("$from", 0), where)
    stop = _position(items, value.get("$to", len(items)), where)
    return items[start:stop]


def _position(items: list[Any], end: Any, where: str) -> int:
    if isinstance(end, int) and not isinstance(end, bool) and 0 <= end <= len(items):
        return end
    for at, item in enumerate(items):
        if isinstance(item, Mapping) and item.get("id") == end and isinstance(end, str):
            return at
    raise CorpusError(f"{where}: $slice end {end!r} is neither an index nor an entry's id")


def _messages(value: dict[str, Any], where: str) -> list[Any]:
    items = value["$messages"]
    if not isinstance(items, list):
        raise CorpusError(f"{where}: $messages takes a list of entries")
    return [
        item["message"]
        for item in items
        if isinstance(item, Mapping) and item.get("type") == "message" and "message" in item
    ]


def _jsonl(value: dict[str, Any], where: str) -> str:
    items = value["$jsonl"]
    if not isinstance(items, list):
        raise CorpusError(f"{where}: $jsonl takes a list")
    return "".join(
        json.dumps(item, ensure_ascii=False, separators=(",", ":")) + "\n" for item in items
    )


def _base64(value: dict[str, Any], where: str) -> str:
    text = value["$base64"]
    if not isinstance(text, str):
        raise CorpusError(f"{where}: $base64 takes a string")
    try:
        return base64.b64encode(text.encode("utf-8")).decode("ascii")
    except UnicodeEncodeError:
        raise CorpusError(
            f"{where}: $base64 takes text UTF-8 can encode (no lone surrogate)"
        ) from None


def _count(value: Any, most: int) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= most


# builder key -> (the keys it takes, the function building its value)
BUILDERS: Final[dict[str, tuple[set[str], Callable[[dict[str, Any], str], Any]]]] = {
    "$repeat": ({"$repeat", "$times"}, _repeat),
    "$concat": ({"$concat"}, _concat),
    "$codeUnits": ({"$codeUnits"}, _code_units),
    "$lines": ({"$lines", "$count", "$start", "$join"}, _lines),
    "$session": ({"$session"}, _session),
    "$slice": ({"$slice", "$from", "$to"}, _slice),
    "$messages": ({"$messages"}, _messages),
    "$jsonl": ({"$jsonl"}, _jsonl),
    "$base64": ({"$base64"}, _base64),
}
