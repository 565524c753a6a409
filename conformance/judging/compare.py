"""Comparing expected and actual results, and showing the difference to a person.

`differences()` compares JSON values strictly (`true` is not `1`, `1` equals `1.0`)
and names each differing path. Lists of different lengths are aligned item by item, so
an item missing from the middle is one `missing` item, not a difference at every later
index, and every item past the shorter side is shown as `missing` or `extra`.
`first_difference()` stops at the first, without aligning anything: the benchmark's
check of an answer of a million entries.

A path has one syntax, everywhere a difference is named (`json_path`): `$` is the whole
value, `.name` a key that is a plain name, `["…"]` any other key as a JSON string
(`$.files["src/a.ts"]`, `$[""]`, `$["length"]`), `[3]` a list index, and `.length` a
list's length. `canonical()` is the one text of a JSON value.

`render()` prints strings with every invisible or ambiguous character made visible and,
for a string difference, every differing window (`string_windows`) with the UTF-8 bytes
around it, so a cut one byte off is seen at a glance and a second change further on in
the same text is never hidden behind the first.
"""

from __future__ import annotations

import difflib
import json
import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final

from ctxspec.reference import _utf8
from ctxspec.reference._utf16 import code_units

__all__ = [
    "ROOT",
    "Difference",
    "Window",
    "canonical",
    "differences",
    "elide_indices",
    "first_difference",
    "index_path",
    "json_path",
    "key_path",
    "render",
    "render_value",
    "shorten",
    "string_windows",
    "visible",
]

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
_WINDOWS: Final = 10  # differing windows shown of one string
_MERGE: Final = 8  # differing spans fewer than this many equal chars apart are one window
_CHAR_DIFF: Final = 4000  # a differing middle up to this many chars is diffed char by char


@dataclass(frozen=True, slots=True)
class Difference:
    path: str
    expected: Any
    actual: Any
    missing: bool = False  # the actual value lacks this path altogether
    extra: bool = False  # the actual value has a path the expectation does not
    check: str | None = (
        None  # a universal check this answer breaks (`ctxspec.conformance.judging.universal`)
    )

    @property
    def kind(self) -> str:
        """`missing`, `extra` or `differs` (a value, a type or a list's length), or
        `violates:<check>` for a universal check the answer breaks."""
        if self.check is not None:
            return f"violates:{self.check}"
        return "missing" if self.missing else "extra" if self.extra else "differs"


ROOT: Final = "$"
_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# an index, or a quoted key skipped whole (so a key `"a[0]"` keeps its `[0]`)
_STEP: Final = re.compile(r'\[(\d+)\]|\["(?:[^"\\]|\\.)*"\]')


def key_path(path: str, key: str) -> str:
    """The path of `key` in the object at `path`: `.name` for a plain name, else the key
    as a JSON string in brackets (a key `length` too: `.length` is a list's length).

    >>> key_path("$", "a"), key_path("$", "a.b"), key_path("$", ""), key_path("$", "length")
    ('$.a', '$["a.b"]', '$[""]', '$["length"]')
    """
    return path + _key_step(key)


@lru_cache(maxsize=4096)  # an answer's keys repeat in every item of its lists
def _key_step(key: str) -> str:
    if _NAME.fullmatch(key) and key != "length":
        return f".{key}"
    return f"[{json.dumps(key)}]"


def index_path(path: str, index: int) -> str:
    """The path of item `index` of the list at `path`: `$.a[3]`."""
    return f"{path}[{index}]"


def json_path(parts: Iterable[str | int]) -> str:
    """The path of a value reached by keys (str) and indices (int) from the root.

    >>> json_path(["skills", 0, "name"]), json_path(["files", "src/a.ts", 2])
    ('$.skills[0].name', '$.files["src/a.ts"][2]')
    """
    path = ROOT
    for part in parts:
        path = index_path(path, part) if isinstance(part, int) else key_path(path, part)
    return path


def elide_indices(path: str, mark: str) -> str:
    """`path` with every list index written `mark` (quoted keys left as they are).

    >>> elide_indices('$.a[3]["b[0]"][12]', "[*]")
    '$.a[*]["b[0]"][*]'
    """
    return _STEP.sub(lambda m: mark if m[1] is not None else m[0], path)


def differences(expected: Any, actual: Any, path: str = ROOT) -> list[Difference]:
    """Every path where `actual` differs from `expected` (both plain JSON values)."""
    return list(_walk(expected, actual, path))


def first_difference(expected: Any, actual: Any) -> Difference | None:
    """The first of `differences(expected, actual)`, found without walking the rest (a
    list of another length is its `.length`, before any item is aligned)."""
    return next(_walk(expected, actual, ROOT), None)


def _walk(expected: Any, actual: Any, path: str) -> Iterator[Difference]:
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in expected:
            if key not in actual:
                yield Difference(key_path(path, key), expected[key], None, missing=True)
            else:
                yield from _walk(expected[key], actual[key], key_path(path, key))
        for key in actual:
            if key not in expected:
                yield Difference(key_path(path, key), None, actual[key], extra=True)
        return
    if isinstance(expected, list) and isinstance(actual, list):
        if len(expected) == len(actual):
            for index, (e, a) in enumerate(zip(expected, actual, strict=True)):
                yield from _walk(e, a, index_path(path, index))
            return
        yield Difference(f"{path}.length", len(expected), len(actual))
        yield from _aligned(expected, actual, path)
        return
    if not _same(expected, actual):
        yield Difference(path, expected, actual)


def _aligned(expected: list[Any], actual: list[Any], path: str) -> Iterator[Difference]:
    """The differences of two lists of different lengths, item against matching item.

    The lists are aligned on their items' canonical JSON (`difflib`, no junk heuristic):
    an item only one side has is `missing` (at its index in `expected`) or `extra` (at
    its index in `actual`); a run replaced by a run is compared pairwise, its surplus
    missing or extra. So every item past the shorter side is shown, and one item dropped
    from the middle does not read as every later item changed.
    """
    keys_e = [_item_key(item) for item in expected]
    keys_a = [_item_key(item) for item in actual]
    matcher = difflib.SequenceMatcher(None, keys_e, keys_a, autojunk=False)
    for tag, e_lo, e_hi, a_lo, a_hi in matcher.get_opcodes():
        if tag == "equal":
            continue
        paired = min(e_hi - e_lo, a_hi - a_lo)
        for offset in range(paired):
            e, a = e_lo + offset, a_lo + offset
            yield from _walk(expected[e], actual[a], index_path(path, e))
        for i in range(e_lo + paired, e_hi):
            yield Difference(index_path(path, i), expected[i], None, missing=True)
        for i in range(a_lo + paired, a_hi):
            yield Difference(index_path(path, i), None, actual[i], extra=True)


def canonical(value: Any) -> str:
    """`value` as one JSON text: keys sorted, no spaces, characters as they are. Two
    values with the same text are the same answer (the converse fails only for numbers:
    `1` and `1.0` are one number, as in JavaScript)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _item_key(value: Any) -> str:
    """One text per JSON value, equal exactly when the values compare equal here."""
    return canonical(_tagged(value))


def _tagged(value: Any) -> Any:
    # `_same` tells `true` from `1` but not `1` from `1.0`: tag booleans, unify numbers
    # (exactly: a large integer is never rounded into its neighbour)
    if isinstance(value, bool):
        return ["bool", value]
    if isinstance(value, float) and value.is_integer():
        return ["num", str(int(value))]
    if isinstance(value, int | float):
        return ["num", repr(value)]
    if isinstance(value, dict):
        return {key: _tagged(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_tagged(item) for item in value]
    return value


@dataclass(frozen=True, slots=True)
class Window:
    """One differing stretch of two strings: `expected[e_lo:e_hi]` became `actual[a_lo:a_hi]`
    (indices in code points; an empty side is an insertion or a deletion)."""

    e_lo: int
    e_hi: int
    a_lo: int
    a_hi: int


def string_windows(expected: str, actual: str) -> list[Window]:
    """Every differing window of two strings, first to last.

    The common head and tail are set aside; the middle is diffed line by line (a char
    diff of repetitive text pairs the wrong letters), a replaced run of lines line
    against line, and each such pair (or a single line) char by char when it is at most
    `_CHAR_DIFF` chars a side, else as one window. Spans closer than `_MERGE` equal
    chars are merged, so one changed word is one window, not one per letter.

    >>> windows = string_windows("abcXdefghijklmnoYp", "abcdefghijklmnop")
    >>> [(w.e_lo, w.e_hi, w.a_lo, w.a_hi) for w in windows]
    [(3, 4, 3, 3), (16, 17, 15, 15)]
    """
    if expected == actual:
        return []
    head = _common_prefix(expected, actual)
    tail = _common_prefix(expected[head:][::-1], actual[head:][::-1])
    e_mid, a_mid = expected[head : len(expected) - tail], actual[head : len(actual) - tail]
    spans = _spans(e_mid, a_mid)
    return _merged([Window(e + head, f + head, a + head, b + head) for e, f, a, b in spans])


def _spans(e: str, a: str) -> list[tuple[int, int, int, int]]:
    if not e or not a:
        return [(0, len(e), 0, len(a))]
    e_lines, a_lines = e.splitlines(keepends=True), a.splitlines(keepends=True)
    if len(e_lines) == 1 and len(a_lines) == 1:
        return _opcodes(e, a) if max(len(e), len(a)) <= _CHAR_DIFF else [(0, len(e), 0, len(a))]
    e_at, a_at = _offsets(e_lines), _offsets(a_lines)
    matcher = difflib.SequenceMatcher(None, e_lines, a_lines, autojunk=False)
    spans = []
    for tag, e_lo, e_hi, a_lo, a_hi in matcher.get_opcodes():
        if tag == "equal":
            continue
        # a replaced run: line against line, the longer side's surplus as one span
        paired = min(e_hi - e_lo, a_hi - a_lo)
        pairs = [(e_at[e_lo + n], e_at[e_lo + n + 1], a_at[a_lo + n], a_at[a_lo + n + 1])
                 for n in range(paired)]  # fmt: skip
        if e_hi - e_lo != a_hi - a_lo:
            e_rest, a_rest = e_at[e_lo + paired], a_at[a_lo + paired]
            pairs.append((e_rest, e_at[e_hi], a_rest, a_at[a_hi]))
        for e0, e1, a0, a1 in pairs:
            if e1 > e0 and a1 > a0 and max(e1 - e0, a1 - a0) <= _CHAR_DIFF:
                pieces = _opcodes(e[e0:e1], a[a0:a1])
                spans += [(e0 + i, e0 + j, a0 + k, a0 + m) for i, j, k, m in pieces]
            else:
                spans.append((e0, e1, a0, a1))
    return spans


def _opcodes(e: str, a: str) -> list[tuple[int, int, int, int]]:
    matcher = difflib.SequenceMatcher(None, e, a, autojunk=False)
    return [(i, j, k, m) for tag, i, j, k, m in matcher.get_opcodes() if tag != "equal"]


def _offsets(lines: list[str]) -> list[int]:
    at = [0]
    for line in lines:
        at.append(at[-1] + len(line))
    return at


def _merged(windows: list[Window]) -> list[Window]:
    out: list[Window] = []
    for window in windows:
        if out and window.e_lo - out[-1].e_hi < _MERGE and window.a_lo - out[-1].a_hi < _MERGE:
            last = out[-1]
            out[-1] = Window(last.e_lo, window.e_hi, last.a_lo, window.a_hi)
        else:
            out.append(window)
    return out


def _common_prefix(a: str, b: str) -> int:
    limit = min(len(a), len(b))
    if a[:limit] == b[:limit]:
        return limit
    lo, hi = 0, limit  # a[:lo] == b[:lo] holds, a[:hi] != b[:hi]: halve in C-speed slices
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid
    return lo


def _same(expected: Any, actual: Any) -> bool:
    if isinstance(expected, bool) or isinstance(actual, bool) or expected is None or actual is None:
        return type(expected) is type(actual) and expected == actual
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        return expected == actual
    return type(expected) is type(actual) and expected == actual


def visible(text: str) -> str:
    """`text` with escapes for control, invisible, replacement and surrogate characters.

    >>> visible("a\\u00e9\\n\\ufeff\\ud83d")
    '"aé\\\\n\\\\ufeff\\\\ud83d"'
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


def _bytes_around(text: str, index: int) -> str:
    lo = max(index - 4, 0)
    start = _utf8.byte_length(text[:lo])
    window = _utf8.encode(text[lo : index + 4])
    return f"UTF-8 from byte {start}: {window.hex(' ')}"


def _sizes(text: str) -> str:
    return f"{len(text)} cp, {code_units(text)} cu, {_utf8.byte_length(text)} B"


def _excerpt(text: str, lo: int, hi: int) -> str:
    """`text[lo:hi]` between `⟦ ⟧` in up to 20 chars of context a side (a long span keeps
    its head and tail), invisible characters escaped."""
    before, after = text[max(lo - 20, 0) : lo], text[hi : hi + 20]
    span = text[lo:hi]
    if len(span) > 80:
        span_text = (
            f"{visible(span[:30])[:-1]}… [{len(span) - 60} chars] …{visible(span[-30:])[1:]}"
        )
    else:
        span_text = visible(span)
    head = "…" if lo > 20 else ""
    tail = "…" if hi + 20 < len(text) else ""
    return f"{head}{visible(before)[:-1]}⟦{span_text[1:-1]}⟧{visible(after)[1:]}{tail}"


def _string_lines(path: str, exp: str, act: str) -> list[str]:
    """A string difference: each differing window with its chars and bytes, up to
    `_WINDOWS` of them, then how many more there are."""
    windows = string_windows(exp, act)
    count = len(windows)
    where = "in 1 place" if count == 1 else f"in {count} places"
    lines = [f"  {path}: strings differ {where}"]
    for number, window in enumerate(windows[:_WINDOWS], start=1):
        label = (
            f"    #{number} at char {window.e_lo}" if count > 1 else f"    at char {window.e_lo}"
        )
        lines.append(
            f"{label}: expected chars {window.e_lo}..{window.e_hi}, "
            f"actual chars {window.a_lo}..{window.a_hi}"
        )
        lines.append(f"      expected {_excerpt(exp, window.e_lo, window.e_hi)}")
        lines.append(f"               {_bytes_around(exp, window.e_lo)}")
        lines.append(f"      actual   {_excerpt(act, window.a_lo, window.a_hi)}")
        lines.append(f"               {_bytes_around(act, window.a_lo)}")
    if count > _WINDOWS:
        lines.append(f"    … and {count - _WINDOWS} more differing windows not shown")
    lines.append(f"    sizes: expected {_sizes(exp)}, actual {_sizes(act)}")
    return lines


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
            plain = exp.isascii() and act.isascii() and max(len(exp), len(act)) <= _LONG
            if plain:
                lines.append(f"  {difference.path}: expected {visible(exp)}, actual {visible(act)}")
                continue
            lines += _string_lines(difference.path, exp, act)
        else:
            lines.append(
                f"  {difference.path}: expected {render_value(exp)}, actual {render_value(act)}"
            )
    if len(found) > _DIFFERENCES:
        lines.append(f"  … and {len(found) - _DIFFERENCES} more differences")
    return "\n".join(lines)
