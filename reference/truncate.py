"""Truncation of tool output by lines and UTF-8 bytes, as Pi 0.85.0 does it.

Decides what part of a text reaches the model: `truncate_head` keeps whole lines from
the top (the read tool), `truncate_tail` keeps lines from the bottom and may keep the
UTF-8-safe end of an oversized last line (bash), `truncate_line` cuts one line at a
number of UTF-16 code units (grep), `format_size` prints byte counts for notices.

Strings are JavaScript strings (see `_utf16`): lengths of `truncate_line` are code
units, byte counts are Node's (a lone surrogate counts as the 3 bytes of U+FFFD).
Limits are JavaScript numbers: Pi compares them with `<`/`>` and accepts fractions and
negatives, and so does this module; each rule below is tagged with its id in the corpus.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

from ctxspec.reference import _utf8
from ctxspec.reference._jsnum import js_number_to_string, js_to_fixed
from ctxspec.reference._utf16 import canonical, code_units, js_slice, to_integer_or_infinity
from ctxspec.reference.errors import InvalidInput

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_LINES",
    "GREP_MAX_LINE_LENGTH",
    "LINE_TRUNCATION_SUFFIX",
    "LineTruncation",
    "TruncatedBy",
    "TruncationResult",
    "format_size",
    "truncate_head",
    "truncate_line",
    "truncate_tail",
]

DEFAULT_MAX_LINES = 2000
DEFAULT_MAX_BYTES = 50 * 1024
GREP_MAX_LINE_LENGTH = 500
LINE_TRUNCATION_SUFFIX = "... [truncated]"

TruncatedBy = Literal["lines", "bytes"]
Number = int | float


@dataclass(frozen=True, slots=True, kw_only=True)
class TruncationResult:
    """What `truncateHead`/`truncateTail` return; `to_pi()` gives Pi's JSON shape."""

    content: str
    truncated: bool
    truncated_by: TruncatedBy | None
    total_lines: int
    total_bytes: int
    output_lines: int
    output_bytes: int
    last_line_partial: bool
    first_line_exceeds_limit: bool
    max_lines: Number
    max_bytes: Number

    def to_pi(self) -> dict[str, Any]:
        return {
            "content": self.content,
            "truncated": self.truncated,
            "truncatedBy": self.truncated_by,
            "totalLines": self.total_lines,
            "totalBytes": self.total_bytes,
            "outputLines": self.output_lines,
            "outputBytes": self.output_bytes,
            "lastLinePartial": self.last_line_partial,
            "firstLineExceedsLimit": self.first_line_exceeds_limit,
            "maxLines": self.max_lines,
            "maxBytes": self.max_bytes,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class LineTruncation:
    """What `truncateLine` returns."""

    text: str
    was_truncated: bool

    def to_pi(self) -> dict[str, Any]:
        return {"text": self.text, "wasTruncated": self.was_truncated}


def format_size(size: Number) -> str:
    """Pi's `formatSize`: B under 1 KiB, KB with one decimal under 1 MiB, else MB (no GB).

    >>> [format_size(n) for n in (1023, 1024, 1280, 51200, 1048576)]
    ['1023B', '1.0KB', '1.3KB', '50.0KB', '1.0MB']
    """
    _check_number("bytes", size)
    # TRUNC-8: thresholds 1024 and 1048576; toFixed rounds an exact half up
    if size < 1024:
        return f"{js_number_to_string(size)}B"
    if size < 1024 * 1024:
        return f"{js_to_fixed(size / 1024, 1)}KB"
    return f"{js_to_fixed(size / (1024 * 1024), 1)}MB"


def truncate_head(
    content: str, *, max_lines: Number | None = None, max_bytes: Number | None = None
) -> TruncationResult:
    """Keep whole lines from the top within both limits (the read tool's rule).

    >>> r = truncate_head("one\\ntwo\\nthree", max_lines=2)
    >>> r.content, r.truncated_by, r.output_lines, r.total_lines
    ('one\\ntwo', 'lines', 2, 3)
    """
    text, total_lines, total_bytes, limit_lines, limit_bytes = _prepare(
        content, max_lines, max_bytes
    )
    base = _Base(total_lines, total_bytes, limit_lines, limit_bytes)
    if total_lines <= limit_lines and total_bytes <= limit_bytes:
        return base.untouched(text)  # TRUNC-2

    lines = _lines_from_top(text)
    first = next(lines, None)
    if first is None:
        # only a negative limit gets here; Pi 0.85.0 throws a TypeError (it reads line 1)
        field = "maxLines" if limit_lines < 0 else "maxBytes"
        raise InvalidInput(field, "a negative limit on empty content has no result in Pi 0.85.0")
    # TRUNC-3: a first line over the byte limit yields nothing at all (never a partial line)
    if _utf8.byte_length(first) > limit_bytes:
        return base.result("", "bytes", 0, 0, first_line_exceeds_limit=True)

    kept: list[str] = []
    used = 0
    truncated_by: TruncatedBy = "lines"
    bound = _loop_bound(limit_lines)
    for line in itertools.chain((first,), lines):
        if len(kept) >= bound:
            break
        cost = _utf8.byte_length(line) + (1 if kept else 0)
        if used + cost > limit_bytes:
            truncated_by = "bytes"
            break
        kept.append(line)
        used += cost
    # TRUNC-5: reaching the line limit with the bytes within theirs reports "lines"
    if len(kept) >= limit_lines and used <= limit_bytes:
        truncated_by = "lines"
    return base.result("\n".join(kept), truncated_by, len(kept), used)


def truncate_tail(
    content: str, *, max_lines: Number | None = None, max_bytes: Number | None = None
) -> TruncationResult:
    """Keep lines from the bottom within both limits (the bash tool's rule).

    An oversized *last* line is kept as its last `max_bytes` bytes, moved forward to a
    character boundary, so the result is valid UTF-8 and possibly shorter.

    >>> r = truncate_tail("x\\n" + "\\u00e9" * 4, max_bytes=5)
    >>> r.content, r.last_line_partial, r.output_bytes
    ('\\xe9\\xe9', True, 4)
    """
    text, total_lines, total_bytes, limit_lines, limit_bytes = _prepare(
        content, max_lines, max_bytes
    )
    base = _Base(total_lines, total_bytes, limit_lines, limit_bytes)
    if total_lines <= limit_lines and total_bytes <= limit_bytes:
        return base.untouched(text)  # TRUNC-2

    kept: list[str] = []
    used = 0
    truncated_by: TruncatedBy = "lines"
    last_line_partial = False
    bound = _loop_bound(limit_lines)
    for line in _lines_from_bottom(text):
        if len(kept) >= bound:
            break
        cost = _utf8.byte_length(line) + (1 if kept else 0)
        if used + cost > limit_bytes:
            truncated_by = "bytes"
            if not kept:
                # TRUNC-4: the last line alone is too long: keep its UTF-8-safe end
                partial = _utf8_safe_end(line, limit_bytes)
                kept.append(partial)
                used = _utf8.byte_length(partial)
                last_line_partial = True
            break
        kept.append(line)
        used += cost
    if len(kept) >= limit_lines and used <= limit_bytes:
        truncated_by = "lines"  # TRUNC-5
    kept.reverse()
    return base.result(
        "\n".join(kept), truncated_by, len(kept), used, last_line_partial=last_line_partial
    )


def truncate_line(line: str, max_chars: Number | None = None) -> LineTruncation:
    """Cut `line` to `max_chars` UTF-16 code units and mark it (the grep tool's rule).

    The cut may fall between the halves of a surrogate pair, leaving a lone surrogate,
    exactly as `String.prototype.slice` does.

    >>> truncate_line("abcdef", 3).text
    'abc... [truncated]'
    """
    if not isinstance(line, str):
        raise InvalidInput("line", "must be a string")
    limit = GREP_MAX_LINE_LENGTH if max_chars is None else max_chars
    _check_number("maxChars", limit)
    text = canonical(line)
    # TRUNC-7: code units, not code points or bytes (a text has at least len() code units)
    if len(text) <= limit and code_units(text) <= limit:
        return LineTruncation(text=text, was_truncated=False)
    return LineTruncation(
        text=js_slice(text, 0, limit) + LINE_TRUNCATION_SUFFIX, was_truncated=True
    )


@dataclass(frozen=True, slots=True)
class _Base:
    total_lines: int
    total_bytes: int
    max_lines: Number
    max_bytes: Number

    def untouched(self, content: str) -> TruncationResult:
        return self.result(content, None, self.total_lines, self.total_bytes, truncated=False)

    def result(
        self,
        content: str,
        truncated_by: TruncatedBy | None,
        output_lines: int,
        output_bytes: int,
        *,
        truncated: bool = True,
        last_line_partial: bool = False,
        first_line_exceeds_limit: bool = False,
    ) -> TruncationResult:
        return TruncationResult(
            content=content,
            truncated=truncated,
            truncated_by=truncated_by,
            total_lines=self.total_lines,
            total_bytes=self.total_bytes,
            output_lines=output_lines,
            output_bytes=output_bytes,
            last_line_partial=last_line_partial,
            first_line_exceeds_limit=first_line_exceeds_limit,
            max_lines=self.max_lines,
            max_bytes=self.max_bytes,
        )


def _prepare(
    content: str, max_lines: Number | None, max_bytes: Number | None
) -> tuple[str, int, int, Number, Number]:
    if not isinstance(content, str):
        raise InvalidInput("content", "must be a string")
    limit_lines = DEFAULT_MAX_LINES if max_lines is None else max_lines
    limit_bytes = DEFAULT_MAX_BYTES if max_bytes is None else max_bytes
    _check_number("maxLines", limit_lines)
    _check_number("maxBytes", limit_bytes)
    try:  # the common case in one C pass: no surrogates at all
        total_bytes = len(content) if content.isascii() else len(content.encode("utf-8"))
        text = content
    except UnicodeEncodeError:
        text = canonical(content)
        total_bytes = _utf8.byte_length(text)
    # TRUNC-1: split on "\n" only; a final "\n" opens no line, so "" has no lines at all
    total_lines = 0 if text == "" else text.count("\n") + (0 if text.endswith("\n") else 1)
    return text, total_lines, total_bytes, limit_lines, limit_bytes


def _body_end(text: str) -> int:
    """Where the last line ends: before a final "\n", which opens no line (TRUNC-1)."""
    return len(text) - 1 if text.endswith("\n") else len(text)


def _lines_from_top(text: str) -> Iterator[str]:
    """The lines of TRUNC-1, first to last, found lazily (the walk stops early)."""
    if text == "":
        return
    start, end = 0, _body_end(text)
    while (newline := text.find("\n", start, end)) >= 0:
        yield text[start:newline]
        start = newline + 1
    yield text[start:end]


def _lines_from_bottom(text: str) -> Iterator[str]:
    """The lines of TRUNC-1, last to first."""
    if text == "":
        return
    stop = _body_end(text)
    while (newline := text.rfind("\n", 0, stop)) >= 0:
        yield text[newline + 1 : stop]
        stop = newline
    yield text[:stop]


def _loop_bound(limit: Number) -> int:
    """How many lines `i < limit` admits (limits are finite): a fraction admits one more."""
    return math.ceil(limit)


def _utf8_safe_end(line: str, max_bytes: Number) -> str:
    data = _utf8.encode(line)
    start = len(data) - max_bytes
    if start == math.floor(start):
        position = max(int(start), 0)
        while position < len(data) and _utf8.is_continuation(data[position]):
            position += 1
    else:
        # a fractional index reads no byte, so Pi skips no continuation byte: the
        # kept bytes may then start mid-character (and decode to U+FFFD)
        position = max(int(to_integer_or_infinity(start)), 0)
    return _utf8.decode(data[position:])


def _check_number(field: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInput(field, f"must be a number, got {type(value).__name__}")
    if not math.isfinite(value):
        raise InvalidInput(field, "must be finite")
