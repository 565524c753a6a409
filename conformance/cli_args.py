"""Checks of ctxspec's own command line: argparse `type=` functions and up-front checks.

Bad input to ctxspec is the caller's fault. It gets one line on stderr that names the
argument and what was expected, and exit status 2 (`ctxspec.exits.USAGE`), before
anything runs; never a traceback (`ctxspec.cli`: `Parser`, `UsageError`, `main`):

    ctxspec conform: error: argument --timeout: expected seconds > 0, got '-5'

- `type=` functions, each raising `ArgumentTypeError`: `seconds`, `positive_int`,
  `count`, `seed`, `shard`, `fraction`, `workers`, `keyword`, `size`, `sizes`, `lengths`,
  `flavours`, `impl_spec`, `pi_range`, `input_file`, `input_dir`, `output_file`, `output_dir`.
- Checks that raise `ctxspec.cli.UsageError(argument, message)`, for what needs more
  than one value or the corpus: `require` (a type function applied later),
  `check_selection`, `check_expectations` (with `suite_properties`, the property names),
  `check_agent_profile`, `read_results`.

The `--impl` rule (`impl_spec`): `reference` or `fastengine` (this package's engines),
`NAME@VERSION` of a family in
`transport.named.FAMILIES` (a bare family name takes its default version), or a command
line. One word of the form `NAME@VERSION` whose NAME is not a family, and that is no
executable on PATH nor an existing path, is refused, naming the families; so is a known
family with a version that is not MAJOR.MINOR.PATCH (`pi@x`). Any other command that
cannot be started is the implementation's failure to start (exit status 6).
"""

from __future__ import annotations

import argparse
import ast
import difflib
import json
import math
import os
import re
import shlex
import shutil
import tempfile
from collections.abc import Callable, Iterable, Sequence
from importlib import resources
from pathlib import Path
from typing import Any, Final, NoReturn, TypeVar

from ctxspec.cli import UsageError
from ctxspec.conformance.corpus.aliases import new_id
from ctxspec.conformance.corpus.cases import load_cases
from ctxspec.conformance.errors import CorpusError
from ctxspec.conformance.runner.expectations import default_expectations_file, load_expectations
from ctxspec.conformance.runner.profiles import profile_for
from ctxspec.conformance.tools.changelog import parse_range
from ctxspec.conformance.transport.named import ENGINE_NAMES, FAMILIES, parse_named
from ctxspec.corpora.generators.logs import STREAM_FLAVOURS

try:  # pytest's own -k parser (private: if it moves, pytest itself reports a bad -k)
    from _pytest.mark import expression as _keyword_expression
except ImportError:  # pragma: no cover
    _keyword_expression = None  # type: ignore[assignment]

__all__ = [
    "check_agent_profile",
    "check_expectations",
    "check_selection",
    "count",
    "flavours",
    "fraction",
    "impl_spec",
    "input_dir",
    "input_file",
    "keyword",
    "lengths",
    "output_dir",
    "output_file",
    "pi_range",
    "positive_int",
    "read_results",
    "require",
    "seconds",
    "seed",
    "shard",
    "size",
    "sizes",
    "suite_properties",
    "workers",
]

_T = TypeVar("_T")
_SIZE: Final = re.compile(r"(?P<n>\d+)(?P<unit>KiB|MiB|GiB)?")
_NAMED_WORD: Final = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*@\S*")
_RECORD_KEYS: Final = ("id", "kind", "status", "boundary", "op")  # what the readers use


def _refuse(expected: str, text: str) -> NoReturn:
    raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")


def _number(text: str, convert: Callable[[str], _T], expected: str) -> _T:
    try:
        return convert(text.strip())
    except ValueError:
        _refuse(expected, text)


def seconds(text: str) -> float:
    """A finite number of seconds > 0 (`--timeout`)."""
    value = _number(text, float, "seconds > 0")
    if not (math.isfinite(value) and value > 0):
        _refuse("seconds > 0", text)
    return value


def _int_at_least(text: str, minimum: int, what: str) -> int:
    value = _number(text, int, what)
    if value < minimum:
        _refuse(what, text)
    return value


def positive_int(text: str) -> int:
    """An integer >= 1 (`--examples`, `--rounds`, `--max-answer-bytes`)."""
    return _int_at_least(text, 1, "an integer >= 1")


def count(text: str) -> int:
    """An integer >= 0 (`--shrink-calls`)."""
    return _int_at_least(text, 0, "an integer >= 0")


def seed(text: str) -> int:
    """A seed as `ctxspec fuzz` prints it: an integer >= 0."""
    return _int_at_least(text, 0, "a seed (an integer >= 0)")


def shard(text: str) -> tuple[int, int]:
    """`K/N`, the K-th of N parts of a run (`fuzz`, `sweep --shard`): 1 <= K <= N."""
    expected = "K/N with 1 <= K <= N, e.g. 2/4"
    index, slash, total = text.strip().partition("/")
    if not (slash and index.isascii() and index.isdigit() and total.isascii() and total.isdigit()):
        _refuse(expected, text)
    if not 1 <= int(index) <= int(total):
        _refuse(expected, text)
    return int(index), int(total)


def fraction(text: str) -> float:
    """A fraction in [0, 1) (`bench --tolerance`)."""
    value = _number(text, float, "a fraction from 0 to below 1, e.g. 0.25")
    if not 0 <= value < 1:
        _refuse("a fraction from 0 to below 1, e.g. 0.25", text)
    return value


def workers(text: str) -> str:
    """pytest-xdist's `-n`: `auto`, `logical` or an integer >= 0."""
    if text in ("auto", "logical") or (text.isascii() and text.isdigit()):
        return text
    _refuse("auto, logical or a number of workers", text)


def keyword(text: str) -> str:
    """A pytest `-k` expression (`test_head or tail-`), parsed as pytest parses it."""
    if _keyword_expression is not None:
        errors = (SyntaxError, getattr(_keyword_expression, "ParseError", SyntaxError))
        try:
            _keyword_expression.Expression.compile(text)
        except errors as error:
            message = getattr(error, "msg", None) or str(error)
            if column := getattr(error, "offset", None):
                message = f"at column {column}: {message}"
            raise argparse.ArgumentTypeError(
                f"expected a pytest -k expression, got {text!r}: {message}"
            ) from None
    return text


def size(text: str) -> str:
    """A byte size: digits with an optional KiB, MiB or GiB (`16MiB`), above 0."""
    match = _SIZE.fullmatch(text.strip())
    if match is None or int(match["n"]) == 0:
        _refuse("a size above 0 such as 16MiB, 512KiB or 1GiB", text)
    return text.strip()


def _listed(text: str, item: Callable[[str], Any], expected: str) -> list[str]:
    parts = [part.strip() for part in text.split(",")]
    if not all(parts):
        _refuse(expected, text)
    try:
        return [str(item(part)) for part in parts]
    except argparse.ArgumentTypeError:
        _refuse(expected, text)


def sizes(text: str) -> str:
    """Comma-separated sizes (`16MiB,64MiB`)."""
    return ",".join(_listed(text, size, "sizes such as 16MiB,64MiB"))


def lengths(text: str) -> str:
    """Comma-separated integers >= 1 (`1000,10000`)."""
    return ",".join(_listed(text, positive_int, "integers >= 1 such as 1000,10000"))


def flavours(text: str) -> str:
    """Comma-separated stream log flavours."""

    def known(name: str) -> str:
        if name not in STREAM_FLAVOURS:
            raise argparse.ArgumentTypeError(name)
        return name

    return ",".join(_listed(text, known, f"flavours among {','.join(STREAM_FLAVOURS)}"))


def _runnable(word: str) -> bool:
    return shutil.which(word) is not None or Path(word).exists()


def impl_spec(text: str) -> str:
    """An engine's name, `NAME@VERSION` of a known family, or a command line (module
    docstring)."""
    spec = text.strip()
    expected = "reference, fastengine, NAME@VERSION or a command"
    if not spec:
        _refuse(expected, text)
    if spec in ENGINE_NAMES or parse_named(spec) is not None:
        return spec
    try:
        shlex.split(spec)
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"{spec!r} is not a command line: {error}") from None
    if _NAMED_WORD.fullmatch(spec) and not _runnable(spec):
        name = spec.partition("@")[0]
        if name in FAMILIES:
            example = f"{name}@{FAMILIES[name].default_version}"
            _refuse(f"{name}@MAJOR.MINOR.PATCH such as {example}", text)
        families = ", ".join(sorted(FAMILIES))
        raise argparse.ArgumentTypeError(
            f"{spec!r}: no family is named {name!r} (families: {families}; see "
            "`ctxspec impl list`), and it is no command on PATH"
        )
    return spec


def pi_range(text: str) -> str:
    """`FAMILY@A..FAMILY@B` from an older to a newer release (`changelog`)."""
    try:
        parse_range(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def input_file(text: str) -> str:
    """A file that exists and can be read."""
    if not text.strip():
        _refuse("a file to read", text)
    path = Path(text)
    if not path.is_file():
        what = "a directory" if path.is_dir() else "no such file"
        raise argparse.ArgumentTypeError(f"expected a file to read, {text!r} is {what}")
    return text


def input_dir(text: str) -> str:
    """A directory that exists."""
    if not text.strip() or not Path(text).is_dir():
        _refuse("an existing directory", text)
    return text


def _creatable(path: Path, text: str) -> None:
    """`path` (a directory) exists or can be made: its nearest existing ancestor is a
    directory in which a file can be made (tried: a probe file, removed at once)."""
    ancestor = path.absolute()
    while not os.path.lexists(ancestor):
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise argparse.ArgumentTypeError(f"cannot write {text!r}: {ancestor} is not a directory")
    try:
        handle, probe = tempfile.mkstemp(prefix=".ctxspec-probe-", dir=ancestor)
    except OSError as error:
        why = error.strerror or type(error).__name__
        raise argparse.ArgumentTypeError(
            f"cannot write {text!r}: no file can be made in {ancestor} ({why})"
        ) from None
    os.close(handle)
    os.unlink(probe)


def output_file(text: str) -> str:
    """A file ctxspec can write, checked before anything runs: not a directory, in a
    directory that exists or can be made; an existing file is opened for writing (not
    truncated), a new one's directory is tried with a probe file. A link is judged by
    its target."""
    if not text.strip():
        _refuse("a file to write", text)
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"expected a file to write, {text!r} is a directory")
    if path.exists():
        try:  # no O_TRUNC: the file is left as it is; no O_CREAT; a FIFO without reader fails
            os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
        except OSError as error:
            why = error.strerror or type(error).__name__
            raise argparse.ArgumentTypeError(f"cannot write {text!r}: {why}") from None
        return text
    if path.is_symlink():  # a link to nowhere: writing makes its target, not its folders
        path = Path(os.path.realpath(path))
        if not path.parent.is_dir():
            raise argparse.ArgumentTypeError(
                f"cannot write {text!r}: it links to {str(path)!r}, whose folder does not exist"
            )
    _creatable(path.parent, text)
    return text


def output_dir(text: str) -> str:
    """A directory that exists or can be made, and is writable."""
    if not text.strip():
        _refuse("a directory to write in", text)
    _creatable(Path(text), text)
    return text


def require(argument: str, check: Callable[[str], _T], value: str) -> _T:
    """`check(value)`, a type function applied after parsing: its error as `UsageError`."""
    try:
        return check(value)
    except argparse.ArgumentTypeError as error:
        raise UsageError(argument, str(error)) from None


def _hint(word: str, known: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(known), n=3, cutoff=0.6)
    return f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""


def check_selection(case_ids: Sequence[str], boundaries: Sequence[str], ops: Sequence[str]) -> None:
    """Raise `UsageError` unless each `--case` and `--op` names something in the corpus and
    together with `--boundary` they select at least one case.

    (`--boundary` alone also selects that boundary's properties, so it always selects.)
    """
    every = {case.id: case for case in load_cases()}
    active = [case for case in every.values() if case.status != "withdrawn"]
    case_ids = [new_id(case_id) for case_id in case_ids]  # an old id names its renamed case
    for case_id in case_ids:
        if case_id not in every:
            what = f"no case has the id {case_id!r}{_hint(case_id, every)}"
            raise UsageError("--case", f"{what} (`ctxspec cases list` lists them)")
        if every[case_id].status == "withdrawn":
            raise UsageError("--case", f"case {case_id!r} is withdrawn: it no longer runs")
    known_ops = sorted({case.op for case in active})
    for op in ops:
        if op not in known_ops:
            raise UsageError("--op", f"no case has the op {op!r}{_hint(op, known_ops)}")
    if not (case_ids or ops):
        return
    selected = [
        case
        for case in active
        if (not case_ids or case.id in case_ids)
        and (not boundaries or case.boundary in boundaries)
        and (not ops or case.op in ops)
    ]
    if not selected:
        given = [("--case", case_ids), ("--boundary", boundaries), ("--op", ops)]
        names = "/".join(name for name, values in given if values)
        every_value = "; ".join(f"{name} {' '.join(v)}" for name, v in given if v)
        raise UsageError(names, f"together they select no case ({every_value})")


def suite_properties() -> frozenset[str]:
    """The names of the suite's properties: its functions marked `ctxspec_property`, or
    parametrized by `per_op`.

    Read from the source, so that pytest still imports (and rewrites) the modules itself.
    """
    names = set()
    for file in resources.files("ctxspec.conformance").joinpath("suite").iterdir():
        if not (file.name.startswith("test_") and file.name.endswith(".py")):
            continue
        for node in ast.walk(ast.parse(file.read_text("utf-8"))):
            if isinstance(node, ast.FunctionDef) and any(
                # marked itself, or per op (`suite.differential.per_op` marks each parameter)
                "ctxspec_property" in (text := ast.unparse(d)) or "per_op(" in text
                for d in node.decorator_list
            ):
                names.add(node.name)
    return frozenset(names)


def check_agent_profile(name_or_file: str | None, impl: str) -> None:
    """Raise `UsageError` when the agent profile (`--agent-profile`, or `impl`'s) cannot
    be read, naming the file and what is wrong in it."""
    try:
        profile_for(impl, name_or_file)
    except CorpusError as error:
        raise UsageError("--agent-profile" if name_or_file else None, str(error)) from None


def check_expectations(path: str | None, impl: str) -> None:
    """Raise `UsageError` when `--expectations` (or `impl`'s shipped file) cannot be read
    or lists a case or property the suite does not have (naming the id and the file)."""
    argument = "--expectations" if path else None
    if path == "none":
        return
    source = path or default_expectations_file(impl)
    if source is None:
        return
    if path:
        require("--expectations", input_file, path)
    try:
        expectations = load_expectations(source, impl)
    except CorpusError as error:
        raise UsageError(argument, str(error)) from None
    for kind, listed, known in (
        ("case", expectations.cases, {case.id for case in load_cases()}),
        ("property", expectations.properties, suite_properties()),
    ):
        # a property is listed by its name, or by its name and one parameter: name[op]
        named = {entry.split("[", 1)[0] if kind == "property" else entry for entry in listed}
        for entry in sorted(named - known):
            message = f"{source} lists the {kind} {entry!r}, which the suite does not have"
            raise UsageError(argument, message + _hint(entry, known))


def read_results(argument: str, path: str) -> dict[str, Any]:
    """A results file of `ctxspec conform --json`, checked for the fields readers use."""
    require(argument, input_file, path)
    try:
        data = json.loads(Path(path).read_text("utf-8"))
    except (OSError, ValueError) as error:
        raise UsageError(argument, f"cannot read results {path!r}: {error}") from None
    records = data.get("records") if isinstance(data, dict) else None
    if not (
        isinstance(data, dict)
        and isinstance(data.get("header"), dict)
        and isinstance(records, list)
        and all(
            isinstance(r, dict)
            and all(k in r for k in _RECORD_KEYS)
            and all(isinstance(r.get(k), str) for k in _RECORD_KEYS[:3])
            for r in records
        )
    ):
        raise UsageError(
            argument,
            f"{path!r} is not a results file of `ctxspec conform --json` (an object with "
            f"a header and records, each with {', '.join(_RECORD_KEYS)})",
        )
    return data
