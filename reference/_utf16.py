"""JavaScript strings in Python: UTF-16 code units, lone surrogates, `slice`, `trim`, `<`.

Pi measures `line.length` and cuts with `line.slice()`, both in UTF-16 code units, and a
JS string may hold a lone surrogate. A Python `str` models such a string when every
surrogate pair is combined into one astral code point and only *lone* surrogates remain
as surrogate code points: `canonical()` makes that so, and every function here assumes it.

Where Python's own string methods differ from JavaScript's, the JavaScript one is here:
`js_trim` (`trim()` strips `JS_SPACE`, which holds U+FEFF and not `str.strip`'s
U+001C-U+001F and U+0085), `utf16_key` (the order of `sort()` and `<`: UTF-16 code
units, so an astral character sorts before U+E000-U+FFFF), `units` (the code units
themselves, for positions and columns counted as JavaScript counts them).
"""

from __future__ import annotations

import math
import re
from typing import Final

__all__ = [
    "JS_SPACE",
    "canonical",
    "code_units",
    "has_surrogates",
    "js_slice",
    "js_trim",
    "relative_index",
    "to_integer_or_infinity",
    "units",
    "utf16_key",
]

# ECMAScript's WhiteSpace and LineTerminator: what `trim()` strips and regex `\s` matches
JS_SPACE: Final = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)

_SURROGATE = re.compile("[\ud800-\udfff]")
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def has_surrogates(text: str) -> bool:
    """Whether `text` holds any surrogate code point (paired or lone)."""
    return _SURROGATE.search(text) is not None


def canonical(text: str) -> str:
    """Combine surrogate pairs written as two code points; keep lone surrogates.

    >>> canonical("\\ud83d\\ude42") == "\\U0001f642"
    True
    """
    if not has_surrogates(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def code_units(text: str) -> int:
    """`text.length` in JavaScript: astral characters count twice.

    >>> code_units("a\\U0001f642")
    3
    """
    if text.isascii():
        return len(text)
    return len(text) + len(_ASTRAL.findall(text))


def to_integer_or_infinity(value: float) -> float:
    """ECMAScript ToIntegerOrInfinity for a finite or infinite number (truncate toward 0)."""
    if math.isnan(value):
        return 0
    if math.isinf(value):
        return value
    return math.trunc(value)


def js_slice(text: str, start: float, end: float | None = None) -> str:
    """`text.slice(start, end)` in JavaScript, in code units; may split a surrogate pair.

    >>> js_slice("x\\U0001f642y", 0, 2) == "x\\ud83d"
    True
    >>> js_slice("abc", 0, -1)
    'ab'
    """
    if start == 0 and end is not None and 0 <= end <= len(text):
        # a prefix: at most `end` code points hold the first `end` code units
        text = text[: int(to_integer_or_infinity(end))]
    length = code_units(text)
    lo = relative_index(start, length)
    hi = length if end is None else relative_index(end, length)
    if hi <= lo:
        return ""
    if length == len(text):  # no astral characters: code units are code points
        return text[lo:hi]
    units = text.encode("utf-16-le", "surrogatepass")
    return units[2 * lo : 2 * hi].decode("utf-16-le", "surrogatepass")


def relative_index(position: float, length: int) -> int:
    """A `slice` bound as JavaScript reads it: truncated, counted from the end if negative."""
    relative = to_integer_or_infinity(position)
    if relative < 0:
        return int(max(length + relative, 0))
    return int(min(relative, length))


def js_trim(text: str) -> str:
    """`text.trim()`: strips `JS_SPACE`, unlike `str.strip()` (which keeps U+FEFF and
    strips U+001C-U+001F and U+0085).

    >>> js_trim("\\ufeff x \\x1f")
    'x \\x1f'
    """
    return text.strip(JS_SPACE)


def units(text: str) -> str:
    """`text` as UTF-16 code units, one Python character each (astral ones split).

    >>> [hex(ord(u)) for u in units("a\\U0001f642")]
    ['0x61', '0xd83d', '0xde42']
    """
    if all(ord(c) <= 0xFFFF for c in text):
        return text
    out: list[str] = []
    for char in text:
        point = ord(char)
        if point > 0xFFFF:
            point -= 0x10000
            out += [chr(0xD800 + (point >> 10)), chr(0xDC00 + (point & 0x3FF))]
        else:
            out.append(char)
    return "".join(out)


def utf16_key(text: str) -> bytes:
    """A sort key giving JavaScript's default `sort()` (and `<`) order: by UTF-16 code
    units, where Python's `sorted` goes by code points.

    >>> sorted(["\\uff01", "\\U0001f642"], key=utf16_key) == ["\\U0001f642", "\\uff01"]
    True
    """
    return text.encode("utf-16-be", "surrogatepass")
