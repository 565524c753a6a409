"""Every cap, limit and threshold a rule names has golden cases at N-1, N and N+1.

`CAPS` lists them, each with the unit its rule counts in (UTF-8 bytes as Node's `Buffer`
counts them, UTF-16 code units, lines by TRUNC-1, estimated tokens, entries, links) and
how to read that count off a case. A cap fails when no active case of its ops sits at one
of the three; the message names the sides missing. `python tests/corpora/test_caps.py`
prints the census: per cap, how many cases sit at each side and how many away from it.
"""

from __future__ import annotations

import base64
import math
import re
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

import pytest

from ctxspec.conformance.corpus.cases import Case, load_cases
from ctxspec.reference._utf8 import byte_length, decode
from ctxspec.reference._utf16 import code_units
from ctxspec.reference.frontmatter import FrontmatterError, parse_frontmatter
from ctxspec.reference.tokens import calculate_context_tokens, estimate_context_tokens
from ctxspec.reference.walks import PLAIN

SIDES: Final = {-1: "N-1", 0: "N", 1: "N+1"}
# a case's counts minus the cap, one per count the case has in the cap's unit
Deltas = Callable[[Case], Iterable[float]]


@dataclass(frozen=True)
class Cap:
    """One number a rule names: `deltas(case)` gives the case's counts minus the cap."""

    rule: str
    name: str
    ops: tuple[str, ...]
    deltas: Deltas


def _number(value: object) -> float | None:
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def _lines(text: str) -> int:
    # TRUNC-1: split on "\n", a final "\n" opens no line, "" has none
    return 0 if text == "" else text.count("\n") + (0 if text.endswith("\n") else 1)


def _limit(case: Case, key: str, default: float | None) -> float | None:
    """The cap `key` sets for the case: with a `default`, that default when the case
    leaves the limit out (or null), else None; without one, the limit the case gives."""
    given = _number(case.args.get(key))
    if default is None:
        return given
    return default if given is None else None


def _vs(value: float | None, bound: float | None) -> list[float]:
    return [] if value is None or bound is None else [value - bound]


def _each_vs(values: Iterable[float], bound: float | None) -> list[float]:
    return [] if bound is None else [value - bound for value in values]


# truncate.head / truncate.tail --------------------------------------------------------


def _content(case: Case) -> str | None:
    content = case.args.get("content")
    return content if isinstance(content, str) else None


def _truncation(key: str, default: float | None, count: Callable[[str], float]) -> Deltas:
    def deltas(case: Case) -> list[float]:
        content = _content(case)
        return [] if content is None else _vs(count(content), _limit(case, key, default))

    return deltas


def _edge_line(case: Case) -> str | None:
    content = _content(case)
    if content is None:
        return None
    lines = content.split("\n")
    if case.op == "truncate.head":
        return lines[0]
    return lines[-2] if len(lines) > 1 and lines[-1] == "" else lines[-1]


def _edge_line_bytes(default: float | None) -> Deltas:
    def deltas(case: Case) -> list[float]:
        line = _edge_line(case)
        return [] if line is None else _vs(byte_length(line), _limit(case, "maxBytes", default))

    return deltas


def _line_units(case: Case) -> list[float]:
    line = case.args.get("line")
    if not isinstance(line, str):
        return []
    max_chars = _number(case.args.get("maxChars"))
    return _vs(code_units(line), 500 if max_chars is None else max_chars)


def _size(bound: float) -> Deltas:
    return lambda case: _vs(_number(case.args.get("bytes")), bound)


# stream.tail / tool.bash: the accumulator ---------------------------------------------


def _output(case: Case) -> tuple[int, str] | None:
    """The raw byte count and the decoded text (one leading BOM removed) of the chunks."""
    chunks = case.args.get("chunksB64")
    if not isinstance(chunks, list):
        return None
    raw = b"".join(base64.b64decode(chunk) for chunk in chunks)
    text = decode(raw)
    return len(raw), text.removeprefix("\ufeff")


def _stream(measure: str, default: float | None, key: str = "maxBytes") -> Deltas:
    def deltas(case: Case) -> list[float]:
        output = _output(case)
        bound = _limit(case, key, default)
        if output is None or bound is None:
            return []
        raw, text = output
        count = {"raw": raw, "bytes": byte_length(text), "lines": _lines(text)}
        if measure == "window":
            return _vs(byte_length(text), 4 * bound)
        return _vs(count[measure], bound)

    return deltas


# tool.read / tool.grep ----------------------------------------------------------------


def _tree_texts(case: Case) -> dict[str, str]:
    texts = {}
    for path, value in (case.args.get("tree") or {}).items():
        if isinstance(value, str):
            texts[path] = value
        elif isinstance(value, Mapping) and isinstance(value.get("content"), str):
            texts[path] = value["content"]
    return texts


def _read_lines(case: Case) -> list[str] | None:
    """The lines read shows from (after `offset`, within `limit`), or None."""
    path = str(case.args.get("path", "")).removeprefix("@")
    cwd = str(case.args.get("cwd", "/"))
    full = path if path.startswith("/") else f"{cwd.rstrip('/')}/{path}"
    text = _tree_texts(case).get(full.lstrip("/"))
    if text is None:
        return None
    offset = _number(case.args.get("offset"))
    lines = text.split("\n")[max(int(offset or 1) - 1, 0) :]
    limit = _number(case.args.get("limit"))
    return lines if limit is None or limit < 0 else lines[: int(limit)]


def _read_shown(measure: str) -> Deltas:
    def deltas(case: Case) -> list[float]:
        if _number(case.args.get("limit")) is not None:
            return []
        lines = _read_lines(case)
        if not lines:
            return []
        count = {
            "lines": len(lines),
            "bytes": byte_length("\n".join(lines)),
            "first": byte_length(lines[0]),
        }
        return _vs(count[measure], 2000 if measure == "lines" else 51200)

    return deltas


def _read_left(case: Case) -> list[float]:
    limit = _number(case.args.get("limit"))
    lines = _read_lines(_with_args(case, {**case.args, "limit": None}))
    return [] if lines is None or limit is None or limit < 0 else _vs(len(lines), limit)


def _read_offset(case: Case) -> list[float]:
    offset = _number(case.args.get("offset"))
    lines = _read_lines(_with_args(case, {**case.args, "offset": None, "limit": None}))
    return [] if lines is None else _vs(offset, len(lines))


def _links(case: Case) -> list[float]:
    tree = case.args.get("tree") or {}
    links = sum(1 for value in tree.values() if isinstance(value, Mapping) and "symlink" in value)
    return _vs(links, 40) if links else []


def _with_args(case: Case, args: dict[str, Any]) -> Case:
    return replace(case, args=args)


def _grep_matches(case: Case) -> list[float]:
    pattern = case.args.get("pattern")
    if not isinstance(pattern, str) or case.args.get("context"):
        return []
    try:
        with (
            warnings.catch_warnings()
        ):  # ripgrep's dialect is not Python's: warnings are no matter here
            warnings.simplefilter("ignore")
            regex = re.compile(
                re.escape(pattern) if case.args.get("literal") else pattern,
                re.IGNORECASE if case.args.get("ignoreCase") else 0,
            )
    except re.error:
        return []
    texts = _tree_texts(case).values()
    matches = sum(1 for text in texts for line in text.split("\n") if regex.search(line))
    return _vs(matches, _number(case.args.get("limit")) or 100) if matches else []


def _grep_bytes(case: Case) -> list[float]:
    result = case.expect_result
    if not isinstance(result, Mapping) or result.get("isError"):
        return []
    details = result.get("details")
    truncation = details.get("truncation") if isinstance(details, Mapping) else None
    if isinstance(truncation, Mapping):
        return _vs(truncation["totalBytes"], 51200)
    return _vs(byte_length(str(result.get("text", "")).split("\n\n[")[0]), 51200)


def _grep_line_units(case: Case) -> list[float]:
    units = {
        code_units(line.rstrip("\r"))
        for text in _tree_texts(case).values()
        for line in text.split("\n")
    }
    return _each_vs(units, 500)


# sessions and compaction --------------------------------------------------------------


def _settings(case: Case, key: str, default: float) -> float:
    settings = case.args.get("settings") or {}
    return float(settings.get(key, default))


def _defaulted(case: Case, key: str) -> bool:
    return key not in (case.args.get("settings") or {})


def _estimate_chars(case: Case) -> list[float]:
    # CP-2 on a user message of text: chars at 4k-1, 4k, 4k+1 (its estimate's edges)
    message = case.args.get("message")
    if not isinstance(message, Mapping) or message.get("role") != "user":
        return []
    content = message.get("content")
    if not isinstance(content, str) or not content:
        return []
    return [(code_units(content) + 1) % 4 - 1]


def _should(default_reserve: bool) -> Deltas:
    def deltas(case: Case) -> list[float]:
        if _defaulted(case, "reserveTokens") != default_reserve:
            return []
        window = _number(case.args.get("contextWindow"))
        tokens = _number(case.args.get("contextTokens"))
        messages = case.args.get("messages")
        if tokens is None and isinstance(messages, list):
            tokens = estimate_context_tokens(messages).tokens
        return (
            [] if window is None else _vs(tokens, window - _settings(case, "reserveTokens", 16384))
        )

    return deltas


def _suffix_sums(entries: Sequence[Any]) -> list[float]:
    """The estimates summed from the newest entry back, at each entry that counts (CP-4)."""
    sums: list[float] = []
    total = 0.0
    for entry in reversed(entries):
        if isinstance(entry, Mapping) and (tokens := _entry_tokens(entry)):
            total += tokens
            sums.append(total)
    return sums


def _entry_tokens(entry: Mapping[str, Any]) -> int:
    try:
        return PLAIN.entry_tokens(entry)  # CP-2
    except Exception:  # an entry the estimate refuses counts nothing here
        return 0


def _keep(default: bool) -> Deltas:
    def deltas(case: Case) -> list[float]:
        entries = case.args.get("entries")
        if not isinstance(entries, list):
            return []
        if case.op == "compaction.cut_point":
            if default:
                return []
            return _each_vs(_suffix_sums(entries), _number(case.args.get("keepRecentTokens")))
        if _defaulted(case, "keepRecentTokens") != default:
            return []
        return _each_vs(_suffix_sums(entries), _settings(case, "keepRecentTokens", 20000))

    return deltas


def _budget(case: Case) -> list[float]:
    entries = case.args.get("entries")
    budget = _number(case.args.get("tokenBudget"))
    if not isinstance(entries, list) or not budget or budget <= 0:
        return []
    return _each_vs(_suffix_sums(entries), budget)


def _model_max(bound: Callable[[Case], float]) -> Deltas:
    def deltas(case: Case) -> list[float]:
        model = case.args.get("model") or {}
        return _vs(_number(model.get("maxTokens")) or None, bound(case))

    return deltas


def _replies(case: Case) -> Iterator[tuple[Mapping[str, Any], Mapping[str, Any]]]:
    """(reply, usage) of each scripted agent reply of a run."""
    for reply in case.args.get("replies") or []:
        if isinstance(reply, Mapping) and isinstance(reply.get("usage"), Mapping):
            yield reply, reply["usage"]


def _window(case: Case) -> float:
    model = case.args.get("model") or {}
    return _number(model.get("contextWindow")) or 128000


def _run_threshold(case: Case) -> list[float]:
    bound = _window(case) - _settings(case, "reserveTokens", 16384)
    return _each_vs((calculate_context_tokens(usage) for _, usage in _replies(case)), bound)


def _prompt_tokens(usage: Mapping[str, Any]) -> float:
    return float(usage.get("input", 0)) + float(usage.get("cacheRead", 0))


def _run_overflow(case: Case) -> list[float]:
    inputs = (_prompt_tokens(u) for r, u in _replies(case) if r.get("stopReason", "stop") == "stop")
    return _each_vs(inputs, _window(case))


def _run_length_input(case: Case) -> list[float]:
    inputs = (
        _prompt_tokens(u)
        for r, u in _replies(case)
        if r.get("stopReason") == "length" and not u.get("output")
    )
    return _each_vs(inputs, math.ceil(_window(case) * 0.99))


def _run_length_output(case: Case) -> list[float]:
    model = case.args.get("model") or {}
    outputs = (
        float(u.get("output", 0)) for r, u in _replies(case) if r.get("stopReason") == "length"
    )
    return _each_vs(outputs, _number(model.get("maxTokens")) or None)


def _usage_size(case: Case) -> list[float]:
    messages = case.args.get("messages") or []
    usages = (
        m["usage"]
        for m in messages
        if isinstance(m, Mapping)
        and m.get("role") == "assistant"
        and isinstance(m.get("usage"), Mapping)
    )
    return _each_vs((calculate_context_tokens(u) for u in usages), 0)


# resources ----------------------------------------------------------------------------


def _front_matter(case: Case) -> Iterator[tuple[str, Mapping[str, Any], str]]:
    for path, text in _tree_texts(case).items():
        if not path.endswith(".md"):
            continue
        try:
            fields, body = parse_frontmatter(text)
        except FrontmatterError:
            continue
        yield path, fields if isinstance(fields, Mapping) else {}, body


def _skill_field(field: str, bound: int) -> Deltas:
    def deltas(case: Case) -> list[float]:
        values = (
            fields[field]
            for path, fields, _ in _front_matter(case)
            if "prompts/" not in path and isinstance(fields.get(field), str)
        )
        return _each_vs((code_units(value) for value in values), bound)

    return deltas


def _prompt_first_line(case: Case) -> list[float]:
    if not case.args.get("extended"):
        return []
    lines = (
        next((line for line in body.split("\n") if line.strip()), None)
        for path, fields, body in _front_matter(case)
        if "prompts/" in path and "description" not in fields
    )
    return _each_vs((code_units(line) for line in lines if line is not None), 60)


def _hex_digits(case: Case) -> list[float]:
    colours = (
        colour
        for path, text in _tree_texts(case).items()
        if path.endswith(".json")
        for colour in re.findall(r'"(#[^"]*)"', text)
    )
    return _each_vs((code_units(colour) - 1 for colour in colours), 6)


HEAD_TAIL: Final = ("truncate.head", "truncate.tail")
STREAMS: Final = ("stream.tail", "tool.bash")
LOADERS: Final = ("skills.load", "resources.load")
SUMMARIES: Final = ("branch.summarize", "session.navigate")

CAPS: Final[tuple[Cap, ...]] = (
    Cap(
        "TRUNC-5", "default maxLines 2000 (lines)", HEAD_TAIL, _truncation("maxLines", 2000, _lines)
    ),
    Cap("TRUNC-5", "maxLines (lines)", HEAD_TAIL, _truncation("maxLines", None, _lines)),
    Cap(
        "TRUNC-6",
        "default maxBytes 51200 (bytes)",
        HEAD_TAIL,
        _truncation("maxBytes", 51200, byte_length),
    ),
    Cap("TRUNC-6", "maxBytes (bytes)", HEAD_TAIL, _truncation("maxBytes", None, byte_length)),
    Cap(
        "TRUNC-3",
        "head's first line, default maxBytes (bytes)",
        ("truncate.head",),
        _edge_line_bytes(51200),
    ),
    Cap(
        "TRUNC-3", "head's first line, maxBytes (bytes)", ("truncate.head",), _edge_line_bytes(None)
    ),
    Cap(
        "TRUNC-4",
        "tail's last line, default maxBytes (bytes)",
        ("truncate.tail",),
        _edge_line_bytes(51200),
    ),
    Cap(
        "TRUNC-4", "tail's last line, maxBytes (bytes)", ("truncate.tail",), _edge_line_bytes(None)
    ),
    Cap(
        "TRUNC-7",
        "truncateLine maxChars, default 500 (code units)",
        ("truncate.line",),
        _line_units,
    ),
    Cap("TRUNC-8", "formatSize KB at 1024 (bytes)", ("format.size",), _size(1024)),
    Cap("TRUNC-8", "formatSize MB at 1048576 (bytes)", ("format.size",), _size(1048576)),
    Cap(
        "STREAM-3", "window 4 x default maxBytes (decoded bytes)", STREAMS, _stream("window", 51200)
    ),
    Cap(
        "STREAM-3", "window 4 x maxBytes (decoded bytes)", ("stream.tail",), _stream("window", None)
    ),
    Cap("STREAM-5", "default maxBytes, raw (bytes)", STREAMS, _stream("raw", 51200)),
    Cap("STREAM-5", "maxBytes, raw (bytes)", ("stream.tail",), _stream("raw", None)),
    Cap("STREAM-5", "default maxBytes, decoded (bytes)", STREAMS, _stream("bytes", 51200)),
    Cap("STREAM-5", "maxBytes, decoded (bytes)", ("stream.tail",), _stream("bytes", None)),
    Cap("STREAM-5", "default maxLines (lines)", STREAMS, _stream("lines", 2000, "maxLines")),
    Cap("STREAM-5", "maxLines (lines)", ("stream.tail",), _stream("lines", None, "maxLines")),
    Cap("READ-3", "read's 2000 lines (lines)", ("tool.read",), _read_shown("lines")),
    Cap("READ-3", "read's 51200 bytes (bytes)", ("tool.read",), _read_shown("bytes")),
    Cap("READ-3", "read's first line, 50.0KB advice (bytes)", ("tool.read",), _read_shown("first")),
    Cap("READ-4", "read's limit vs lines left (lines)", ("tool.read",), _read_left),
    Cap("READ-1", "read's offset vs line count (lines)", ("tool.read",), _read_offset),
    Cap("READ-5", "40 links in a lookup (links)", ("tool.read",), _links),
    Cap("GREP-1", "match limit, default 100 (matches)", ("tool.grep",), _grep_matches),
    Cap("GREP-1", "output 51200 (bytes)", ("tool.grep",), _grep_bytes),
    Cap("GREP-2", "line cut 500 (code units)", ("tool.grep",), _grep_line_units),
    Cap("CP-1", "usage context size above 0 (tokens)", ("context.estimate",), _usage_size),
    Cap("CP-2", "estimate ceil(chars / 4) (code units)", ("tokens.estimate",), _estimate_chars),
    Cap("CP-6", "window - default reserveTokens (tokens)", ("compaction.should",), _should(True)),
    Cap("CP-6", "window - reserveTokens (tokens)", ("compaction.should",), _should(False)),
    Cap("CP-6", "run: usage vs window - reserveTokens (tokens)", ("session.run",), _run_threshold),
    Cap("CP-4", "cut point keepRecentTokens (tokens)", ("compaction.cut_point",), _keep(False)),
    Cap("CP-4", "prepare keepRecentTokens (tokens)", ("compaction.prepare",), _keep(False)),
    Cap(
        "CP-4",
        "prepare default keepRecentTokens 20000 (tokens)",
        ("compaction.prepare",),
        _keep(True),
    ),
    Cap(
        "CP-10",
        "history floor(0.8 x reserveTokens) vs model maxTokens (tokens)",
        ("compaction.compact",),
        _model_max(lambda case: math.floor(0.8 * _settings(case, "reserveTokens", 16384))),
    ),
    Cap(
        "CP-10",
        "turn prefix floor(0.5 x reserveTokens) vs model maxTokens (tokens)",
        ("compaction.compact",),
        _model_max(lambda case: math.floor(0.5 * _settings(case, "reserveTokens", 16384))),
    ),
    Cap(
        "CP-12", "run: completed reply's input vs window (tokens)", ("session.run",), _run_overflow
    ),
    Cap(
        "CP-15",
        "run: length stop without output vs 99% of window (tokens)",
        ("session.run",),
        _run_length_input,
    ),
    Cap(
        "CP-15",
        "run: length stop's output vs model maxTokens (tokens)",
        ("session.run",),
        _run_length_output,
    ),
    Cap("LCA-2", "branch token budget (tokens)", ("branch.prepare",), _budget),
    Cap(
        "LCA-7",
        "summary maxTokens 4096 vs model maxTokens (tokens)",
        SUMMARIES,
        _model_max(lambda case: 4096),
    ),
    Cap("SKILL-3", "skill name 64 (code units)", LOADERS, _skill_field("name", 64)),
    Cap(
        "SKILL-3", "skill description 1024 (code units)", LOADERS, _skill_field("description", 1024)
    ),
    Cap(
        "RES-8",
        "prompt description from its first line, 60 (code units)",
        ("resources.load",),
        _prompt_first_line,
    ),
    Cap("THEME-2", "colour # and 6 digits (code units)", ("resources.load",), _hex_digits),
)


def census(cases: Iterable[Case] | None = None) -> dict[Cap, dict[int | None, list[str]]]:
    """cap -> side (-1, 0, 1; None: away from the cap) -> the ids of the active cases there."""
    table: dict[Cap, dict[int | None, list[str]]] = {cap: {} for cap in CAPS}
    for case in load_cases() if cases is None else cases:
        if case.status != "active":
            continue
        for cap in CAPS:
            if case.op not in cap.ops:
                continue
            sides = {int(d) if d in SIDES else None for d in cap.deltas(case)}
            for side in sides:
                table[cap][side] = [*table[cap].get(side, []), case.id]
    return table


@pytest.mark.parametrize("cap", CAPS, ids=lambda cap: f"{cap.rule}:{cap.name}")
def test_cap_has_cases_at_it_and_either_side(cap: Cap) -> None:
    sides = _census()[cap]
    missing = [name for side, name in SIDES.items() if not sides.get(side)]
    assert not missing, (
        f"{cap.rule} {cap.name} ({', '.join(cap.ops)}): no case at {', '.join(missing)}"
    )


_CENSUS: dict[Cap, dict[int | None, list[str]]] = {}


def _census() -> dict[Cap, dict[int | None, list[str]]]:
    if not _CENSUS:
        _CENSUS.update(census())
    return _CENSUS


if __name__ == "__main__":
    for cap, sides in census().items():
        counts = "  ".join(f"{name} {len(sides.get(side, []))}" for side, name in SIDES.items())
        print(f"{cap.rule:9} {cap.name:66} {counts}  away {len(sides.get(None, []))}")
