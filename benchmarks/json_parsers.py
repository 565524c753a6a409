"""Which JSON parser may read session files: JavaScript's semantics kept, and how fast.

`python benchmarks/json_parsers.py [--entries N]` parses the lines that probe what
`JSON.parse` does and Python's `json` (with NaN and Infinity refused, as
`ctxspec.reference.session_file.parse_line` does) reproduces: lone surrogates kept as lone code
units, duplicate keys (the last wins, at the first one's place), numbers past a double
(`1e400` is Infinity; a big integer), `-0`, and lines `parseSessionEntries` skips. Each
candidate installed (orjson, msgspec, pysimdjson, ujson; none is a dependency) is run on
the same lines: a candidate is usable only if every probe gives today's value (or is
skipped as today). Then the MB/s of each on a generated session
(`ctxspec.corpora.generators.sessions`, `--entries` entries), parsed line by line and, for
Python's `json`, as the fast engine does on an odd file (one array of all lines), and
the fast engine's own pass (`ctxspec.fastengine._json.lines`, json where it is not sure) line by
line and on the whole file, as it parses the usual file; the values kept.
`--no-gc` turns the cyclic collector off for the run: the parsers' own work, an upper
bound, since pausing the collector around a parse only moves its work to after it (the
young objects are traversed anyway). The figures are in docs/performance/end-to-end.md.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import json
import math
import operator
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from ctxspec.corpora.generators.sessions import session
from ctxspec.fastengine.session import _C_LINES as C_LINES
from ctxspec.reference.session_file import JSON_DECODER, parse_line

# line -> what JSON.parse gives, as today's parse path holds it (or a skip)
PROBES: dict[str, str] = {
    '{"a":"\\ud800"}': "a lone high surrogate, kept",
    '{"a":"\\udc00x\\ud83d\\ude00"}': "a lone low surrogate before a pair",
    '{"a":1,"b":2,"a":3}': "a duplicate key: the last value, the first place",
    '{"n":1e400}': "a number past a double: Infinity",
    '{"n":-1e400}': "-Infinity",
    '{"n":123456789012345678901234567890}': "a big integer",
    '{"n":18446744073709551616}': "2**64",
    '{"n":-0}': "-0",
    '{"n":1.0}': "1.0",
    '{"n":NaN}': "NaN: not JSON, skipped",
    '{"n":Infinity}': "Infinity: not JSON, skipped",
    '{"a":1,}': "a trailing comma: skipped",
    "{'a':1}": "single quotes: skipped",
    '{"a":"x\ty"}': "a raw tab in a string: skipped",
    '{"a":1} x': "text after the value: skipped",
    '\u00a0{"a":1}': "a no-break space before: skipped",
    '{"a":"\u2028"}': "a raw U+2028 in a string",
    '"just a string"': "a line that is not an object",
    '{"a":[1,2,{"b":null}]}': "nesting",
}


# name, module, its parse function (none is a dependency of ctxspec)
CANDIDATES: tuple[tuple[str, str, str], ...] = (
    ("orjson", "orjson", "loads"),
    ("ujson", "ujson", "loads"),
    ("msgspec", "msgspec", "json.decode"),
    ("pysimdjson", "simdjson", "loads"),
)


def _today(line: str) -> Any:
    try:
        return ("value", parse_line(line))
    except ValueError:
        return ("skipped", None)


def _candidates() -> dict[str, Callable[[str], Any]]:
    found: dict[str, Callable[[str], Any]] = {"json": JSON_DECODER.decode}
    for name, module, attr in CANDIDATES:
        with contextlib.suppress(ImportError):
            found[name] = operator.attrgetter(attr)(importlib.import_module(module))
    if "msgspec" in found:  # it raises, rather than answer otherwise, on every probe it fails
        found["msgspec, json on error"] = partial(_or_json, found["msgspec"])
    if C_LINES is not None:
        found["ctxspec.fastengine._json"] = _fast_line
    return found


def _fast_line(line: str) -> Any:
    """The fast engine's one pass on one line, json where the pass is not sure (None)."""
    assert C_LINES is not None
    values = C_LINES(line)
    if values is None:
        return JSON_DECODER.decode(line)
    if len(values) != 1:  # a blank line: no value, as json refuses it
        raise ValueError("no value")
    return values[0]


def _or_json(parse: Callable[[str], Any], line: str) -> Any:
    try:
        return parse(line)
    except ValueError:  # msgspec.DecodeError is one
        return JSON_DECODER.decode(line)


def _same(a: Any, b: Any) -> bool:
    """Equal as parsed values, types, key order and the sign of zero included."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or (
            a == b and math.copysign(1, a) == math.copysign(1, b)
        )
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(map(_same, a, b))
    return bool(a == b)


def semantics(parse: Callable[[str], Any]) -> list[str]:
    """The probes on which `parse` differs from today's path."""
    wrong = []
    for line, what in PROBES.items():
        try:
            got: Any = ("value", parse(line))
            if isinstance(got[1], float) and math.isnan(got[1]):
                got = ("skipped", None)  # a NaN would be refused like today's
        except Exception:  # each library raises its own error on a bad line
            got = ("skipped", None)
        if not _same(got, _today(line)):
            wrong.append(f"{what}: {got[1]!r}")
    return wrong


def text_of(entries: int) -> str:
    script = [{"header": 3, "id": "s", "cwd": "/"}]
    script.append({"turns": entries // 4, "calls": ["bash make"], "user": 30, "assistant": 60})
    return "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in session(script))


def speed(parse: Callable[[str], Any], lines: list[str], megabytes: float) -> float:
    best = math.inf
    for _ in range(3):
        gc.collect()
        begin = time.perf_counter()
        kept = [parse(line) for line in lines]  # kept, as a session's entries are
        best = min(best, time.perf_counter() - begin)
        del kept
    return megabytes / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--no-gc", action="store_true", help="the cyclic GC off while parsing")
    args = parser.parse_args()
    if args.no_gc:
        gc.disable()
    text = text_of(args.entries)
    lines = text.splitlines()
    megabytes = len(text.encode()) / 1e6
    print(f"{len(lines)} lines, {megabytes:.1f} MB")
    for name, parse in _candidates().items():
        wrong = semantics(parse)
        verdict = "keeps every probe" if not wrong else "differs: " + "; ".join(wrong)
        print(f"{name:22} {speed(parse, lines, megabytes):6.1f} MB/s line by line; {verdict}")
    together = f"[{','.join(lines)}]"
    best = math.inf
    for _ in range(3):
        gc.collect()
        begin = time.perf_counter()
        kept = JSON_DECODER.decode(together)
        best = min(best, time.perf_counter() - begin)
        del kept
    print(
        f"json as one array (the fast engine's parse of an odd file): {megabytes / best:.1f} MB/s"
    )
    if C_LINES is not None:
        best = math.inf
        for _ in range(3):
            gc.collect()
            begin = time.perf_counter()
            kept = C_LINES(text)
            best = min(best, time.perf_counter() - begin)
            del kept
        print(
            "ctxspec.fastengine._json, the whole file (the engine's parse): "
            f"{megabytes / best:.1f} MB/s"
        )


if __name__ == "__main__":
    main()
