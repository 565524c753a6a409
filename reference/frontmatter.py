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

Here: cutting the block out, loading it, and choosing which error `yaml` reports first.
The core-schema loader is `ctxspec.reference.yaml_core`; the errors put in `yaml`'s words,
`ctxspec.reference.yaml_errors`.

ruamel.yaml was considered (it speaks YAML 1.2), but it parses with the same scanner as
PyYAML, so it would add a dependency for the resolver alone, which is a table here.
"""

from __future__ import annotations

import re
from typing import Any, Final

import yaml

from ctxspec.reference._jsregex import js_trim
from ctxspec.reference.tree import strip_bom
from ctxspec.reference.yaml_core import CoreLoader, MarkedError
from ctxspec.reference.yaml_errors import (
    MULTIPLE_DOCUMENTS,
    known_errors,
    prettify,
    pyyaml_error,
    superseded,
)

__all__ = ["FrontmatterError", "extract", "js_trim", "parse_frontmatter"]


class FrontmatterError(ValueError):
    """The block is not YAML `yaml` accepts; `message` is the text Pi shows."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


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


# FM-1: a key's `:` followed by tabs (PyYAML refuses them as separation; `yaml` takes them)
_KEY_TAB: Final = re.compile(r"^( *(?:- +)*[^\s'\"#\[\]{}|>][^:\n]*:)(\t+)", re.MULTILINE)


def _load(source: str) -> Any:
    """The block's value, or `FrontmatterError` for the first error `yaml` would report."""
    # FM-2: a block scalar keeps its line break at the end of the block
    text = source if source.endswith("\n") else source + "\n"
    # FM-1: a tab may separate a key's `:` from its value (PyYAML refuses it)
    text = _KEY_TAB.sub(lambda m: m.group(1) + " " * len(m.group(2)), text)
    loader = CoreLoader(text)
    value: Any = None
    found: MarkedError | str | None = None
    try:
        value = loader.get_single_data()
    except MarkedError as error:
        found = error
    except yaml.MarkedYAMLError as error:
        found = pyyaml_error(source, error)
    except yaml.YAMLError as error:
        raise FrontmatterError(str(error)) from None
    finally:
        loader.dispose()
    errors = known_errors(source, loader.flow_spans)
    if found is None and loader.unresolved is not None:
        found = f"Unresolved alias (the anchor must be set before the alias): {loader.unresolved}"
    flow = None
    if loader.flow_break is not None:
        at, problem, length = loader.flow_break
        # first of the errors at its position
        flow = MarkedError(problem, min(at, len(source)), length=length, rank=-1)
    if isinstance(found, str):  # thrown after parsing, when the document has no error
        if not errors and flow is None:
            raise FrontmatterError(found) from None
    elif found is not None:
        if found.swallows is not None:
            errors = [e for e in errors if e.index < found.swallows]
        if (found.worded or not errors) and not superseded(found, flow):
            errors.insert(0, found)
    if flow is not None:
        errors.append(flow)
    second = next((e for e in errors if e.problem == MULTIPLE_DOCUMENTS), None)
    if second is not None:  # FM-3: the second document's own errors are never reported
        errors = [e for e in errors if e.index < second.index or e is second]
    if errors:
        first = min(errors, key=lambda e: (e.index, e.rank))
        raise FrontmatterError(prettify(source, first.problem, first.index, first.length))
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
