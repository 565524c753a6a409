"""No case expects an engine's own words: where Pi passes one on, the case expects its kind.

Node's, V8's and CPython's messages are the runtime's, not Pi's: a port in another
language cannot give them. The protocol writes such an error as its kind (`<ENOENT /w/x>`,
`<TypeError>`, `<NUL in pattern>`; PROTOCOL.md, "An engine's words"), so an expected value
holding one of the wordings below is a case no other port can pass. Every string of every
case's expected result is scanned, withdrawn cases too; the case's arguments are not
(a file may hold any text).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, Final

import pytest

from ctxspec.conformance.corpus.cases import load_cases

# (engine, pattern): wordings of a runtime, never of Pi or of a tool Pi runs (ripgrep's
# and the `yaml` package's messages are theirs, and both sides give them)
ENGINE_WORDINGS: Final = (
    ("Node", r"\bE[A-Z]{2,}[A-Z0-9]*: [a-z]"),  # a system error: `ENOENT: no such file ...`
    ("Node", r"\bERR_[A-Z_]{3,}\b"),
    ("Node", r"without null bytes"),
    ("Node", r"argument must be of type|\bReceived (?:undefined|null|type|an instance|'|\")"),
    ("V8", r"(?<!<)\b(?:TypeError|SyntaxError|RangeError|ReferenceError)\b(?!>)"),
    ("V8", r"Cannot (?:read|set) properties of"),
    ("V8", r"Cannot use 'in' operator"),
    ("V8", r"\bis not (?:a function|iterable|a constructor|defined)\b"),
    ("V8", r"Cannot convert undefined or null"),
    ("V8", r"is not valid JSON|in JSON at position|Unexpected end of JSON input"),
    ("V8", r"Maximum call stack size exceeded|Invalid (?:string|array) length"),
    ("CPython", r"\[Errno \d+\]|Traceback \(most recent call last\)"),
    ("CPython", r"Expecting (?:value|property name|',' delimiter)|Unexpected UTF-8 BOM"),
    ("CPython", r"object has no attribute|'NoneType'|unsupported operand type"),
    ("CPython", r"(?:list|string) index out of range|invalid literal for int\(\)"),
    ("CPython", r"embedded null (?:byte|character)|UnicodeDecodeError|codec can't"),
)
_SCAN: Final = [(engine, re.compile(pattern)) for engine, pattern in ENGINE_WORDINGS]


def engine_wording(text: str) -> str | None:
    """The engine whose wording `text` holds, or None."""
    return next((engine for engine, pattern in _SCAN if pattern.search(text)), None)


def _strings(value: Any, where: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield where, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(key, f"{where}.<key>")
            yield from _strings(item, f"{where}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _strings(item, f"{where}[{index}]")


def test_no_expected_value_holds_an_engines_wording() -> None:
    found = [
        f"{case.id} {where}: {engine}'s wording in {text[:120]!r}"
        for case in load_cases()
        for where, text in _strings(case.expect_result, "$")
        if (engine := engine_wording(text)) is not None
    ]
    assert not found, "write the engine's error by its kind (PROTOCOL.md):\n" + "\n".join(found)


@pytest.mark.parametrize(
    "text",
    [
        "ENOENT: no such file or directory, access '/w/x'",
        "Failed to read trust store /a/trust.json: EISDIR: illegal operation on a directory, read",
        "The argument 'args[5]' must be a string without null bytes. Received 'a\\x00b'",
        'The "string" argument must be of type string. Received undefined',
        "TypeError [ERR_INVALID_ARG_TYPE]: x",
        "Failed to parse theme /t.json: SyntaxError",
        "Cannot read properties of undefined (reading 'startsWith')",
        "Cannot use 'in' operator to search for 'x' in null",
        "value.startsWith is not a function",
        "Unexpected token 'x', \"x\" is not valid JSON",
        "Expected property name or '}' in JSON at position 1",
        "[Errno 21] Is a directory: '/w/d'",
        "Expecting value: line 1 column 1 (char 0)",
        "'NoneType' object has no attribute 'get'",
    ],
)
def test_the_scan_finds_engine_wordings(text: str) -> None:
    assert engine_wording(text) is not None


@pytest.mark.parametrize(
    "text",
    [
        "<ENOENT /w/x>",
        "<EISDIR>",
        "Failed to parse theme /t.json: <SyntaxError>",
        "<TypeError>",
        "<NUL in glob>",
        "Path not found: /w/nope",
        'Invalid trust store /agent/trust.json: value for "/ws" must be true, false, or null',
        "Unexpected scalar at node end at line 2, column 1:\n\n- name: plain\n",
        "regex parse error:\n    (?:[)\n       ^\nerror: unclosed character class",
        "Variable reference not found: a",
        "No matches found",
    ],
)
def test_the_scan_leaves_pi_and_protocol_texts(text: str) -> None:
    assert engine_wording(text) is None
