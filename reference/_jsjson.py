"""`JSON.stringify` of a parsed JSON value, as JavaScript writes it.

Token estimates count `JSON.stringify(arguments).length`, so the exact text matters:
compact separators, non-ASCII written raw, lone surrogates escaped as `\\udXXX`, numbers
printed as `String(n)` (`1.0` is `1`), and object keys in JavaScript's order (keys that
are array indices first, ascending, then the others as inserted). Also `js_map_key`: which
parsed values a JavaScript `Map` tells apart, wherever Pi keys one by a parsed value.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from reference._jsnum import js_number_to_string

__all__ = ["js_map_key", "js_own_keys", "js_stringify"]

_SHORT = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_MAX_INDEX = 2**32 - 2


def js_stringify(value: Any) -> str:
    """`JSON.stringify(value)` for a value made of dict, list, str, int, float, bool, None.

    >>> js_stringify({"b": 1.0, "2": [True, None], "1": "é\\ud83d"})
    '{"1":"é\\\\ud83d","2":[true,null],"b":1}'
    """
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int | float):
        if isinstance(value, float) and not math.isfinite(value):
            return "null"
        return js_number_to_string(value)
    if isinstance(value, str):
        return _quote(value)
    if isinstance(value, list | tuple):
        return "[" + ",".join(js_stringify(item) for item in value) + "]"
    if isinstance(value, dict):
        members = (f"{_quote(k)}:{js_stringify(value[k])}" for k in js_own_keys(value))
        return "{" + ",".join(members) + "}"
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def js_own_keys(obj: Mapping[Any, Any]) -> list[str]:
    """An object's keys in JavaScript's order: array indices (ASCII decimal, no leading
    zero, up to 2**32 - 2) ascending, then the other keys as they were inserted.

    >>> js_own_keys({"b": 0, "4294967295": 0, "\u0661": 0, "10": 0, "2": 0})
    ['2', '10', 'b', '4294967295', '١']
    """
    keys = [str(key) for key in obj]
    return sorted((k for k in keys if _is_index(k)), key=int) + [
        k for k in keys if not _is_index(k)
    ]


def _is_index(key: str) -> bool:
    return (
        key.isdigit() and key.isascii() and (key == "0" or key[0] != "0") and int(key) <= _MAX_INDEX
    )


def _quote(text: str) -> str:
    out = ['"']
    for char in text:
        code = ord(char)
        if char in _SHORT:
            out.append(_SHORT[char])
        elif code < 0x20 or 0xD800 <= code <= 0xDFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def js_map_key(value: Any) -> tuple[str, Any]:
    """A key that is equal for two parsed values exactly when a JavaScript `Map` takes them
    for the same key (SameValueZero): `1` and `1.0` alike, `true` not `1`, `"1"` not `1`,
    an object or array only itself.

    >>> js_map_key(1) == js_map_key(1.0), js_map_key(True) == js_map_key(1)
    (True, False)
    """
    if isinstance(value, bool) or value is None:
        return ("atom", value)
    if isinstance(value, int | float):
        return ("number", float(value))
    if isinstance(value, str):
        return ("string", value)
    return ("object", id(value))
