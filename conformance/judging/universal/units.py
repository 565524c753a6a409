"""Counting text in an agent's declared unit, and the damage a bad cut leaves.

Strings here are the wire's JavaScript strings as Python holds them: an astral character
is one code point (two UTF-16 code units) and a lone surrogate is one code point of its
own (`\\ud83d`), which Node counts and encodes as U+FFFD (3 UTF-8 bytes).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Final

__all__ = ["REPLACEMENT", "lone_surrogates", "replacements", "size"]

REPLACEMENT: Final = "\ufffd"


def _utf16(text: str) -> int:
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


def _bytes(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def size(text: str, unit: str, per_token: Mapping[str, Any] | None = None) -> int:
    """The length of `text` in `unit`: utf16, codepoints, bytes, or tokens as `per_token`
    declares them (`{bytes: 4}`: a token per 4 UTF-8 bytes, rounded up)."""
    if unit == "utf16":
        return _utf16(text)
    if unit == "codepoints":
        return len(text)
    if unit == "bytes":
        return _bytes(text)
    if unit == "tokens":
        per = per_token or {"bytes": 4}
        if "bytes" in per:
            return math.ceil(_bytes(text) / float(per["bytes"]))
        return math.ceil(_utf16(text) / float(per["chars"]))
    raise ValueError(f"unknown unit {unit!r}")


def lone_surrogates(text: str) -> list[int]:
    """The code-point offsets of lone surrogates in `text` (a split astral character)."""
    return [index for index, char in enumerate(text) if 0xD800 <= ord(char) <= 0xDFFF]


def replacements(text: str) -> int:
    """How many U+FFFD `text` holds (what a byte cut inside a character decodes to)."""
    return text.count(REPLACEMENT)
