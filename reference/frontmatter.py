"""Front matter: the YAML block at the head of a skill or prompt file, read as Pi 0.85.0 does.

Pi cuts the block out itself (`extract`) and hands it to the `yaml` package (eemeli/yaml
2.9, Pi's `package.json`), whose default is the YAML 1.2 *core* schema. PyYAML's parser
is kept, with the resolution rules replaced (`CoreLoader`), because what differs between
the two libraries on front matter is almost all in resolving plain scalars:

- FM-1: only `true`/`True`/`TRUE` and the three spellings of false are booleans (`yes`,
  `on`, `y` stay strings); `~`, `null`, `Null`, `NULL` and nothing are null; integers
  are decimal (`012` is 12), `0o7` or `0x1F`; `1_000`, dates and sexagesimals are
  strings; `<<` is an ordinary key; numbers are JS numbers (beyond 2**53, the nearest
  double); an unknown tag (`!x`, `!!int x`) keeps the scalar as a string;
- FM-2: a block scalar ends with its line break even at the end of the block (`|` on
  the last line before `---` keeps its final `\\n`): the block is given a final newline;
- FM-3: errors carry `yaml`'s wording and its position suffix (`at line L, column C:`
  with the line(s) and a caret, `FrontmatterError.message`) for the classes found by
  probing Pi: duplicate keys, tabs as indentation, missing closing quotes, reserved
  characters `@` and `` ` ``, bad `\\` escapes, an alias without anchor, a sequence on
  a key's line, a key spread over lines, a mapping nested in a compact one; a second
  document after `...` (marked from the start of its first line that is not blank, a
  comment or a directive; its own errors unreported); a flow collection in a block one
  that a later line not indented past the block node cuts, or that the block's end
  leaves open (found by the scanner, `CoreLoader.flow_break`; a tab in it is no
  indentation); content after the document's node (`Unexpected <token> at node end`,
  `NODE_END_TOKENS`). The first error in source order is reported (of two at one place,
  the one `yaml` lists first); an alias without anchor only when there is no other. Any
  other syntax error keeps `yaml`'s suffix on PyYAML's own problem text, which Pi words
  differently.

ruamel.yaml was considered (it speaks YAML 1.2), but it parses with the same scanner as
PyYAML, so it would add a dependency for the resolver alone, which is a table here.
"""

from __future__ import annotations

import base64
import math
import re
from dataclasses import dataclass
from typing import Any, Final

import yaml
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode
from yaml.resolver import BaseResolver

from reference.tree import strip_bom

__all__ = ["FrontmatterError", "extract", "js_trim", "parse_frontmatter"]

_STR: Final = "tag:yaml.org,2002:str"
# FM-1: the core schema's implicit scalars (tag, pattern, first characters)
CORE_SCALARS: Final = (
    ("tag:yaml.org,2002:null", r"^(?:~|[Nn]ull|NULL|)$", ["~", "n", "N", ""]),
    ("tag:yaml.org,2002:bool", r"^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$", list("tTfF")),
    ("tag:yaml.org,2002:int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", list("-+0123456789")),
    (
        "tag:yaml.org,2002:float",
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$",
        list("-+.0123456789"),
    ),
)
_SAFE_INT: Final = 2**53
# String.prototype.trim's set: WhiteSpace and LineTerminator (not str.strip's)
_JS_SPACE: Final = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_JS_TRIM: Final = re.compile(f"^[{_JS_SPACE}]+|[{_JS_SPACE}]+$")


def js_trim(text: str) -> str:
    """`text.trim()` as JS does it.

    >>> js_trim("\\ufeff x \\x1f")
    'x \\x1f'
    """
    return _JS_TRIM.sub("", text)


class FrontmatterError(ValueError):
    """The block is not YAML `yaml` accepts; `message` is the text Pi shows."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class CoreResolver(BaseResolver):
    """FM-1: implicit tags of the YAML 1.2 core schema, nothing else."""

    yaml_implicit_resolvers: dict[Any, Any] = {}  # noqa: RUF012 (PyYAML's class table)


for _tag, _pattern, _first in CORE_SCALARS:
    CoreResolver.add_implicit_resolver(_tag, re.compile(_pattern), _first)


def _js_number(text: str) -> float | int:
    """A core-schema number as JS holds it: ints stay ints while exact, else a double."""
    if text.startswith(("0o", "0x")):
        value = int(text[2:], 8 if text[1] == "o" else 16)
    elif re.fullmatch(r"[-+]?[0-9]+", text):
        value = int(text)
    else:
        lowered = text.lower()
        if lowered.endswith(".nan"):
            return math.nan
        if lowered.endswith(".inf"):
            return -math.inf if text.startswith("-") else math.inf
        return float(text)
    return value if abs(value) < _SAFE_INT else float(value)


class CoreConstructor(SafeConstructor):
    """Values of the core schema, JS-shaped; duplicate keys refused (FM-3)."""

    def construct_core_bool(self, node: ScalarNode) -> bool:
        return str(self.construct_scalar(node)).lower() == "true"

    def construct_core_number(self, node: ScalarNode) -> Any:
        text = str(self.construct_scalar(node))
        try:
            return _js_number(text)
        except ValueError:
            return text  # FM-1: an explicit `!!int x` that is no number stays a string

    def construct_core_null(self, node: ScalarNode) -> None:
        return None

    def construct_unknown(self, node: Node) -> Any:
        # FM-1: a tag `yaml` cannot resolve keeps the node as its plain kind
        if isinstance(node, ScalarNode):
            return self.construct_scalar(node)
        if isinstance(node, MappingNode):
            return self.construct_core_mapping(node)
        return self.construct_sequence(node)  # type: ignore[arg-type]

    def construct_core_mapping(self, node: MappingNode) -> dict[str, Any]:
        out: dict[str, Any] = {}
        seen: set[tuple[str, Any]] = set()
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=True)
            identity = _key_identity(key)
            if identity in seen:
                at = key_node.start_mark.index
                raise _MarkedError(
                    "Map keys must be unique", _duplicate_at(key_node.start_mark.buffer or "", at)
                )
            seen.add(identity)
            out[_js_key(key)] = self.construct_object(value_node, deep=True)
        return out

    def construct_core_map_node(self, node: MappingNode) -> Any:
        return self.construct_core_mapping(node)

    def construct_core_binary(self, node: ScalarNode) -> dict[str, Any]:
        # a Node Buffer, as JSON.stringify writes it
        data = base64.b64decode("".join(str(self.construct_scalar(node)).split()))
        return {"type": "Buffer", "data": list(data)}

    def construct_core_set(self, node: MappingNode) -> dict[str, Any]:
        return {}  # a JS Set, which JSON.stringify writes as {}


# FM-1: which constructor builds each tag (None: a tag the core schema does not know)
CORE_CONSTRUCTORS: Final = (
    ("tag:yaml.org,2002:bool", "construct_core_bool"),
    ("tag:yaml.org,2002:int", "construct_core_number"),
    ("tag:yaml.org,2002:float", "construct_core_number"),
    ("tag:yaml.org,2002:null", "construct_core_null"),
    ("tag:yaml.org,2002:map", "construct_core_map_node"),
    ("tag:yaml.org,2002:binary", "construct_core_binary"),
    ("tag:yaml.org,2002:set", "construct_core_set"),
    ("tag:yaml.org,2002:timestamp", "construct_unknown"),
    ("tag:yaml.org,2002:omap", "construct_unknown"),
    ("tag:yaml.org,2002:pairs", "construct_unknown"),
    (None, "construct_unknown"),
)
for _tag_name, _method in CORE_CONSTRUCTORS:
    CoreConstructor.add_constructor(_tag_name, getattr(CoreConstructor, _method))


class CoreLoader(
    yaml.reader.Reader,
    yaml.scanner.Scanner,
    yaml.parser.Parser,
    yaml.composer.Composer,
    CoreConstructor,
    CoreResolver,
):
    """PyYAML's parser with the core schema's resolver and constructor."""

    def __init__(self, stream: str) -> None:
        yaml.reader.Reader.__init__(self, stream)
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)
        yaml.composer.Composer.__init__(self)
        CoreConstructor.__init__(self)
        CoreResolver.__init__(self)

    # FM-3: a flow collection inside a block one ends at the first token of a later line
    # not indented past the block node (a sequence's `-`, a mapping's keys), or at the end
    # of the block when it is still open (its closing bracket may stand at the node's
    # column): the first such place, and the bracket open there; a comment found there
    # right after a plain scalar is an error of its own
    flow_parent: int = -1
    flow_opened: str = ""
    flow_break: tuple[int, str, int] | None = None  # index, problem, length
    flow_spans: tuple[tuple[int, int], ...] = ()  # outermost flow collections, where tabs
    # are separation, not indentation

    def fetch_flow_collection_start(self, TokenClass: Any) -> None:  # noqa: N803 (PyYAML's)
        if not self.flow_level:
            self.flow_parent = self.indent
            self.flow_spans += ((self.index, -1),)
        self.flow_opened += self.peek()
        super().fetch_flow_collection_start(TokenClass)

    def fetch_flow_collection_end(self, TokenClass: Any) -> None:  # noqa: N803
        self.flow_opened = self.flow_opened[:-1]
        super().fetch_flow_collection_end(TokenClass)
        if not self.flow_opened and self.flow_spans:
            self._end_span(self.index)

    def _end_span(self, end: int) -> None:
        start, open_end = self.flow_spans[-1]
        if open_end == -1:
            self.flow_spans = (*self.flow_spans[:-1], (start, end))

    def _check_flow_indent(self, after_plain: bool = False) -> None:
        if not self.flow_opened or self.flow_break is not None:
            return
        char = self.peek()
        before = self.buffer[self.pointer - self.column : self.pointer]
        if char != "\0" and before.strip(" \t"):
            return  # not the first token of its line
        indent = len(before) - len(before.lstrip(" "))  # tabs are no indentation
        if char != "\0" and indent > self.flow_parent:
            return
        closer = {"[": "]", "{": "}"}.get(self.flow_opened)
        if char == closer and indent == self.flow_parent:
            return  # the outermost closing bracket may stand at the block node's column
        if after_plain and char == "#":
            length = 0
            while self.peek(length) not in "\0\r\n\x85\u2028\u2029":
                length += 1
            problem = "Comments must be separated from other tokens by white space characters"
            self.flow_break = (self.index, problem, length)
            return
        problem = _FLOW_END["]" if self.flow_opened[-1] == "[" else "}"]
        self.flow_break = (self.index, problem, 1)
        self._end_span(self.index)

    def scan_to_next_token(self) -> None:
        # PyYAML's, but a tab in a flow collection separates tokens as a space does
        if self.index == 0 and self.peek() == "\ufeff":
            self.forward()
        while True:
            while self.peek() == " " or (self.flow_level and self.peek() == "\t"):
                self.forward()
            if self.peek() == "#":
                while self.peek() not in "\0\r\n\x85\u2028\u2029":
                    self.forward()
            if not self.scan_line_break():  # type: ignore[no-untyped-call]
                break
            if not self.flow_level:
                self.allow_simple_key = True
        self._check_flow_indent()

    def scan_plain_spaces(self, indent: int, start_mark: Any) -> Any:
        line = self.line
        chunks = super().scan_plain_spaces(indent, start_mark)
        if self.line != line:  # a plain scalar's next line
            self._check_flow_indent(after_plain=True)
        return chunks

    # FM-3: an alias without anchor is `yaml`'s error only once the document parsed clean:
    # it is composed as null and kept for then
    unresolved: str | None = None

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        # FM-1: an anchor may be set again; later aliases see the newest node
        event = self.peek_event()  # type: ignore[no-untyped-call]
        if isinstance(event, yaml.AliasEvent) and event.anchor not in self.anchors:
            self.get_event()  # type: ignore[no-untyped-call]
            if self.unresolved is None:
                self.unresolved = event.anchor
            return ScalarNode("tag:yaml.org,2002:null", "", None, None)
        if not isinstance(event, yaml.AliasEvent) and getattr(event, "anchor", None):
            self.anchors.pop(event.anchor, None)
        return super().compose_node(parent, index)


@dataclass(frozen=True, slots=True)
class _MarkedError(Exception):
    problem: str
    index: int
    length: int = 1
    swallows: int | None = None  # scan errors past this index are inside this error's node
    worded: bool = True  # False: PyYAML's own words, which lose to any scanned error
    rank: int = 2  # which error `yaml` reports first of two at one position (lowest)
    flow: bool = False  # PyYAML's guess at a flow collection's end, which the scan replaces


def _duplicate_at(source: str, key_index: int) -> int:
    """FM-3: where `yaml` puts a repeated key's error: at the key, or, when the pair
    before it has an empty value, at the end of that pair's line."""
    line_start = source.rfind("\n", 0, key_index) + 1
    if line_start == 0:
        return key_index
    previous = source[source.rfind("\n", 0, line_start - 1) + 1 : line_start - 1]
    return line_start - 1 if re.search(r":[ \t]*$", previous) else key_index


def _key_identity(key: Any) -> tuple[str, Any]:
    if isinstance(key, bool) or key is None:
        return ("atom", key)
    if isinstance(key, int | float):
        return ("number", float(key))
    if isinstance(key, str):
        return ("string", key)
    return ("node", id(key))


def _js_key(key: Any) -> str:
    """An object key as JS writes a scalar key (`1`, `true`, `""` for null)."""
    if key is None:
        return ""
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, float) and key.is_integer() and abs(key) < 1e21:
        return str(int(key))
    if isinstance(key, list):
        return "[ " + ", ".join(_js_key(k) for k in key) + " ]"
    return str(key)


def extract(text: str) -> str | None:
    """The front matter block of a file's text, or None (no opening `---`, no closing one).

    Line ends are made `\\n` and a BOM dropped first; the block starts one character
    after the opening `---` and ends before the first `\\n---` after it.

    >>> extract("---\\nname: x\\n---\\nbody")
    'name: x'
    """
    normal = strip_bom(text).replace("\r\n", "\n").replace("\r", "\n")
    if not normal.startswith("---"):
        return None
    end = normal.find("\n---", 3)
    if end == -1:
        return None
    return normal[4:end]


def _prettify(source: str, problem: str, index: int, length: int = 1) -> str:
    """FM-3: `yaml`'s message: problem, position, the line(s) and a caret under it."""
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
_MULTIPLE_DOCUMENTS: Final = (
    "Source contains multiple documents; please use YAML.parseAllDocuments()"
)


_TOP_KEY: Final = re.compile(r"^([^\s#'\"\-?:\[\]{}][^:\n]*?):(?: |$)", re.MULTILINE)


def _known_errors(source: str, flows: tuple[tuple[int, int], ...]) -> list[_MarkedError]:
    """FM-3: errors `yaml` reports that a plain scan finds (PyYAML misses or words them);
    `flows` are the spans of the flow collections, whose tabs are no indentation."""
    found: list[_MarkedError] = []
    for tab in _TAB_INDENT.finditer(source):
        at = tab.start()
        if not any(start < at and (end == -1 or at < end) for start, end in flows):
            found.append(_MarkedError("Tabs are not allowed as indentation", at))
            break
    reserved = _RESERVED.search(source)
    if reserved is not None:
        char = reserved.group(1)
        found.append(
            _MarkedError(
                f"Plain value cannot start with reserved character {char}", reserved.start(1)
            )
        )
    seen: set[str] = set()
    for key in _TOP_KEY.finditer(source):  # a flat mapping's repeated key
        if key.group(1) in seen:
            found.append(
                _MarkedError("Map keys must be unique", _duplicate_at(source, key.start()))
            )
            break
        seen.add(key.group(1))
    second = _second_document(source)
    if second is not None:
        found.append(second)
    return found


_FLOW_END: Final = {
    "]": "Flow sequence in block collection must be sufficiently indented and end with a ]",
    "}": "Flow map in block collection must be sufficiently indented and end with a }",
}
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


def _node_end_error(source: str, at: int) -> _MarkedError:
    """FM-3: `Unexpected <token> at node end`, the caret under the whole token."""
    kind, pattern = NODE_END_TOKENS.get(source[at : at + 1], ("scalar", _PLAIN_ON_LINE.pattern))
    if source.startswith("-", at) and source[at + 1 : at + 2] not in ("", " ", "\t", "\n"):
        kind, pattern = "scalar", _PLAIN_ON_LINE.pattern  # `-x` is a plain scalar
    token = re.compile(pattern).match(source, at)
    length = max(1, token.end() - at) if token is not None else 1
    return _MarkedError(f"Unexpected {kind} at node end", at, length=length)


_KEY_TAB: Final = re.compile(r"^( *(?:- +)*[^\s'\"#\[\]{}|>][^:\n]*:)(\t+)", re.MULTILINE)


def _second_document(source: str) -> _MarkedError | None:
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
            return _MarkedError(
                _MULTIPLE_DOCUMENTS,
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


def _pyyaml_error(source: str, error: yaml.MarkedYAMLError) -> _MarkedError | str:
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
        return _MarkedError(f"Invalid escape sequence {source[at - 1 : at + 1]}", at - 1)
    opened = error.context_mark.index if error.context_mark is not None else at
    if "unexpected end of stream" in problem and "quoted" in str(error.context):
        # a quoted scalar runs on over lines to the end of the block
        quote = source[opened] if opened < len(source) else '"'
        end = len(source.rstrip("\n"))
        return _MarkedError(f"Missing closing {quote}quote", end, swallows=opened)
    flow = re.match(r"expected ',' or '([\]}])', but got ", problem)
    if flow is not None:
        next_line = source.find("\n", opened) + 1
        start = next_line if 0 < next_line <= at else at
        return _MarkedError(_FLOW_END[flow.group(1)], start, flow=True)
    if problem == "mapping values are not allowed here":
        message, start = _implicit_key_error(source, at)
        return _MarkedError(message, start, rank=0)
    if problem == "expected the node content, but found '<stream end>'":
        opener = _open_bracket(source[:at])
        if opener is not None:
            return _MarkedError(_FLOW_END["]" if opener == "[" else "}"], at, flow=True)
    if problem == "sequence entries are not allowed here":
        line_start = source.rfind("\n", 0, at) + 1
        if ":" in source[line_start:at]:
            return _MarkedError("Unexpected block-seq-ind on same line with key", at)
    if problem == "expected <block end>, but found '-'":
        return _MarkedError("Implicit keys need to be on a single line", at)
    if problem == "expected '<document start>', but found '<stream end>'":
        return _MarkedError("Missing directives-end indicator line", at)
    if _NODE_END.match(problem):
        return _node_end_error(source, at)
    return _MarkedError(problem[:1].upper() + problem[1:], at, worded=False)


def _superseded(found: _MarkedError, flow: _MarkedError | None) -> bool:
    """FM-3: PyYAML's guess at where a flow collection ends gives way to the scan's."""
    return flow is not None and found.flow


def _load(source: str) -> Any:
    """The block's value, or `FrontmatterError` for the first error `yaml` would report."""
    # FM-2: a block scalar keeps its line break at the end of the block
    text = source if source.endswith("\n") else source + "\n"
    # FM-1: a tab may separate a key's `:` from its value (PyYAML refuses it)
    text = _KEY_TAB.sub(lambda m: m.group(1) + " " * len(m.group(2)), text)
    loader = CoreLoader(text)
    value: Any = None
    found: _MarkedError | str | None = None
    try:
        value = loader.get_single_data()
    except _MarkedError as error:
        found = error
    except yaml.MarkedYAMLError as error:
        found = _pyyaml_error(source, error)
    except yaml.YAMLError as error:
        raise FrontmatterError(str(error)) from None
    finally:
        loader.dispose()
    errors = _known_errors(source, loader.flow_spans)
    if found is None and loader.unresolved is not None:
        found = f"Unresolved alias (the anchor must be set before the alias): {loader.unresolved}"
    flow = None
    if loader.flow_break is not None:
        at, problem, length = loader.flow_break
        # first of the errors at its position
        flow = _MarkedError(problem, min(at, len(source)), length=length, rank=-1)
    if isinstance(found, str):  # thrown after parsing, when the document has no error
        if not errors and flow is None:
            raise FrontmatterError(found) from None
    elif found is not None:
        if found.swallows is not None:
            errors = [e for e in errors if e.index < found.swallows]
        if (found.worded or not errors) and not _superseded(found, flow):
            errors.insert(0, found)
    if flow is not None:
        errors.append(flow)
    second = next((e for e in errors if e.problem == _MULTIPLE_DOCUMENTS), None)
    if second is not None:  # FM-3: the second document's own errors are never reported
        errors = [e for e in errors if e.index < second.index or e is second]
    if errors:
        first = min(errors, key=lambda e: (e.index, e.rank))
        raise FrontmatterError(_prettify(source, first.problem, first.index, first.length))
    return value


def parse_frontmatter(text: str) -> tuple[Any, str]:
    """Pi's `parseFrontmatter`: the block's value (`{}` for none or null) and the body.

    The value is whatever the YAML is (a mapping, but also a list or a string); callers
    read keys only from a mapping. The body is the text after the block, trimmed.
    Raises `FrontmatterError` with `yaml`'s message for YAML `yaml` refuses.

    >>> parse_frontmatter("---\\nflag: yes\\non: true\\n---\\n body ")
    ({'flag': 'yes', 'on': True}, 'body')
    """
    normal = strip_bom(text).replace("\r\n", "\n").replace("\r", "\n")
    block = extract(normal)
    if block is None:
        return {}, normal
    body = js_trim(normal[normal.find("\n---", 3) + 4 :])
    if not block:
        return {}, body
    value = _load(block)
    return ({} if value is None else value), body
