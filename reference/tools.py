"""The text the read, bash and grep tools hand the model, as Pi 0.85.0 writes it.

Pure renderers over what the tool saw: `read_result` takes a file's bytes and the
call's offset/limit (the head rule), `bash_result` takes the output accumulator's final
snapshot and how the command ended (the tail rule), `grep_result` takes the matches
ripgrep found and the searched files' lines (per-line cut, total cut, match limit).
Each returns a `ToolResult`: the text, the `details` Pi attaches, and whether Pi
*rejects* the call (the agent turns a rejection into an error result with that text).

grep's text is `ctxspec.reference.grep` (GREP-*), `ToolResult` is
`ctxspec.reference.tool_result`.

Rule ids (corpora/README.md, "Rules: streaming and tool results"): READ-* read, BASH-* bash,
GREP-* grep. The full-output path of bash is a parameter: Pi's is a fresh temp file.
"""

from __future__ import annotations

from typing import Any, Final

from ctxspec.reference import _utf8
from ctxspec.reference._jsnum import js_number_to_string
from ctxspec.reference._utf16 import relative_index
from ctxspec.reference.engine import js_exception, nul_refused, system_error
from ctxspec.reference.stream import OutputSnapshot
from ctxspec.reference.tool_result import LIMIT_SHOWN, ToolResult
from ctxspec.reference.truncate import (
    DEFAULT_MAX_BYTES,
    format_size,
    truncate_head,
)

__all__ = [
    "NO_OUTPUT",
    "READ_DIRECTORY",
    "READ_LOOKUP_ERRORS",
    "bash_result",
    "read_directory",
    "read_failed",
    "read_missing",
    "read_nul_refused",
    "read_result",
]

NO_OUTPUT = "(no output)"
# READ-5: what a read of a path that does not resolve, or is no file, is answered: Node's
# own errors, which Pi passes on, written by their kind (`ctxspec.reference.engine`); a path
# holding U+0000 is refused by Node before any lookup
READ_LOOKUP_ERRORS: Final = ("ENOENT", "ENOTDIR", "ELOOP")
READ_DIRECTORY = system_error("EISDIR")
# READ-6: measuring the line at a fractional index, which holds nothing, throws Node's
# argument check (a TypeError)
READ_NO_LINE_AT_FRACTION = js_exception("TypeError")


def read_missing(absolute_path: str) -> ToolResult:
    """READ-5: read on a path that does not exist (`absolute_path`: resolved from the cwd)."""
    return read_failed("ENOENT", absolute_path)


def read_failed(error: str, absolute_path: str) -> ToolResult:
    """READ-5: read on a path the kernel refuses to look up (`error`: ENOENT, ENOTDIR, ELOOP).

    >>> read_failed("ELOOP", "/w/l").text
    '<ELOOP /w/l>'
    """
    if error not in READ_LOOKUP_ERRORS:
        raise ValueError(f"{error!r} is no lookup error of read ({', '.join(READ_LOOKUP_ERRORS)})")
    return ToolResult(text=system_error(error, absolute_path), rejected=True)


def read_directory() -> ToolResult:
    """READ-5: read on a directory."""
    return ToolResult(text=READ_DIRECTORY, rejected=True)


def read_nul_refused() -> ToolResult:
    """READ-5: read on a path holding U+0000, which Node refuses to look up."""
    return ToolResult(text=nul_refused("path"), rejected=True)


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
    # READ-6: offset and limit stay numbers, never made line indices: a fraction or a
    # negative reaches the slice (which truncates it, and counts a negative end from the
    # end) and every figure of the notices as it is
    start: float = max(0, offset - 1) if offset else 0
    if start >= total:
        return ToolResult(
            text=f"Offset {js_number_to_string(offset or 0)} is beyond end of file "
            f"({total} lines total)",
            rejected=True,
        )
    end: float = total if limit is None else min(start + limit, total)
    lo, hi = relative_index(start, total), relative_index(end, total)
    selected = lines[lo:hi] if lo < hi else []
    truncation = truncate_head("\n".join(selected))
    first = js_number_to_string(start + 1)
    if truncation.first_line_exceeds_limit:
        if start != int(start):
            # READ-6: the long line is looked up at a fractional index, which holds
            # nothing: measuring it throws, and the tool fails with Node's message
            return ToolResult(text=READ_NO_LINE_AT_FRACTION, rejected=True)
        # READ-3: a first line over the limit is never cut: the model is told how to read it
        size = format_size(_utf8.byte_length(lines[int(start)]))
        return ToolResult(
            text=f"[Line {first} is {size}, exceeds {LIMIT_SHOWN} limit. Use bash: "
            f"sed -n '{first}p' {path} | head -c {DEFAULT_MAX_BYTES}]",
            details={"truncation": truncation.to_pi()},
        )
    if truncation.truncated:
        last = start + truncation.output_lines
        why = "" if truncation.truncated_by == "lines" else f" ({LIMIT_SHOWN} limit)"
        return ToolResult(
            text=f"{truncation.content}\n\n[Showing lines {first}-{js_number_to_string(last)} "
            f"of {total}{why}. Use offset={js_number_to_string(last + 1)} to continue.]",
            details={"truncation": truncation.to_pi()},
        )
    if limit is not None and end < total:
        # READ-4: only the caller's limit stopped the read
        return ToolResult(
            text=f"{truncation.content}\n\n[{js_number_to_string(total - end)} more lines in "
            f"file. Use offset={js_number_to_string(end + 1)} to continue.]"
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
                f"[Showing lines {begin}-{end} of {truncation.total_lines} ({LIMIT_SHOWN} limit). "
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
