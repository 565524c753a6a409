"""The verdict's property examples as shipped data: their JSON, their files, their freshness.

Each property of the suite runs, in the verdict, the examples recorded for it in
`conformance/suite/examples/<module>.json` (one file per property module), drawn once by
`python -m ctxspec.conformance.tools.examples_write` and replayed without hypothesis
drawing anything (`ctxspec.conformance.runner.fixed_examples`). A file holds, per
property (its pytest id, `test_x[op]` for a parametrized one), the examples as the
property's test function received them: `given`, the keyword arguments hypothesis drew,
and for a property that draws as it runs (`st.data()`), `draws`, each value it drew in
order with its label. For the per-op differential properties the one draw, labelled
`args`, is the request's `args` itself.

Values a property draws need not be JSON (bytes, tuples, floats that are not numbers,
strings holding surrogates as separate code points): `encode` writes each losslessly as
JSON, with a one-key object naming its type, and `decode` reads it back. Two forms keep
the generated long sessions small (a session file's text, and the filler text of
`ctxspec.corpora.generators.sessions`): `{"$filler": [label, length]}` is
`filler(label, length)`, and `{"$lines": [...]}` a text of lines, each a string or
`{"$json": value}` (that line is `json.dumps(value)`). Each form is written only where
reading it back gives the same string.

- `encode(value)`, `decode(value)`: the lossless JSON of a drawn value.
- `example_line(example)`: one example as one line of JSON, readable (`json_text`).
- `dump(document)`, `load(path)`: a module's file, one example per line.
- `module_file(module)`, `shipped(module)`: where a module's examples are, and them read.
- `source_digest(function)`, `strategies_digest(module)`: what the data were drawn from.
"""

from __future__ import annotations

import ast
import base64
import functools
import hashlib
import inspect
import itertools
import json
import math
import re
from collections.abc import Callable, Mapping
from importlib import resources
from pathlib import Path
from types import ModuleType
from typing import Any, Final

from ctxspec.conformance.errors import CorpusError
from ctxspec.conformance.runner.failing_example import json_text
from ctxspec.corpora.generators.sessions import filler

__all__ = [
    "EXAMPLES_FOLDER",
    "EXAMPLES_PACKAGE",
    "HYPOTHESIS",
    "REGENERATE",
    "StaleExamples",
    "UnencodableValue",
    "decode",
    "dump",
    "encode",
    "example_line",
    "load",
    "module_file",
    "shipped",
    "source_digest",
    "strategies_digest",
]

EXAMPLES_PACKAGE: Final = "ctxspec.conformance.suite"  # the files: its `examples/` folder
EXAMPLES_FOLDER: Final = "conformance/suite/examples"  # the same, as the repository has it
# the hypothesis release the shipped examples were drawn with: pyproject.toml's test group
# pins it (a test checks that the two agree); another release draws other examples
HYPOTHESIS: Final = "6.170.27"
REGENERATE: Final = "python -m ctxspec.conformance.tools.examples_write"
# what the properties' draws come from, besides the property's own module: every module of
# the strategies, and the modules of the generators that it or the strategies import; a
# change to any of them may change what a seed draws
STRATEGIES: Final = "ctxspec.conformance.strategies"
DRAWN_FROM: Final = ("ctxspec.corpora.generators",)


class StaleExamples(CorpusError):
    """The shipped examples do not fit the suite: a property without examples, examples of
    no property, or a property that draws other than its examples recorded."""


class UnencodableValue(TypeError):
    """A drawn value of a type the examples' JSON has no form for."""


# --- the lossless JSON of a drawn value ------------------------------------------------------

# a drawn value that JSON cannot hold as it is: a one-key object naming its type
BYTES: Final = "$bytes"  # base64 of the bytes
TUPLE: Final = "$tuple"  # the items, as a list
FLOAT: Final = "$float"  # "nan", "inf" or "-inf"
DICT: Final = "$dict"  # [key, value] pairs: keys not all strings, or a key that is a tag
CODE_POINTS: Final = "$codepoints"  # a string holding a surrogate pair as two code points
FILLER: Final = "$filler"  # [label, length]: sessions.filler(label, length)
LINES: Final = "$lines"  # a text's lines ("\n" between them), each a string or a $json
JSON: Final = "$json"  # a line that is json.dumps(value)
TAGS: Final = frozenset({BYTES, TUPLE, FLOAT, DICT, CODE_POINTS, FILLER, LINES, JSON})
_LONG: Final = 200  # shorter text is written as it is
_FILLER_LABEL: Final = re.compile(r"(.*?) line 1: ")


def _split_pair(text: str) -> bool:
    """Whether `text` holds a high surrogate followed by a low one: JSON reads their
    escapes back as one character."""
    return any(
        "\ud800" <= a <= "\udbff" and "\udc00" <= b <= "\udfff" for a, b in itertools.pairwise(text)
    )


def _text(value: str) -> Any:
    """A long text as the filler or the JSON lines it is, when it is exactly that."""
    if (found := _FILLER_LABEL.match(value)) and filler(found[1], len(value)) == value:
        return {FILLER: [found[1], len(value)]}
    if "\n" not in value:
        return value
    lines: list[Any] = []
    for line in value.split("\n"):
        try:
            parsed = json.loads(line)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict | list) and json.dumps(parsed) == line:
            lines.append({JSON: encode(parsed)})
        else:
            lines.append(encode(line))
    return {LINES: lines} if any(isinstance(line, dict) for line in lines) else value


def encode(value: Any) -> Any:
    """`value` as JSON data that `decode` turns back into an equal value of the same types.

    >>> encode({"chunks": (b"a\\xed", 1.5), "n": float("inf")})
    {'chunks': {'$tuple': [{'$bytes': 'Ye0='}, 1.5]}, 'n': {'$float': 'inf'}}

    Raises `UnencodableValue` for a type it has no form for (a set, an object).
    """
    if value is None or isinstance(value, bool | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {FLOAT: str(value)}
    if isinstance(value, str):
        if _split_pair(value):
            return {CODE_POINTS: [ord(c) for c in value]}
        return _text(value) if len(value) >= _LONG else value
    if isinstance(value, bytes):
        return {BYTES: base64.b64encode(value).decode("ascii")}
    if isinstance(value, tuple):
        return {TUPLE: [encode(item) for item in value]}
    if isinstance(value, list):
        return [encode(item) for item in value]
    if isinstance(value, dict):
        plain = all(isinstance(k, str) and not _split_pair(k) for k in value)
        if plain and not (len(value) == 1 and next(iter(value)) in TAGS):
            return {key: encode(item) for key, item in value.items()}
        return {DICT: [[encode(key), encode(item)] for key, item in value.items()]}
    raise UnencodableValue(f"a drawn {type(value).__name__} has no form in the examples' JSON")


_DECODERS: Final[Mapping[str, Callable[[Any], Any]]] = {
    BYTES: lambda text: base64.b64decode(text, validate=True),
    TUPLE: lambda items: tuple(decode(item) for item in items),
    FLOAT: float,
    DICT: lambda pairs: {decode(key): decode(item) for key, item in pairs},
    CODE_POINTS: lambda points: "".join(map(chr, points)),
    FILLER: lambda pair: filler(pair[0], pair[1]),
    LINES: lambda lines: "\n".join(decode(line) for line in lines),
    JSON: lambda value: json.dumps(decode(value)),
}


def decode(value: Any) -> Any:
    """The value `encode` wrote as `value`."""
    if isinstance(value, list):
        return [decode(item) for item in value]
    if isinstance(value, dict):
        if len(value) == 1 and (tag := next(iter(value))) in TAGS:
            return _DECODERS[tag](value[tag])
        return {key: decode(item) for key, item in value.items()}
    return value


# --- the files ---------------------------------------------------------------------------------


def example_line(example: Mapping[str, Any]) -> str:
    """One example as one line of JSON: letters as they are, invisible characters and
    lone surrogates escaped (`json_text`), so a file reads and diffs line by line."""
    return json_text(example)


def dump(document: Mapping[str, Any]) -> str:
    """A module's examples file: its header keys, then each property with one example a
    line. `json.loads` reads it back as `document`."""
    header = {key: value for key, value in document.items() if key != "properties"}
    lines = ["{"]
    lines += [f"{json.dumps(key)}: {json_text(value)}," for key, value in header.items()]
    lines.append('"properties": {')
    properties = list(document["properties"].items())
    for at, (name, entry) in enumerate(properties):
        fields = {key: value for key, value in entry.items() if key != "examples"}
        opening = json_text({**fields, "examples": []})[:-3]  # the object less `[]}`
        lines.append(f"{json.dumps(name)}: {opening}[")
        examples = entry["examples"]
        for index, example in enumerate(examples):
            lines.append(example_line(example) + ("," if index < len(examples) - 1 else ""))
        lines.append("]}" + ("," if at < len(properties) - 1 else ""))
    lines += ["}", "}"]
    return "\n".join(lines) + "\n"


def module_file(module: str) -> Path:
    """The examples file of a property module (`test_stream_properties`), in the checkout
    or the installed package."""
    folder = resources.files(EXAMPLES_PACKAGE).joinpath("examples")
    return Path(str(folder)) / f"{module}.json"


def load(path: Path) -> dict[str, Any]:
    """A module's examples file (`StaleExamples` when it is missing or not JSON)."""
    try:
        document: dict[str, Any] = json.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        raise StaleExamples(
            f"no shipped examples file {path.name}: draw them with `{REGENERATE}`"
        ) from None
    except ValueError as error:
        raise StaleExamples(
            f"{path.name} is not JSON ({error}): redraw it: `{REGENERATE}`"
        ) from None
    return document


@functools.cache
def shipped(module: str) -> dict[str, Any]:
    """The shipped examples of a property module, read once per process."""
    return load(module_file(module))


# --- what the data were drawn from ------------------------------------------------------------


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def source_digest(function: Callable[..., Any]) -> str:
    """sha256 of a property's source, its decorators (strategies, explicit examples,
    settings) included."""
    return _sha256(inspect.getsource(inspect.unwrap(function)))


def _sources(package: str) -> dict[str, str]:
    """The text of every module of `package`, by module name."""
    root = resources.files(package)
    names = sorted(entry.name for entry in root.iterdir() if entry.name.endswith(".py"))
    return {f"{package}.{name[:-3]}": root.joinpath(name).read_text("utf-8") for name in names}


def _drawn_from(source: str) -> dict[str, str]:
    """The text of each module of a `DRAWN_FROM` package that `source` imports, by name."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module:
            names |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
    texts = {}
    for name in names:
        package, _, last = name.rpartition(".")
        if package in DRAWN_FROM:
            file = resources.files(package).joinpath(f"{last}.py")
            if file.is_file():
                texts[name] = file.read_text("utf-8")
    return texts


def strategies_digest(module: ModuleType) -> str:
    """sha256 of what a property module's draws come from: the module itself (its own
    strategies and helpers), the strategies, and the generators they import."""
    texts = {module.__name__: inspect.getsource(module), **_sources(STRATEGIES)}
    for source in list(texts.values()):
        texts.update(_drawn_from(source))
    return _sha256("\n".join(f"{name}\n{texts[name]}" for name in sorted(texts)))
