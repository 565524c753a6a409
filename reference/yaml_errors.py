"""FM-3: a YAML error in the words and at the place `yaml` 2.9 (Pi's parser) gives it.

PyYAML finds most errors front matter can have, but words them its own way, puts some at
other places, and misses a few. `pyyaml_error` rewords the classes found by probing Pi,
`known_errors` finds those a plain scan of the block finds, and `prettify` writes the
message with `yaml`'s position suffix. Apart from `ctxspec.reference.frontmatter` because it is
one concern of its own, about half of the front matter rules.
"""

from __future__ import annotations

import re
from typing import Final

import yaml

from ctxspec.reference._utf16 import canonical, code_units, units
from ctxspec.reference.yaml_core import FLOW_END, MarkedError, duplicate_at

__all__ = [
    "MULTIPLE_DOCUMENTS",
    "NODE_END_TOKENS",
    "known_errors",
    "prettify",
    "pyyaml_error",
    "superseded",
]


def prettify(source: str, problem: str, index: int, length: int = 1) -> str:
    """FM-3: `yaml`'s message: problem, position, the line(s) and a caret under it.

    `index` and `length` are in code points of `source`; `yaml` counts columns, cuts
    long lines and places the caret in UTF-16 code units (a JavaScript string's
    indices), so an astral character counts twice and a cut may halve it.

    >>> prettify("a: \U0001f642 @", "Bad", 5).splitlines()[0]
    'Bad at line 1, column 7:'
    """
    length = code_units(source[index : index + length])
    index = code_units(source[:index])
    return canonical(_prettify(units(source), problem, index, length))


def _prettify(source: str, problem: str, index: int, length: int) -> str:
    """`prettify` over a text of UTF-16 code units (one `str` character each)."""
    starts = [0] + [m.end() for m in re.finditer("\n", source)]
    line = max(i for i, start in enumerate(starts) if start <= index) + 1
    col = index - starts[line - 1] + 1
    message = f"{problem} at line {line}, column {col}"
    end = starts[line] if line < len(starts) else len(source)
    text = source[starts[line - 1] : end].rstrip("\r\n")
    ci = col - 1
    if ci >= 60 and len(text) > 80:
        trim = min(ci - 39, len(text) - 79)
        text = "…" + text[trim:]
        ci -= trim - 1
    if len(text) > 80:
        text = text[:79] + "…"
    if line > 1 and not text[:ci].strip(" "):
        previous = source[starts[line - 2] : starts[line - 1]]
        if len(previous) > 80:
            previous = previous[:79] + "…\n"
        text = previous + text
    if text.strip(" "):
        count = max(1, min(length, 80 - ci))
        message += f":\n\n{text}\n{' ' * ci}{'^' * count}\n"
    return message


_TAB_INDENT: Final = re.compile(r"^ *\t", re.MULTILINE)
_RESERVED: Final = re.compile(r"^(?:[^#\n]*?(?::|-) +|)([@`])", re.MULTILINE)
_DOC_END: Final = re.compile(r"^\.\.\.(?:[ \t].*)?$", re.MULTILINE)
MULTIPLE_DOCUMENTS: Final = (
    "Source contains multiple documents; please use YAML.parseAllDocuments()"
)


_TOP_KEY: Final = re.compile(r"^([^\s#'\"\-?:\[\]{}][^:\n]*?):(?: |$)", re.MULTILINE)


def known_errors(source: str, flows: tuple[tuple[int, int], ...]) -> list[MarkedError]:
    """FM-3: errors `yaml` reports that a plain scan finds (PyYAML misses or words them);
    `flows` are the spans of the flow collections, whose tabs are no indentation."""
    found: list[MarkedError] = []
    for tab in _TAB_INDENT.finditer(source):
        at = tab.start()
        if not any(start < at and (end == -1 or at < end) for start, end in flows):
            found.append(MarkedError("Tabs are not allowed as indentation", at))
            break
    reserved = _RESERVED.search(source)
    if reserved is not None:
        char = reserved.group(1)
        found.append(
            MarkedError(
                f"Plain value cannot start with reserved character {char}", reserved.start(1)
            )
        )
    seen: set[str] = set()
    for key in _TOP_KEY.finditer(source):  # a flat mapping's repeated key
        if key.group(1) in seen:
            found.append(MarkedError("Map keys must be unique", duplicate_at(source, key.start())))
            break
        seen.add(key.group(1))
    second = _second_document(source)
    if second is not None:
        found.append(second)
    return found


_NODE_END: Final = re.compile(
    r"expected (?:<block end>|'<document start>'), but found "
    r"'(?:<scalar>|\?|<block mapping start>|<block sequence start>|-|<anchor>|<tag>|\[|\{)'"
)
# FM-3: `yaml`'s name for the token left after the document's node, by its first
# character, and how far its caret runs (the token on its line)
NODE_END_TOKENS: Final = {
    "'": ("single-quoted-scalar", r"'(?:[^'\n]|'')*'?"),
    '"': ("double-quoted-scalar", r'"(?:[^"\\\n]|\\.)*"?'),
    "-": ("seq-item-ind", r"-"),
    "?": ("explicit-key-ind", r"\?"),
    "&": ("anchor", r"&[^\s]*"),
    "!": ("tag", r"![^\s]*"),
    "[": ("flow-seq-start", r"\["),
    "{": ("flow-map-start", r"\{"),
}
_PLAIN_ON_LINE: Final = re.compile(r"(?:[^\s:#]|:(?=\S)|(?<=\S)#|[ \t]+(?=[^\s#:]|:\S))*")


def _node_end_error(source: str, at: int) -> MarkedError:
    """FM-3: `Unexpected <token> at node end`, the caret under the whole token."""
    kind, pattern = NODE_END_TOKENS.get(source[at : at + 1], ("scalar", _PLAIN_ON_LINE.pattern))
    if source.startswith("-", at) and source[at + 1 : at + 2] not in ("", " ", "\t", "\n"):
        kind, pattern = "scalar", _PLAIN_ON_LINE.pattern  # `-x` is a plain scalar
    token = re.compile(pattern).match(source, at)
    length = max(1, token.end() - at) if token is not None else 1
    return MarkedError(f"Unexpected {kind} at node end", at, length=length)


def _second_document(source: str) -> MarkedError | None:
    """FM-3: a document after a `...` line: `yaml` marks it from the start of its first
    line that is not blank, a comment or a directive, to the end of that line when the
    document ends there (one caret otherwise)."""
    end = _DOC_END.search(source)
    if end is None:
        return None
    line_start = end.end() + 1
    while line_start < len(source):
        line_end = source.find("\n", line_start)
        line_end = len(source) if line_end == -1 else line_end
        line = source[line_start:line_end]
        if line.strip(" \t") and not line.lstrip(" \t").startswith("#") and line[0] != "%":
            last = not source[line_end:].strip()
            length = line_end - line_start if last else 1
            return MarkedError(
                MULTIPLE_DOCUMENTS,
                line_start,
                length=length,
                rank=1,
            )
        line_start = line_end + 1
    return None


def _open_bracket(text: str) -> str | None:
    """The innermost `[` or `{` left open in `text` (quotes skipped), or None."""
    stack: list[str] = []
    quote = ""
    for char in text:
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "[{":
            stack.append(char)
        elif char in "]}" and stack:
            stack.pop()
    return stack[-1] if stack else None


def _implicit_key_error(source: str, colon: int) -> tuple[str, int]:
    """A `:` after a plain scalar that spans lines or follows a value on its line."""
    before = source.rfind(": ", 0, colon)
    if before == -1:
        head = source[:colon]
        return "Implicit keys need to be on a single line", len(head) - len(head.lstrip())
    start = before + 2
    while start < colon and source[start] in " \n":
        start += 1
    return "Nested mappings are not allowed in compact mappings", start


def pyyaml_error(source: str, error: yaml.MarkedYAMLError) -> MarkedError | str:
    """FM-3: PyYAML's error put in `yaml`'s words where the class is known."""
    mark = error.problem_mark
    problem = str(error.problem or error.context or "YAML error")
    if mark is None:
        return problem
    at = min(mark.index, len(source))
    alias = re.match(r"found undefined alias '(.*)'$", problem)
    if alias is not None:
        return f"Unresolved alias (the anchor must be set before the alias): {alias.group(1)}"
    if "found unknown escape character" in problem:
        return MarkedError(f"Invalid escape sequence {source[at - 1 : at + 1]}", at - 1)
    opened = error.context_mark.index if error.context_mark is not None else at
    if "unexpected end of stream" in problem and "quoted" in str(error.context):
        # a quoted scalar runs on over lines to the end of the block
        quote = source[opened] if opened < len(source) else '"'
        end = len(source.rstrip("\n"))
        return MarkedError(f"Missing closing {quote}quote", end, swallows=opened)
    flow = re.match(r"expected ',' or '([\]}])', but got ", problem)
    if flow is not None:
        next_line = source.find("\n", opened) + 1
        start = next_line if 0 < next_line <= at else at
        return MarkedError(FLOW_END[flow.group(1)], start, flow=True)
    if problem == "mapping values are not allowed here":
        message, start = _implicit_key_error(source, at)
        return MarkedError(message, start, rank=0)
    if problem == "expected the node content, but found '<stream end>'":
        opener = _open_bracket(source[:at])
        if opener is not None:
            return MarkedError(FLOW_END["]" if opener == "[" else "}"], at, flow=True)
    if problem == "sequence entries are not allowed here":
        line_start = source.rfind("\n", 0, at) + 1
        if ":" in source[line_start:at]:
            return MarkedError("Unexpected block-seq-ind on same line with key", at)
    if problem == "expected <block end>, but found '-'":
        return MarkedError("Implicit keys need to be on a single line", at)
    if problem == "expected '<document start>', but found '<stream end>'":
        return MarkedError("Missing directives-end indicator line", at)
    if _NODE_END.match(problem):
        return _node_end_error(source, at)
    return MarkedError(problem[:1].upper() + problem[1:], at, worded=False)


def superseded(found: MarkedError, flow: MarkedError | None) -> bool:
    """FM-3: PyYAML's guess at where a flow collection ends gives way to the scan's."""
    return flow is not None and found.flow
