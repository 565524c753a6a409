"""The JSONL text of a Pi 0.85.0 session file, read as Pi reads it: one JSON value a line.

Apart from `ctxspec.reference.session` because reading the text is its own concern (JavaScript's
trim set, which lines are blank, what is JSON and what is skipped), and because a fast
engine parses the lines its own way: `parse_session_entries` keeps the rule of which lines
count and how skipped lines are numbered in one place, and reads each line through the
walk `parse_line` (`ctxspec.reference.walks`; the plain walk is `parse_line` here).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Final

from ctxspec.reference._utf16 import JS_SPACE  # `trim()`'s set
from ctxspec.reference.walks import PLAIN, Walks

__all__ = ["JSON_DECODER", "ParsedSession", "SkippedLine", "parse_line", "parse_session_entries"]

_JSON_SPACE: Final = re.compile(r"[ \t\n\r]*")


@dataclass(frozen=True, slots=True, kw_only=True)
class SkippedLine:
    """A line `parseSessionEntries` drops: its 1-based number in the text and why."""

    line: int
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ParsedSession:
    """The JSON values of a session file's lines (header included), and the lines dropped."""

    entries: tuple[Any, ...]
    skipped: tuple[SkippedLine, ...]

    def to_pi(self) -> dict[str, Any]:
        return {"entries": list(self.entries)}


def parse_session_entries(text: str, *, walks: Walks = PLAIN) -> ParsedSession:
    """Pi's `parseSessionEntries`: one JSON value per non-blank line; bad lines skipped.

    The text is trimmed (JavaScript's whitespace set) and split on `\\n`; a line that is
    not JSON is dropped silently by Pi, and reported here in `skipped` with its number.

    >>> parsed = parse_session_entries('{"type":"session"}\\nnot json\\n\\n{"id":"a"}\\n')
    >>> parsed.entries
    ({'type': 'session'}, {'id': 'a'})
    >>> [(s.line, s.reason) for s in parsed.skipped]
    [(2, 'not JSON: Expecting value at column 1')]

    Each non-blank line is read once and in order by `walks.parse_line(offset, line)`
    (`offset`: its place among the lines of the trimmed text); a line it refuses with
    `ValueError` is skipped. The plain walk parses each line alone (`parse_line`).
    """
    first_line = 1 + text[: len(text) - len(text.lstrip(JS_SPACE))].count("\n")
    entries: list[Any] = []
    skipped: list[SkippedLine] = []
    for offset, line in enumerate(text.strip(JS_SPACE).split("\n")):
        if not line.strip(JS_SPACE):
            continue
        try:
            entries.append(walks.parse_line(offset, line))
        except ValueError as error:
            skipped.append(SkippedLine(line=first_line + offset, reason=f"not JSON: {error}"))
    return ParsedSession(entries=tuple(entries), skipped=tuple(skipped))


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")  # NaN, Infinity, -Infinity: Python's, not JSON


# NaN, Infinity and -Infinity, which Python's parser takes, are no JSON
JSON_DECODER: Final = json.JSONDecoder(parse_constant=_reject_constant)


def parse_line(line: str) -> Any:
    """One session line's JSON value; `ValueError` says why it is not JSON (NaN and
    Infinity included, which Python's parser would take)."""
    match = _JSON_SPACE.match(line)
    start = match.end() if match else 0
    if line[start : start + 1] == "":
        raise ValueError("empty")
    try:
        return json.loads(line, parse_constant=_reject_constant)
    except json.JSONDecodeError as error:
        raise ValueError(f"{error.msg} at column {error.colno}") from None
