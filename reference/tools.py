"""The text the read, bash and grep tools hand the model, as Pi 0.85.0 writes it.

Pure renderers over what the tool saw: `read_result` takes a file's bytes and the
call's offset/limit (the head rule), `bash_result` takes the output accumulator's final
snapshot and how the command ended (the tail rule), `grep_result` takes the matches
ripgrep found and the searched files' lines (per-line cut, total cut, match limit).
Each returns a `ToolResult`: the text, the `details` Pi attaches, and whether Pi
*rejects* the call (the agent turns a rejection into an error result with that text).

Rule ids (corpora/README.md, "Rules: streaming and tool results"): READ-* read, BASH-* bash,
GREP-* grep. The full-output path of bash is a parameter: Pi's is a fresh temp file.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from reference import _utf8
from reference._jsnum import js_number_to_string
from reference.stream import OutputSnapshot
from reference.truncate import (
    DEFAULT_MAX_BYTES,
    GREP_MAX_LINE_LENGTH,
    format_size,
    truncate_head,
    truncate_line,
)

__all__ = [
    "DEFAULT_GREP_LIMIT",
    "GREP_PATH_MISSING",
    "NO_MATCHES",
    "NO_OUTPUT",
    "READ_DIRECTORY",
    "READ_MISSING",
    "GrepMatch",
    "ToolResult",
    "bash_result",
    "context_lines",
    "grep_path_missing",
    "grep_result",
    "read_directory",
    "read_missing",
    "read_result",
]

NO_OUTPUT = "(no output)"
# READ-5 / GREP-5: what a call on a path that is not there (or not a file) is answered;
# the read texts are Node's own errors, which Pi passes on
READ_MISSING = "ENOENT: no such file or directory, access '{path}'"
READ_DIRECTORY = "EISDIR: illegal operation on a directory, read"
GREP_PATH_MISSING = "Path not found: {path}"
NO_MATCHES = "No matches found"
DEFAULT_GREP_LIMIT = 100
_LIMIT = format_size(DEFAULT_MAX_BYTES)  # "50.0KB", as every notice prints it
# GREP-1: notices in this order, joined by ". " inside one bracket
_GREP_NOTICES = (
    "{limit} matches limit reached. Use limit={double} for more, or refine pattern",
    f"{_LIMIT} limit reached",
    f"Some lines truncated to {GREP_MAX_LINE_LENGTH} chars. Use read tool to see full lines",
)


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResult:
    """One tool call's outcome: `text` (the single text block), `details`, or a rejection."""

    text: str
    details: dict[str, Any] | None = None
    rejected: bool = False

    def to_pi(self) -> dict[str, Any]:
        result: dict[str, Any] = {"isError": self.rejected, "text": self.text}
        if self.details is not None:
            result["details"] = self.details
        return result


@dataclass(frozen=True, slots=True, kw_only=True)
class GrepMatch:
    """One ripgrep match: the file as shown (`rel`), its 1-based line, the line's text."""

    rel: str
    line: int
    text: str
    file_lines: tuple[str, ...] = field(default=(), repr=False)


def read_missing(absolute_path: str) -> ToolResult:
    """READ-5: read on a path that does not exist (`absolute_path`: resolved from the cwd)."""
    return ToolResult(text=READ_MISSING.format(path=absolute_path), rejected=True)


def read_directory() -> ToolResult:
    """READ-5: read on a directory."""
    return ToolResult(text=READ_DIRECTORY, rejected=True)


def grep_path_missing(absolute_path: str) -> ToolResult:
    """GREP-5: grep under a path that does not exist."""
    return ToolResult(text=GREP_PATH_MISSING.format(path=absolute_path), rejected=True)


def read_result(
    data: bytes, *, path: str, offset: float | None = None, limit: float | None = None
) -> ToolResult:
    """The read tool on a text file's bytes; `path` is the path as the call gave it.

    >>> read_result(b"a\\nb\\nc\\n", path="f", limit=3).text
    'a\\nb\\nc\\n\\n[1 more lines in file. Use offset=4 to continue.]'
    """
    text = _utf8.decode(data)  # READ-2: U+FFFD for invalid bytes, BOM and CR kept
    lines = text.split("\n")
    total = len(lines)  # READ-1: a final "\n" counts one more (empty) line
    start = _slice_index(max(0, offset - 1)) if offset else 0
    if start >= total:
        return ToolResult(
            text=f"Offset {js_number_to_string(offset or 0)} is beyond end of file "
            f"({total} lines total)",
            rejected=True,
        )
    if limit is not None:
        selected = lines[start : max(start, _slice_index(start + limit))]
    else:
        selected = lines[start:]
    truncation = truncate_head("\n".join(selected))
    first = start + 1
    if truncation.first_line_exceeds_limit:
        # READ-3: a first line over the limit is never cut: the model is told how to read it
        size = format_size(_utf8.byte_length(lines[start]))
        return ToolResult(
            text=f"[Line {first} is {size}, exceeds {_LIMIT} limit. Use bash: "
            f"sed -n '{first}p' {path} | head -c {DEFAULT_MAX_BYTES}]",
            details={"truncation": truncation.to_pi()},
        )
    if truncation.truncated:
        end = start + truncation.output_lines
        why = "" if truncation.truncated_by == "lines" else f" ({_LIMIT} limit)"
        return ToolResult(
            text=f"{truncation.content}\n\n[Showing lines {first}-{end} of {total}{why}. "
            f"Use offset={end + 1} to continue.]",
            details={"truncation": truncation.to_pi()},
        )
    if limit is not None and start + len(selected) < total:
        # READ-4: only the caller's limit stopped the read
        shown = start + len(selected)
        return ToolResult(
            text=f"{truncation.content}\n\n[{total - shown} more lines in file. "
            f"Use offset={shown + 1} to continue.]"
        )
    return ToolResult(text=truncation.content)


def bash_result(
    snapshot: OutputSnapshot,
    *,
    full_output_path: str,
    exit_code: int | None = 0,
    timed_out_after: float | None = None,
    aborted: bool = False,
) -> ToolResult:
    """The bash tool's text for the accumulator's final snapshot and how the command ended.

    `exit_code` None means killed by a signal without a timeout or abort (treated as 0
    by Pi's message, which only reports non-zero codes).
    """
    truncation = snapshot.truncation
    body = snapshot.content
    details: dict[str, Any] | None = None
    notice = ""
    if truncation.truncated:
        # BASH-1: the notice names the lines shown, or the part of one line
        end = truncation.total_lines
        begin = end - truncation.output_lines + 1
        where = f"Full output: {full_output_path}]"
        if truncation.last_line_partial:
            notice = (
                f"[Showing last {format_size(truncation.output_bytes)} of line {end} "
                f"(line is {format_size(snapshot.last_line_bytes)}). {where}"
            )
        elif truncation.truncated_by == "lines":
            notice = f"[Showing lines {begin}-{end} of {truncation.total_lines}. {where}"
        else:
            notice = (
                f"[Showing lines {begin}-{end} of {truncation.total_lines} ({_LIMIT} limit). "
                f"{where}"
            )
        details = {"truncation": truncation.to_pi(), "fullOutputPath": full_output_path}
    # BASH-2: an interrupted command shows nothing for empty output; others "(no output)"
    if aborted or timed_out_after is not None:
        text = body + (f"\n\n{notice}" if notice else "")
        status = (
            "Command aborted"
            if aborted
            else f"Command timed out after {js_number_to_string(timed_out_after or 0)} seconds"
        )
        return ToolResult(text=f"{text}\n\n{status}" if text else status, rejected=True)
    text = (body or NO_OUTPUT) + (f"\n\n{notice}" if notice else "")
    if exit_code not in (0, None):
        return ToolResult(text=f"{text}\n\nCommand exited with code {exit_code}", rejected=True)
    return ToolResult(text=text, details=details)


def grep_result(
    matches: Sequence[GrepMatch], *, limit: float | None = None, context: int = 0
) -> ToolResult:
    """The grep tool's text for ripgrep's matches (already cut at the match limit).

    A match's `text` is its line as ripgrep reports it, without the final "\\n";
    `file_lines` are its file's lines as Pi re-reads them for context
    (`context_lines()`), used only when `context > 0`.

    >>> grep_result([GrepMatch(rel="f", line=2, text="a\\rb")]).text
    'f:2: ab'
    """
    effective = max(1, DEFAULT_GREP_LIMIT if limit is None else math.floor(limit))
    if not matches:
        return ToolResult(text=NO_MATCHES)
    out: list[str] = []
    lines_truncated = False

    def add(line: str, sep: str, number: int, rel: str) -> None:
        nonlocal lines_truncated
        cut = truncate_line(line)  # GREP-2: each line cut at 500 code units
        lines_truncated = lines_truncated or cut.was_truncated
        out.append(f"{rel}{sep}{number}{sep} {cut.text}")

    for match in matches:
        if context > 0:
            # GREP-3: the match and its context come from the re-read lines, by number
            lines = match.file_lines
            for number in range(max(1, match.line - context), match.line + context + 1):
                if number > len(lines):
                    break
                sep = ":" if number == match.line else "-"
                add(lines[number - 1], sep, number, match.rel)
        else:
            # GREP-4: a match's own text loses every CR (its line number stays ripgrep's)
            add(match.text.replace("\r", ""), ":", match.line, match.rel)
    truncation = truncate_head("\n".join(out), max_lines=2**53 - 1)
    notices: list[str] = []
    details: dict[str, Any] = {}
    if len(matches) >= effective:
        notices.append(_GREP_NOTICES[0].format(limit=effective, double=effective * 2))
        details["matchLimitReached"] = effective
    if truncation.truncated:
        notices.append(_GREP_NOTICES[1])
        details["truncation"] = truncation.to_pi()
    if lines_truncated:
        notices.append(_GREP_NOTICES[2])
        details["linesTruncated"] = True
    text = truncation.content + (f"\n\n[{'. '.join(notices)}]" if notices else "")
    return ToolResult(text=text, details=details or None)


def context_lines(data: bytes) -> tuple[str, ...]:
    """A file's lines as grep re-reads them for context: CRLF and lone CR become "\\n".

    >>> context_lines(b"a\\r\\nb\\rc\\n")
    ('a', 'b', 'c', '')
    """
    text = _utf8.decode(data).replace("\r\n", "\n").replace("\r", "\n")
    return tuple(text.split("\n"))


def _slice_index(value: float) -> int:
    """A JS `slice` index from a non-negative number (truncated toward zero)."""
    return math.trunc(value) if math.isfinite(value) else 2**53
