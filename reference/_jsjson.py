"""Parsed JSON values as JavaScript handles them: `JSON.parse`, `JSON.stringify`, objects.

Token estimates count `JSON.stringify(arguments).length`, so the exact text matters:
compact separators, non-ASCII written raw, lone surrogates escaped as `\\udXXX`, numbers
printed as `String(n)` (`1.0` is `1`), and object keys in JavaScript's order (keys that
are array indices first, ascending, then the others as inserted). Also `js_map_key`: which
parsed values a JavaScript `Map` tells apart, wherever Pi keys one by a parsed value.

Where Python's idiom for a JSON value answers otherwise than JavaScript, the JavaScript
answer is here:

- `js_parse`: `JSON.parse`, which refuses the `NaN` and `Infinity` Python's `json` takes;
- `js_truthy`: `if (value)`, where `[]` and `{}` are true and `NaN` false;
- `js_string` and `js_join`: `String(value)` and `array.join(sep)`, where `null` and
  `undefined` items join as `""` (never `"None"`) and numbers print as JavaScript prints them;
- `js_to_number`: `Number(value)`, which reads ASCII digits only (`float("٢")` is 2.0);
- `js_property`: `obj[key]` on an object made by `JSON.parse`, which finds
  `Object.prototype`'s members (`constructor`, `toString`, `__proto__`, ...) too;
- `js_assign`: `obj[key] = value`, where the key `__proto__` sets the prototype and adds
  no key.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from typing import Any, Final

from ctxspec.reference._jsnum import js_number_to_string
from ctxspec.reference._utf16 import JS_SPACE

__all__ = [
    "OBJECT_PROTOTYPE",
    "js_assign",
    "js_join",
    "js_map_key",
    "js_own_keys",
    "js_parse",
    "js_property",
    "js_string",
    "js_stringify",
    "js_to_number",
    "js_truthy",
]

_SHORT = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_MAX_INDEX = 2**32 - 2
# The types whose Python truth is JavaScript's (`js_truthy`), checked by exact type before
# `isinstance(value, Mapping | list)`: that check runs `ABCMeta.__instancecheck__`, about
# 3,100 more instructions a call on a str (an entry's parentId, every entry of a walk), and
# about 110k the first time a process asks it of a type (an int: the usage's totalTokens)
_TRUTH_AS_PYTHON: Final = frozenset({str, int, bool, type(None)})


def js_stringify(value: Any, indent: int = 0, *, _depth: int = 0) -> str:
    """`JSON.stringify(value, null, indent)` for a value made of dict, list, str, int,
    float, bool, None (`indent` 0: compact, as `JSON.stringify(value)`).

    >>> js_stringify({"b": 1.0, "2": [True, None], "1": "é\\ud83d"})
    '{"1":"é\\\\ud83d","2":[true,null],"b":1}'
    >>> print(js_stringify({"10": True, "9": [1]}, 2))
    {
      "9": [
        1
      ],
      "10": true
    }
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
    inner = _depth + 1
    if isinstance(value, list | tuple):
        items = [js_stringify(item, indent, _depth=inner) for item in value]
        return _bracketed("[", items, "]", indent, _depth)
    if isinstance(value, dict):
        colon = ": " if indent else ":"
        members = [
            f"{_quote(k)}{colon}{js_stringify(value[k], indent, _depth=inner)}"
            for k in js_own_keys(value)
        ]
        return _bracketed("{", members, "}", indent, _depth)
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def _bracketed(open_: str, items: list[str], close: str, indent: int, depth: int) -> str:
    if not items:
        return open_ + close
    if not indent:
        return open_ + ",".join(items) + close
    inside = "\n" + " " * (indent * (depth + 1))
    return open_ + inside + ("," + inside).join(items) + "\n" + " " * (indent * depth) + close


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


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def js_parse(text: str) -> Any:
    """`JSON.parse(text)`: raises `ValueError` where JavaScript throws a SyntaxError,
    `NaN`, `Infinity` and `-Infinity` included (Python's `json.loads` takes them).

    >>> js_parse('{"a": [1, 2.5]}')
    {'a': [1, 2.5]}
    >>> js_parse('{"a": NaN}')
    Traceback (most recent call last):
    ValueError: NaN is not JSON
    """
    return json.loads(text, parse_constant=_no_constant)


def js_truthy(value: Any) -> bool:
    """`if (value)` for a JSON value: `{}` and `[]` are true; `""`, 0, `NaN`, null false.

    >>> js_truthy([]), js_truthy({}), js_truthy(""), js_truthy(0.0), js_truthy(math.nan)
    (True, True, False, False, False)
    """
    if type(value) in _TRUTH_AS_PYTHON:  # an id, a count, a flag: read first, and cheaply
        return bool(value)
    if isinstance(value, Mapping | list):
        return True
    if isinstance(value, float) and math.isnan(value):
        return False
    return bool(value)


def js_string(value: Any) -> str:
    """`String(value)` for a JSON value (`[object Object]` for an object).

    >>> js_string([1, None, "a"]), js_string(2.0), js_string({"a": 1}), js_string(1e-7)
    ('1,,a', '2', '[object Object]', '1e-7')
    """
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, int | float):
        return js_number_to_string(value)
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return js_join(value, ",")
    return "[object Object]"


def js_join(items: Iterable[Any], separator: str) -> str:
    """`items.join(separator)`: null (and a missing value, None here) joins as `""`.

    >>> js_join(["a", None, 1.0, True], "|")
    'a||1|true'
    """
    return separator.join("" if item is None else js_string(item) for item in items)


# ECMAScript's StringNumericLiteral, after trimming: ASCII digits only
_JS_NUMBER: Final = re.compile(
    r"[+-]?(?:Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)"
    r"|0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+"
)


def js_to_number(value: Any) -> float:
    """`Number(value)` for a JSON value (an array or object through its string).

    >>> js_to_number(" 0x1F "), js_to_number("2e3"), js_to_number(["7"]), js_to_number("")
    (31.0, 2000.0, 7.0, 0.0)
    >>> [math.isnan(js_to_number(s)) for s in ("\u0662", "-0x1", "1_0", "{}")]
    [True, True, True, True]
    """
    if value is None:
        return 0.0
    if isinstance(value, bool | int | float):
        return float(value)
    text = (value if isinstance(value, str) else js_string(value)).strip(JS_SPACE)
    if not text:
        return 0.0
    if _JS_NUMBER.fullmatch(text) is None:
        return math.nan
    if text[:2] in ("0x", "0X", "0o", "0O", "0b", "0B"):
        return float(int(text, 0))
    return float(text.replace("Infinity", "inf"))


# `obj[key]` on a plain object finds these on `Object.prototype` when the object lacks
# them: each as `String()` shows it (the functions' source text, the prototype itself)
OBJECT_PROTOTYPE: Final = {
    **{
        name: f"function {name}() {{ [native code] }}"
        for name in (
            "__defineGetter__",
            "__defineSetter__",
            "hasOwnProperty",
            "__lookupGetter__",
            "__lookupSetter__",
            "isPrototypeOf",
            "propertyIsEnumerable",
            "toString",
            "valueOf",
            "toLocaleString",
        )
    },
    "constructor": "function Object() { [native code] }",
    "__proto__": "[object Object]",
}


def js_property(obj: Mapping[str, Any], key: str) -> Any:
    """`obj[key]` on an object `JSON.parse` made: its own value, else `Object.prototype`'s
    member of that name (as its `String()` text: a function or an object, so truthy),
    else None (undefined).

    >>> js_property({}, "toString"), js_property({"toString": 1}, "toString"), js_property({}, "x")
    ('function toString() { [native code] }', 1, None)
    """
    if key in obj:
        return obj[key]
    return OBJECT_PROTOTYPE.get(key)


def js_assign(obj: dict[str, Any], key: str, value: Any) -> None:
    """`obj[key] = value` on a plain object: the key `__proto__` is `Object.prototype`'s
    setter (it changes the prototype, or nothing), so no own key is added.

    >>> obj: dict[str, Any] = {}
    >>> js_assign(obj, "__proto__", None); js_assign(obj, "a", 1); obj
    {'a': 1}
    """
    if key != "__proto__":
        obj[key] = value
