"""The YAML 1.2 core schema on PyYAML's parser: how `yaml` 2.9, Pi's parser, reads
front matter that is valid (FM-1), and where the scanner sees a flow collection end (FM-3).

Apart from `ctxspec.reference.frontmatter` because it is one concern of its own: PyYAML's
resolver and constructor replaced by the core schema's tables (`CORE_SCALARS`,
`CORE_CONSTRUCTORS`), values made JS-shaped, and the scanner taught where `yaml` ends a
flow collection. `CoreLoader` is what `ctxspec.reference.frontmatter` loads a block with; the
errors it raises (`MarkedError`) are worded by `ctxspec.reference.yaml_errors`.
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

from ctxspec.reference._jsjson import js_map_key
from ctxspec.reference._jsnum import js_number_to_string

__all__ = [
    "CORE_CONSTRUCTORS",
    "CORE_SCALARS",
    "FLOW_END",
    "CoreConstructor",
    "CoreLoader",
    "CoreResolver",
    "MarkedError",
    "duplicate_at",
]

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
# FM-3: `yaml`'s error for a flow collection a later line cuts, by its closing bracket
FLOW_END: Final = {
    "]": "Flow sequence in block collection must be sufficiently indented and end with a ]",
    "}": "Flow map in block collection must be sufficiently indented and end with a }",
}


@dataclass(frozen=True, slots=True)
class MarkedError(Exception):
    """A YAML error at a place in the block, as `yaml` would report it (FM-3)."""

    problem: str
    index: int
    length: int = 1
    swallows: int | None = None  # scan errors past this index are inside this error's node
    worded: bool = True  # False: PyYAML's own words, which lose to any scanned error
    rank: int = 2  # which error `yaml` reports first of two at one position (lowest)
    flow: bool = False  # PyYAML's guess at a flow collection's end, which the scan replaces


def duplicate_at(source: str, key_index: int) -> int:
    """FM-3: where `yaml` puts a repeated key's error: at the key, or, when the pair
    before it has an empty value, at the end of that pair's line."""
    line_start = source.rfind("\n", 0, key_index) + 1
    if line_start == 0:
        return key_index
    previous = source[source.rfind("\n", 0, line_start - 1) + 1 : line_start - 1]
    return line_start - 1 if re.search(r":[ \t]*$", previous) else key_index


def _js_key(key: Any) -> str:
    """An object key as JS writes a scalar key (`1`, `true`, `""` for null)."""
    if key is None:
        return ""
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int | float):
        return js_number_to_string(key)  # `1e-7`, `Infinity`, `NaN`, as String(n) writes them
    if isinstance(key, list):
        return "[ " + ", ".join(_js_key(k) for k in key) + " ]"
    return str(key)


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
            identity = js_map_key(key)
            if identity in seen:
                at = key_node.start_mark.index
                raise MarkedError(
                    "Map keys must be unique", duplicate_at(key_node.start_mark.buffer or "", at)
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
        problem = FLOW_END["]" if self.flow_opened[-1] == "[" else "}"]
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
