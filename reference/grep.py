"""The grep tool's text, as Pi 0.85.0 writes it from what ripgrep found.

Split where Pi splits it. *Which* lines match is ripgrep's business (its ignore files,
binary detection, globs, encodings, regex dialect): Pi runs the `rg` binary with
`grep_ripgrep_args()` and nothing here re-implements it. What Pi does with ripgrep's
`--json` output is Pi's: `grep_from_ripgrep()` takes that output, rg's exit status and
stderr, and a way to re-read a file, and applies Pi's rules (counting, the match limit,
the error it reports, paths shown relative to the search path, context lines re-read);
`grep_result()` renders the matches (per-line cut, total cut, match limit).

Apart from `ctxspec.reference.tools` (read and bash) because grep is half of the tools' rules
(GREP-*) and has its own inputs; `ctxspec.reference.tools` re-exports these names.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from ctxspec.reference import _utf8
from ctxspec.reference._jsnum import js_number_to_string
from ctxspec.reference._jsregex import js_trim
from ctxspec.reference.engine import nul_refused
from ctxspec.reference.tool_result import LIMIT_SHOWN, ToolResult
from ctxspec.reference.truncate import (
    GREP_MAX_LINE_LENGTH,
    truncate_head,
    truncate_line,
)

__all__ = [
    "DEFAULT_GREP_LIMIT",
    "GREP_PATH_MISSING",
    "NO_MATCHES",
    "RIPGREP_BASE_ARGS",
    "GrepMatch",
    "context_lines",
    "grep_effective_limit",
    "grep_from_ripgrep",
    "grep_path_missing",
    "grep_result",
    "grep_ripgrep_args",
    "grep_shown_path",
    "spawn_refusal",
]

# GREP-5: what a grep under a path that is not there is answered
GREP_PATH_MISSING = "Path not found: {path}"
NO_MATCHES = "No matches found"
DEFAULT_GREP_LIMIT = 100
# GREP-7: the flags Pi 0.85.0 always passes to rg, before the call's own
RIPGREP_BASE_ARGS: Final = ("--json", "--line-number", "--color=never", "--hidden")
# GREP-1: notices in this order, joined by ". " inside one bracket
_GREP_NOTICES = (
    "{limit} matches limit reached. Use limit={double} for more, or refine pattern",
    f"{LIMIT_SHOWN} limit reached",
    f"Some lines truncated to {GREP_MAX_LINE_LENGTH} chars. Use read tool to see full lines",
)


@dataclass(frozen=True, slots=True, kw_only=True)
class GrepMatch:
    """One ripgrep match: the file as shown (`rel`), its 1-based line, the line's text.

    `text` is None when ripgrep could not give the line as text (it is not UTF-8: rg's
    JSON carries it as `bytes`); Pi then prints the line from `file_lines`.
    """

    rel: str
    line: int
    text: str | None
    file_lines: tuple[str, ...] = field(default=(), repr=False)


def grep_path_missing(absolute_path: str) -> ToolResult:
    """GREP-5: grep under a path that does not exist."""
    return ToolResult(text=GREP_PATH_MISSING.format(path=absolute_path), rejected=True)


def grep_result(
    matches: Sequence[GrepMatch],
    *,
    limit: float | None = None,
    context: int = 0,
    match_count: int | None = None,
) -> ToolResult:
    """The grep tool's text for ripgrep's matches (already cut at the match limit).

    A match's `text` is its line as ripgrep reports it, without the final "\\n";
    `file_lines` are its file's lines as Pi re-reads them (`context_lines()`), used when
    `context > 0` or `text` is None. `match_count` is how many match events Pi counted
    (default: `len(matches)`); it exceeds it when ripgrep named a file by bytes.

    >>> grep_result([GrepMatch(rel="f", line=2, text="a\\rb")]).text
    'f:2: ab'
    """
    effective = grep_effective_limit(limit)
    counted = len(matches) if match_count is None else match_count
    if counted == 0:
        return ToolResult(text=NO_MATCHES)
    out: list[str] = []
    lines_truncated = False

    def add(line: str, sep: str, number: int, rel: str) -> None:
        nonlocal lines_truncated
        cut = truncate_line(line)  # GREP-2: each line cut at 500 code units
        lines_truncated = lines_truncated or cut.was_truncated
        out.append(f"{rel}{sep}{number}{sep} {cut.text}")

    for match in matches:
        if context == 0 and match.text is not None:
            # GREP-4: a match's own text loses every CR (its line number stays ripgrep's)
            add(match.text.replace("\r", ""), ":", match.line, match.rel)
            continue
        lines = match.file_lines
        if not lines:
            out.append(f"{match.rel}:{match.line}: (unable to read file)")
            continue
        # GREP-3: the match and its context come from the re-read lines, by number
        for number in range(max(1, match.line - context), match.line + context + 1):
            if number > len(lines) and context > 0:
                break
            sep = ":" if number == match.line else "-"
            add(lines[number - 1] if number <= len(lines) else "", sep, number, match.rel)
    truncation = truncate_head("\n".join(out), max_lines=2**53 - 1)
    notices: list[str] = []
    details: dict[str, Any] = {}
    if counted >= effective:
        notices.append(
            _GREP_NOTICES[0].format(
                limit=js_number_to_string(effective), double=js_number_to_string(effective * 2)
            )
        )
        details["matchLimitReached"] = effective
    if truncation.truncated:
        notices.append(_GREP_NOTICES[1])
        details["truncation"] = truncation.to_pi()
    if lines_truncated:
        notices.append(_GREP_NOTICES[2])
        details["linesTruncated"] = True
    text = truncation.content + (f"\n\n[{'. '.join(notices)}]" if notices else "")
    return ToolResult(text=text, details=details or None)


def grep_effective_limit(limit: float | None) -> float:
    """GREP-1: `Math.max(1, limit ?? 100)`: a fractional limit stays fractional (1.5 stops at 2)."""
    effective = max(1, DEFAULT_GREP_LIMIT if limit is None else limit)
    return int(effective) if float(effective).is_integer() else effective


def grep_ripgrep_args(
    pattern: str,
    search_path: str,
    *,
    glob: str | None = None,
    ignore_case: bool = False,
    literal: bool = False,
) -> list[str]:
    """GREP-7: the arguments Pi 0.85.0 gives `rg` (an empty glob is not passed).

    >>> grep_ripgrep_args("a", "/w", glob="*.md", literal=True)[4:]
    ['--fixed-strings', '--glob', '*.md', '--', 'a', '/w']
    """
    args = list(RIPGREP_BASE_ARGS)
    if ignore_case:
        args.append("--ignore-case")
    if literal:
        args.append("--fixed-strings")
    if glob:
        args += ["--glob", glob]
    return [*args, "--", pattern, search_path]


def spawn_refusal(pattern: str, glob: str | None = None) -> str | None:
    """GREP-9: Node's refusal to start rg with an argument holding U+0000, which Pi passes on.

    Node checks rg's arguments in order, and the glob comes before the pattern (GREP-7):
    the first that holds U+0000 is named (`ctxspec.reference.engine.nul_refused`).

    >>> spawn_refusal("a\\x00b", glob="*\\x00"), spawn_refusal("a")
    ('<NUL in glob>', None)
    """
    for parameter, value in (("glob", glob), ("pattern", pattern)):
        if value and "\x00" in value:
            return nul_refused(parameter)
    return None


def grep_shown_path(file_path: str, search_path: str, *, is_directory: bool) -> str:
    """GREP-9: a match's file as Pi prints it: relative to a searched directory, else its name.

    A relative path that starts with ".." (a directory named `..x` too) falls back to the
    name; a backslash in the relative path is printed as "/".

    >>> grep_shown_path("/w/src/a.ts", "/w", is_directory=True)
    'src/a.ts'
    >>> grep_shown_path("/w/..x/a.ts", "/w", is_directory=True)
    'a.ts'
    """
    if is_directory:
        relative = posixpath.relpath(file_path, search_path)
        if relative not in ("", ".") and not relative.startswith(".."):
            return relative.replace("\\", "/")
    return posixpath.basename(file_path)


def grep_from_ripgrep(
    output: Iterable[str],
    *,
    exit_code: int | None,
    stderr: str,
    search_path: str,
    is_directory: bool,
    read_file: Callable[[str], bytes | None],
    limit: float | None = None,
    context: int = 0,
) -> ToolResult:
    """The grep tool's result from what `rg` printed: Pi 0.85.0's rules over ripgrep's.

    `output` is rg's `--json` stdout, one event per line, in the order Pi reads it;
    `exit_code` and `stderr` how rg ended (None: killed). Pi counts `match` events up to
    the effective limit and stops there (GREP-1); a match whose path or line ripgrep gave
    only as bytes is counted, and printed from the re-read file or not at all. rg
    exiting with anything but 0 or 1 before the limit is a rejection with its trimmed
    stderr (GREP-8). `read_file(path)` gives a file's bytes for the context lines (None
    when it cannot be read); `search_path` is absolute, as rg was given it.
    """
    effective = grep_effective_limit(limit)
    context = context if context > 0 else 0
    counted = 0
    found: list[tuple[str, int, str | None]] = []
    for line in output:
        if counted >= effective:
            break
        event = _json_event(line)
        if event is None or event.get("type") != "match":
            continue
        counted += 1
        data = event.get("data")
        data = data if isinstance(data, dict) else {}
        path = _text_field(data.get("path"))
        number = data.get("line_number")
        if path and isinstance(number, int) and not isinstance(number, bool):
            found.append((path, number, _text_field(data.get("lines"))))
    if counted < effective and exit_code not in (0, 1):
        message = js_trim(stderr) or f"ripgrep exited with code {exit_code}"
        return ToolResult(text=message, rejected=True)
    reread: dict[str, tuple[str, ...]] = {}

    def lines_of(path: str) -> tuple[str, ...]:
        if path not in reread:
            data = read_file(path)
            reread[path] = () if data is None else context_lines(data)
        return reread[path]

    matches = [
        GrepMatch(
            rel=grep_shown_path(path, search_path, is_directory=is_directory),
            line=number,
            text=None if text is None else text.removesuffix("\n"),
            file_lines=lines_of(path) if context > 0 or text is None else (),
        )
        for path, number, text in found
    ]
    return grep_result(matches, limit=limit, context=context, match_count=counted)


def _json_event(line: str) -> dict[str, Any] | None:
    if not js_trim(line):
        return None
    try:
        event = json.loads(line)
    except ValueError:
        return None
    return event if isinstance(event, dict) else None


def _text_field(value: object) -> str | None:
    """rg's `{"text": ...}` (UTF-8 data); None for `{"bytes": ...}`, which Pi 0.85.0 skips."""
    if isinstance(value, dict) and isinstance(value.get("text"), str):
        return str(value["text"])
    return None


def context_lines(data: bytes) -> tuple[str, ...]:
    """A file's lines as grep re-reads them for context: CRLF and lone CR become "\\n".

    >>> context_lines(b"a\\r\\nb\\rc\\n")
    ('a', 'b', 'c', '')
    """
    text = _utf8.decode(data).replace("\r\n", "\n").replace("\r", "\n")
    return tuple(text.split("\n"))
