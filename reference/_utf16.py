"""JavaScript strings in Python: UTF-16 code units, lone surrogates, `slice`.

Pi measures `line.length` and cuts with `line.slice()`, both in UTF-16 code units, and a
JS string may hold a lone surrogate. A Python `str` models such a string when every
surrogate pair is combined into one astral code point and only *lone* surrogates remain
as surrogate code points: `canonical()` makes that so, and every function here assumes it.
"""

from __future__ import annotations

import math
import re

__all__ = [
    "canonical",
    "code_units",
    "has_surrogates",
    "js_slice",
    "relative_index",
    "to_integer_or_infinity",
]

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
