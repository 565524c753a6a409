"""Comparing expected and actual results, and showing the difference to a person.

`differences()` compares JSON values strictly (`true` is not `1`, `1` equals `1.0`)
and names each differing path; `render()` prints strings with every invisible or
ambiguous character made visible and, for a string difference, the UTF-8 bytes around
the first differing position, so a cut one byte off is seen at a glance.
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass
from typing import Any, Final

from reference import _utf8
from reference._utf16 import code_units

__all__ = ["Difference", "differences", "render", "render_value", "shorten", "visible"]

_NAMED: Final = {
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\\": "\\\\",
    '"': '\\"',
    "\ufeff": "\\ufeff",
    "\ufffd": "\\ufffd",
    "\u00a0": "\\u00a0",
    "\u200b": "\\u200b",
}
_LONG: Final = 160  # strings longer than this are shown around the point of interest
_VALUE_CHARS: Final = 2000  # a rendered list or object keeps its head and tail within this
_DIFFERENCES: Final = 50  # differences shown of one result


@dataclass(frozen=True, slots=True)
class Difference:
    path: str
    expected: Any
    actual: Any
    missing: bool = False  # the actual value lacks this path altogether
    extra: bool = False  # the actual value has a path the expectation does not
    check: str | None = None  # a universal check this answer breaks (`conformance.universal`)

    @property
    def kind(self) -> str:
        """`missing`, `extra` or `differs` (a value, a type or a list's length), or
        `violates:<check>` for a universal check the answer breaks."""
        if self.check is not None:
            return f"violates:{self.check}"
        return "missing" if self.missing else "extra" if self.extra else "differs"


def differences(expected: Any, actual: Any, path: str = "$") -> list[Difference]:
    """Every path where `actual` differs from `expected` (both plain JSON values)."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        found = []
        for key in expected:
            if key not in actual:
                found.append(Difference(f"{path}.{key}", expected[key], None, missing=True))
            else:
                found += differences(expected[key], actual[key], f"{path}.{key}")
        found += [
            Difference(f"{path}.{key}", None, actual[key], extra=True)
            for key in actual
            if key not in expected
        ]
        return found
    if isinstance(expected, list) and isinstance(actual, list):
        found = []
        for index, (e, a) in enumerate(zip(expected, actual, strict=False)):
            found += differences(e, a, f"{path}[{index}]")
        if len(expected) != len(actual):
            found.append(Difference(f"{path}.length", len(expected), len(actual)))
        return found
    if _same(expected, actual):
        return []
    return [Difference(path, expected, actual)]


def _same(expected: Any, actual: Any) -> bool:
    if isinstance(expected, bool) or isinstance(actual, bool) or expected is None or actual is None:
        return type(expected) is type(actual) and expected == actual
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        return expected == actual
    return type(expected) is type(actual) and expected == actual


def visible(text: str) -> str:
    """`text` with escapes for control, invisible, replacement and surrogate characters.

    >>> visible("a\\u00e9\\n\\ufeff\\ud83d")
    '"a\\u00e9\\\\n\\\\ufeff\\\\ud83d"'
    """
    out = []
    for char in text:
        if char in _NAMED:
            out.append(_NAMED[char])
        elif 0xD800 <= ord(char) <= 0xDFFF:
            out.append(f"\\u{ord(char):04x}")
        elif (
            unicodedata.category(char) in {"Cc", "Cf", "Zl", "Zp", "Zs", "Co", "Cn"} and char != " "
        ):
            out.append(f"\\u{ord(char):04x}" if ord(char) <= 0xFFFF else f"\\U{ord(char):08x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def shorten(text: str, limit: int) -> str:
    """`text`, or its head and tail within about `limit` chars with what was left out.

    >>> shorten("abcdefghij", 4)
    'ab… [6 of 10 chars not shown] …ij'
    """
    if len(text) <= limit:
        return text
    half = max(limit // 2, 1)
    return f"{text[:half]}… [{len(text) - 2 * half} of {len(text)} chars not shown] …{text[-half:]}"


def render_value(value: Any, *, around: int | None = None) -> str:
    """A JSON value for a person; long strings shortened around index `around`.

    A list or object keeps the items of its head and tail that fit in `_VALUE_CHARS`
    chars, and says how many it left out, so a value of any size renders small.
    """
    if isinstance(value, str):
        return _render_string(value, around)
    if isinstance(value, dict):
        items = list(value.items())
        return "{" + _render_items(items, lambda kv: f"{kv[0]}: {render_value(kv[1])}") + "}"
    if isinstance(value, list):
        return "[" + _render_items(value, render_value) + "]"
    return shorten(json.dumps(value), _VALUE_CHARS)


def _render_items(items: list[Any], show: Any) -> str:
    """Items joined by ", " from both ends until each end has used half the budget."""
    head: list[str] = []
    tail: list[str] = []
    used = [0, 0]
    lo, hi = 0, len(items)
    while lo < hi and used[0] < _VALUE_CHARS // 2:
        head.append(show(items[lo]))
        used[0] += len(head[-1]) + 2
        lo += 1
    while lo < hi and used[1] < _VALUE_CHARS // 2:
        tail.append(show(items[hi - 1]))
        used[1] += len(tail[-1]) + 2
        hi -= 1
    middle = [f"… {hi - lo} of {len(items)} items not shown …"] if lo < hi else []
    return ", ".join(head + middle + tail[::-1])


def _render_string(text: str, around: int | None) -> str:
    if text.isascii() and len(text) <= _LONG:
        return visible(text)
    size = f"({len(text)} cp, {code_units(text)} cu, {_utf8.byte_length(text)} B)"
    if len(text) <= _LONG:
        return f"{visible(text)} {size}"
    centre = around if around is not None else 0
    lo, hi = max(centre - 40, 0), min(centre + 40, len(text))
    head = "…" if lo > 0 else ""
    tail = "…" if hi < len(text) else ""
    return f"{head}{visible(text[lo:hi])}{tail} [chars {lo}..{hi} of] {size}"


def _first_divergence(a: str, b: str) -> int:
    limit = min(len(a), len(b))
    index = 0
    while index < limit and a[index] == b[index]:
        index += 1
    return index


def _bytes_around(text: str, index: int) -> str:
    lo = max(index - 4, 0)
    start = _utf8.byte_length(text[:lo])
    window = _utf8.encode(text[lo : index + 4])
    return f"UTF-8 from byte {start}: {window.hex(' ')}"


def render(found: list[Difference]) -> str:
    """The differences as indented lines: path, expected, actual (and bytes for strings)."""
    lines = []
    for difference in found[:_DIFFERENCES]:
        if difference.check is not None:
            lines.append(f"  {difference.path}: violates {difference.check}")
            lines.append(f"    rule:   {difference.expected}")
            lines.append(f"    actual: {difference.actual}")
            continue
        if difference.missing:
            lines.append(
                f"  {difference.path}: missing (expected {render_value(difference.expected)})"
            )
            continue
        if difference.extra:
            lines.append(
                f"  {difference.path}: unexpected (actual {render_value(difference.actual)})"
            )
            continue
        exp, act = difference.expected, difference.actual
        if isinstance(exp, str) and isinstance(act, str):
            at = _first_divergence(exp, act)
            plain = exp.isascii() and act.isascii() and max(len(exp), len(act)) <= _LONG
            if plain:
                lines.append(f"  {difference.path}: expected {visible(exp)}, actual {visible(act)}")
                continue
            lines.append(f"  {difference.path}: strings differ at char {at}")
            lines.append(f"    expected {render_value(exp, around=at)}")
            lines.append(f"             {_bytes_around(exp, at)}")
            lines.append(f"    actual   {render_value(act, around=at)}")
            lines.append(f"             {_bytes_around(act, at)}")
        else:
            lines.append(
                f"  {difference.path}: expected {render_value(exp)}, actual {render_value(act)}"
            )
    if len(found) > _DIFFERENCES:
        lines.append(f"  … and {len(found) - _DIFFERENCES} more differences")
    return "\n".join(lines)
