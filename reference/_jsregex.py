"""JavaScript regular expressions in Python: `new RegExp(source, "i")` and `.test(text)`.

Pi's ignore-file matching (`ctxspec.reference.ignore`) builds JavaScript regular expressions from
patterns and tests paths with them. This module runs such an expression the way V8 does
without the `u` flag:

- strings are sequences of UTF-16 code units (`units`): `.` and `[^/]` match one unit,
  so an astral character is two;
- `i` compares characters by ECMAScript's `Canonicalize` (`canonical_unit`): a unit's
  upper case when that is one unit, unless it would map a non-ASCII unit to ASCII
  (`ſ`, `ı` and the Kelvin sign stay themselves; `ß` has no one-unit upper case), in
  Node 22's Unicode 17, whose newer case pairs (U+019B and U+A7DC, ...) Python 3.11 lacks;
- the syntax is Annex B's: `\\d \\w \\s` and their negations are the ASCII sets (`\\s` JS's
  whitespace), `\\b` the ASCII word boundary (a backspace in a class), identity escapes
  for other letters, `\\0`-`\\7` octal escapes (no capture groups exist here), `[]`
  matches nothing and `[^]` any unit, a lone `]` `{` `}` is itself; `$` is the end of
  the text, `.` any unit but a line terminator.

`compile_js(source)` gives a `JsRegex` whose `test(text)` is `regex.test(text)`; a source
V8 rejects (an unterminated class, a range out of order, unbalanced parentheses, nothing
to repeat) raises `JsSyntaxError`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Final

from ctxspec.reference._utf16 import JS_SPACE, js_trim, units

# `JS_SPACE` (what `\s` matches), `js_trim` and `units` are `_utf16`'s, named here too
__all__ = [
    "JS_SPACE",
    "JsRegex",
    "JsSyntaxError",
    "canonical_unit",
    "compile_js",
    "js_trim",
    "units",
]

LINE_TERMINATORS: Final = "\n\r\u2028\u2029"
CLASS_ESCAPES: Final = {
    "d": "0-9",
    "w": "A-Za-z0-9_",
    "s": JS_SPACE,
}
CONTROL_ESCAPES: Final = {"n": "\n", "r": "\r", "t": "\t", "f": "\f", "v": "\v"}
# `toUpperCase` of Node 22 (ICU 78, Unicode 17) where Python 3.11's `str.upper` (Unicode
# 14) has no mapping yet: the case pairs Unicode added since, found by comparing every BMP
# code unit (tests/reference/test_javascript.py checks them all against Node)
UPPER_SINCE_UNICODE_14: Final = {
    "\u019b": "\ua7dc",  # ƛ
    "\u0264": "\ua7cb",  # ɤ
    "\u1c8a": "\u1c89",
    "\ua7cd": "\ua7cc",
    "\ua7cf": "\ua7ce",
    "\ua7d3": "\ua7d2",
    "\ua7d5": "\ua7d4",
    "\ua7db": "\ua7da",
}


class JsSyntaxError(ValueError):
    """The source is no regular expression V8 accepts (`new RegExp` throws)."""


@cache
def canonical_unit(unit: str) -> str:
    """ECMAScript `Canonicalize(ch)` with IgnoreCase and without the `u` flag.

    >>> canonical_unit("a"), canonical_unit("\\u017f"), canonical_unit("\\u00df")
    ('A', 'ſ', 'ß')
    """
    upper = UPPER_SINCE_UNICODE_14.get(unit) or unit.upper()
    if len(upper) != 1:
        return unit
    if ord(unit) >= 128 and ord(upper) < 128:
        return unit
    return upper


def _canonical(text: str) -> str:
    return "".join(canonical_unit(u) for u in units(text))


@dataclass(frozen=True, slots=True)
class JsRegex:
    """A compiled expression; `test` is JavaScript's `regex.test(text)`."""

    source: str
    ignore_case: bool
    _python: re.Pattern[str]

    def test(self, text: str) -> bool:
        subject = _canonical(text) if self.ignore_case else units(text)
        return self._python.search(subject) is not None


def compile_js(source: str, *, ignore_case: bool = True) -> JsRegex:
    """`new RegExp(source, ignore_case ? "i" : "")`; raises `JsSyntaxError`.

    >>> compile_js("(?:^|\\\\/)a\\\\.md(?=$|\\\\/$)").test("X/A.MD")
    True
    """
    python = _Translator(units(source), ignore_case).translate()
    try:
        return JsRegex(source, ignore_case, re.compile(python, re.ASCII))
    except re.error as error:
        raise JsSyntaxError(f"Invalid regular expression: /{source}/: {error}") from None


class _Translator:
    """One pass over the source, writing the Python expression that means the same."""

    def __init__(self, source: str, ignore_case: bool) -> None:
        self.source = source
        self.ignore_case = ignore_case
        self.at = 0

    def _error(self, problem: str) -> JsSyntaxError:
        return JsSyntaxError(f"Invalid regular expression: /{self.source}/: {problem}")

    def translate(self) -> str:
        out: list[str] = []
        depth = 0
        while self.at < len(self.source):
            char = self.source[self.at]
            self.at += 1
            if char == "\\":
                out.append(self._escape(in_class=False))
            elif char == "[":
                out.append(self._class())
            elif char == "(":
                depth += 1
                out.append("(")
            elif char == ")":
                depth -= 1
                if depth < 0:
                    raise self._error("Unmatched ')'")
                out.append(")")
            elif char in "|*+?":
                out.append(char)
            elif char == "^":
                out.append("^")
            elif char == "$":
                out.append(r"\Z")
            elif char == ".":
                out.append(f"[^{LINE_TERMINATORS}]")
            else:
                out.append(self._literal(char))
        if depth:
            raise self._error("Unterminated group")
        return "".join(out)

    def _literal(self, unit: str) -> str:
        return re.escape(canonical_unit(unit) if self.ignore_case else unit)

    def _escape(self, *, in_class: bool) -> str:
        """The escape after a backslash, as a Python atom (a class body when `in_class`)."""
        if self.at >= len(self.source):
            raise self._error("\\ at end of pattern")
        char = self.source[self.at]
        self.at += 1
        lower = char.lower()
        if lower in CLASS_ESCAPES:
            body = CLASS_ESCAPES[lower]
            if in_class:
                return body if char == lower else ""  # a negated set inside a class: see _class
            return f"[{body}]" if char == lower else f"[^{body}]"
        if char in "bB" and not in_class:
            return "\\" + char
        if char == "b":
            return self._atom("\b", in_class)
        unit = self._escaped_unit(char)
        return self._atom(unit, in_class)

    def _escaped_unit(self, char: str) -> str:
        """The unit an escape that is no set stands for."""
        if char in CONTROL_ESCAPES:
            return CONTROL_ESCAPES[char]
        if char in "01234567":
            digits = char
            while (
                len(digits) < 3
                and self.at < len(self.source)
                and self.source[self.at] in "01234567"
            ):
                if int(digits + self.source[self.at], 8) > 0o377:
                    break
                digits += self.source[self.at]
                self.at += 1
            return chr(int(digits, 8))
        if char == "c":
            nxt = self.source[self.at : self.at + 1]
            if nxt.isascii() and nxt.isalpha():
                self.at += 1
                return chr(ord(nxt) % 32)
            self.at -= 1  # `\c` without a letter is a backslash, then `c` read again
            return "\\"
        for lead, size in (("x", 2), ("u", 4)):
            hexa = self.source[self.at : self.at + size]
            if (
                char == lead
                and len(hexa) == size
                and all(h in "0123456789abcdefABCDEF" for h in hexa)
            ):
                self.at += size
                return chr(int(hexa, 16))
        return char  # an identity escape

    def _atom(self, unit: str, in_class: bool) -> str:
        if in_class:
            return unit
        return self._literal(unit)

    def _class(self) -> str:
        """A `[...]` class: its members (and, with `i`, their canonical forms)."""
        negated = self.source[self.at : self.at + 1] == "^"
        if negated:
            self.at += 1
        members: set[str] = set()
        sets: list[str] = []  # `\\d`-style sets, as Python class bodies
        negated_sets: list[str] = []
        while True:
            if self.at >= len(self.source):
                raise self._error("Unterminated character class")
            low, low_set = self._class_atom()
            if low is None:
                break
            if (
                low_set is None
                and self.source[self.at : self.at + 1] == "-"
                and self.source[self.at + 1 : self.at + 2] not in ("", "]")
            ):
                self.at += 1
                high, high_set = self._class_atom()
                if high is None or high_set is not None:
                    # Annex B: a range with a set at either end is the atoms and `-`
                    members.update((low, "-"))
                    if high_set is not None:
                        (sets if high_set[0] else negated_sets).append(high_set[1])
                    continue
                if ord(low) > ord(high):
                    raise self._error("Range out of order in character class")
                members.update(chr(u) for u in range(ord(low), ord(high) + 1))
                continue
            if low_set is not None:
                (sets if low_set[0] else negated_sets).append(low_set[1])
            else:
                members.add(low)
        if self.ignore_case:
            members |= {canonical_unit(m) for m in members}
        body = "".join(_class_char(m) for m in sorted(members)) + "".join(sets)
        if negated_sets:
            # a class holding a negated set: any unit in a set's complement, or a member
            inner = f"[{body}]" if body else None
            options = [f"[^{s}]" for s in negated_sets] + ([inner] if inner else [])
            union = "(?:" + "|".join(options) + ")"
            return f"(?!{union})[\\s\\S]" if negated else union
        if not body:
            return "[\\s\\S]" if negated else "(?!)"
        return f"[{'^' if negated else ''}{body}]"

    def _class_atom(self) -> tuple[str | None, tuple[bool, str] | None]:
        """The next class atom: (unit, None), (a marker, (positive, set body)) for `\\d`-style
        sets, or (None, None) at the closing `]`."""
        char = self.source[self.at]
        self.at += 1
        if char == "]":
            return None, None
        if char != "\\":
            return char, None
        if self.at >= len(self.source):
            raise self._error("\\ at end of pattern")
        escaped = self.source[self.at]
        if escaped.lower() in CLASS_ESCAPES:
            self.at += 1
            return "", (escaped.islower(), CLASS_ESCAPES[escaped.lower()])
        if escaped == "b":
            self.at += 1
            return "\b", None
        if escaped == "B":
            self.at += 1
            return "B", None
        self.at += 1
        return self._escaped_unit(escaped), None


def _class_char(unit: str) -> str:
    return "\\" + unit if unit in "\\]^-[" else unit
