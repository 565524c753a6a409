"""Protocol v1: JSON Lines between the runner and an implementation under test.

One request per line on the implementation's stdin, one response per line on its
stdout, in order; stderr is free for logs. Messages are described by the JSON schemas
in `schemas/` (see PROTOCOL.md for every op). This module encodes and decodes lines and
validates messages; it does no I/O.

Strings may carry lone surrogates: lines are written with every non-ASCII character
escaped, so the line itself is always ASCII and valid UTF-8.
"""

from __future__ import annotations

import base64
import difflib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Final, Literal

import jsonschema

from ctxspec.conformance.errors import ProtocolViolation
from ctxspec.conformance.judging.compare import shorten

__all__ = [
    "ERROR_TYPES",
    "OPS",
    "PROTOCOL_VERSION",
    "STDOUT_RULE",
    "ErrorType",
    "OpError",
    "decode_answer_line",
    "decode_b64",
    "decode_hello_line",
    "decode_line",
    "encode_b64",
    "encode_line",
    "first_problem",
    "json_kind",
    "op_schema",
    "quote_line",
    "result_kinds",
    "schema_problem",
    "unknown_ops",
    "validate_args",
    "validate_hello",
    "validate_response",
    "validate_result",
    "validate_shape",
]

PROTOCOL_VERSION: Final = 1

ErrorType = Literal["unsupported", "invalid_input", "internal"]
ERROR_TYPES: Final = ("unsupported", "invalid_input", "internal")
STDOUT_RULE: Final = "stdout carries only protocol lines: write logs to stderr"
# an answer that broke the protocol is shown up to this size, head and tail (PROTOCOL.md's
# bounds: a rendered value in a failure)
PREVIEW_CHARS: Final = 2000


@dataclass(frozen=True, slots=True)
class OpError:
    """A typed error an implementation answered with (not a protocol breach)."""

    type: ErrorType
    message: str
    field: str | None = None

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"type": self.type, "message": self.message}
        if self.field is not None:
            wire["field"] = self.field
        return wire


def encode_line(message: dict[str, Any]) -> bytes:
    """One message as one ASCII line ending in `\\n` (lone surrogates escaped)."""
    return (
        json.dumps(message, ensure_ascii=True, separators=(",", ":"), allow_nan=False).encode(
            "ascii"
        )
        + b"\n"
    )


def decode_line(line: bytes) -> dict[str, Any]:
    """Parse one line; raise `ProtocolViolation` if it is not one JSON object.

    Such a line on stdout is most often a log line (a `console.log`, a `print`), at
    start-up or at any later answer: the error quotes it and says where logs belong
    (`STDOUT_RULE`).
    """
    try:
        message = json.loads(line)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ProtocolViolation(
            f"not a JSON line: {error}: {quote_line(line)}; {STDOUT_RULE}"
        ) from None
    if not isinstance(message, dict):
        raise ProtocolViolation(
            f"a message must be a JSON object, got {quote_line(line)}; {STDOUT_RULE}"
        )
    return message


def decode_answer_line(line: bytes) -> dict[str, Any]:
    """A line read where an answer is due: one JSON object with an `id`.

    An object without an `id` is most often a JSON logger's line: refused quoting it,
    with `STDOUT_RULE`, as `decode_line` refuses a line that is no JSON object.
    """
    message = decode_line(line)
    if "id" not in message:
        raise ProtocolViolation(
            f"a line on stdout that is no answer (a JSON object without an id): "
            f"{quote_line(line)}; {STDOUT_RULE}"
        )
    return message


def encode_b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def decode_b64(text: str) -> bytes:
    return base64.b64decode(text, validate=True)


@cache
def _schema(name: str) -> dict[str, Any]:
    text = resources.files("ctxspec.conformance").joinpath("schemas", name).read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


@cache
def _op_defs() -> dict[str, Any]:
    """The `$defs` of every `schemas/ops/*.schema.json`, merged (one file per concern)."""
    merged: dict[str, Any] = {}
    folder = resources.files("ctxspec.conformance").joinpath("schemas", "ops")
    for file in sorted(folder.iterdir(), key=lambda f: f.name):
        if file.name.endswith(".schema.json"):
            defs = json.loads(file.read_text("utf-8"))["$defs"]
            clash = set(defs) & set(merged)
            if clash:
                raise ValueError(f"schemas/ops/{file.name} redefines {sorted(clash)}")
            merged.update(defs)
    return merged


def _ops() -> tuple[str, ...]:
    return tuple(sorted(k.removesuffix(".args") for k in _op_defs() if k.endswith(".args")))


OPS: Final = _ops()  # every op of v1 defined so far (PROTOCOL.md documents each)


@cache
def op_schema(op: str, part: Literal["args", "result"]) -> dict[str, Any] | None:
    """The schema of an op's args or result, or None for an op this version lacks."""
    defs = _op_defs()
    key = f"{op}.{part}"
    if key not in defs:
        return None
    return {"$ref": f"#/$defs/{key}", "$defs": defs}


@cache
def _response_validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(_schema("response.schema.json"))


@cache
def _op_validator(op: str, part: Literal["args", "result"]) -> jsonschema.Draft202012Validator:
    """The compiled validator of an op's args or result, built once per process (a request
    used to build one per message); `KeyError` for an op this version lacks."""
    schema = op_schema(op, part)
    if schema is None:
        raise KeyError(f"{op}.{part}")
    return jsonschema.Draft202012Validator(schema)


def first_problem(validator: jsonschema.Draft202012Validator, instance: object) -> str | None:
    """Where `instance` first departs from the validator's schema, `at <path>: <what>`, or
    None (the one wording of the protocol's, the case files' and the profiles' checks)."""
    error = jsonschema.exceptions.best_match(validator.iter_errors(instance))
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path) or "(top)"
    return f"at {where}: {error.message}"


def _check(instance: object, validator: jsonschema.Draft202012Validator, what: str) -> None:
    problem = first_problem(validator, instance)
    if problem is not None:
        raise ProtocolViolation(f"{what} does not match the protocol {problem}")


def validate_response(message: dict[str, Any], expected_id: int) -> None:
    _check(message, _response_validator(), "response")
    if message["id"] != expected_id:
        raise ProtocolViolation(
            f"response id {message['id']} answers no pending request (expected {expected_id})"
        )


def decode_hello_line(line: bytes) -> dict[str, Any]:
    """The first line an implementation writes, which must answer `hello`.

    A line that is no protocol message (not JSON, not an object, or an object without an
    `id`) is most often a log line or a banner printed at start-up: it is refused with
    the line quoted and the rule it broke (`STDOUT_RULE`).
    """
    try:
        message: dict[str, Any] | None = decode_line(line)
    except ProtocolViolation:
        message = None
    if message is None or "id" not in message:
        raise ProtocolViolation(
            f"the first line on stdout is not the answer to hello: {quote_line(line)}; "
            f"{STDOUT_RULE}"
        )
    return message


def validate_hello(result: object) -> None:
    """Raise `ProtocolViolation` unless `result` is a v1 hello listing only known ops."""
    _check(result, _op_validator("hello", "result"), "hello result")
    assert isinstance(result, dict)
    if result["protocol"] != PROTOCOL_VERSION:
        raise ProtocolViolation(
            f"implementation speaks protocol {result['protocol']}, runner speaks {PROTOCOL_VERSION}"
        )
    unknown = unknown_ops(result["ops"])
    if unknown:
        raise ProtocolViolation(unknown)


def unknown_ops(ops: Iterable[str]) -> str | None:
    """What is wrong with a hello's `ops`: each op not in `OPS`, with its nearest known op
    (a typo would otherwise make every case of the op *unsupported*), or None.

    >>> print(unknown_ops(["truncate.head", "truncate.tial"]))
    hello lists an op the suite does not know: "truncate.tial" (did you mean "truncate.tail"?)
    """
    unknown = [op for op in ops if op not in OPS]
    if not unknown:
        return None
    named = []
    for op in unknown:
        close = difflib.get_close_matches(op.lower(), OPS, n=1, cutoff=0.8)
        hint = f" (did you mean {json.dumps(close[0])}?)" if close else ""
        named.append(json.dumps(op) + hint)
    what = "an op" if len(unknown) == 1 else f"{len(unknown)} ops"
    return f"hello lists {what} the suite does not know: {', '.join(named)}"


def validate_result(op: str, result: object) -> None:
    """Raise `ProtocolViolation` unless `result` matches the op's whole result schema.

    The runner does not judge answers with this (a field off the schema is a difference
    among the others, see `validate_shape`); tests of the adapters and `bench` do.
    """
    if op_schema(op, "result") is not None:
        _check(result, _op_validator(op, "result"), f"{op} result")


def schema_problem(op: str, result: object) -> str | None:
    """The first place where `result` departs from the op's result schema, or None."""
    if op_schema(op, "result") is None:
        return None
    problem = first_problem(_op_validator(op, "result"), result)
    return None if problem is None else f"does not match the protocol {problem}"


# --- the top-level type: what separates a broken protocol from a wrong answer -----------

_KINDS: Final = ("null", "boolean", "number", "string", "array", "object")


def json_kind(value: object) -> str:
    """The JSON type of a decoded value; `integer` and `number` are one kind, `number`.

    >>> [json_kind(v) for v in (None, True, 1, 1.5, "", [], {})]
    ['null', 'boolean', 'number', 'number', 'string', 'array', 'object']
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    return "object"


def _kinds(node: Any, defs: dict[str, Any], depth: int = 0) -> frozenset[str]:
    """The JSON kinds a schema node allows at its own level (every kind if it says none)."""
    allowed = frozenset(_KINDS)
    if not isinstance(node, dict) or depth > 20:
        return allowed
    if isinstance(ref := node.get("$ref"), str):
        allowed &= _kinds(defs.get(ref.removeprefix("#/$defs/")), defs, depth + 1)
    if "type" in node:
        named = node["type"] if isinstance(node["type"], list) else [node["type"]]
        allowed &= frozenset("number" if t == "integer" else t for t in named)
    for branches in (node.get("oneOf"), node.get("anyOf")):
        if isinstance(branches, list) and branches:
            allowed &= frozenset().union(*(_kinds(b, defs, depth + 1) for b in branches))
    for branch in node.get("allOf", ()):
        allowed &= _kinds(branch, defs, depth + 1)
    return allowed


@cache
def result_kinds(op: str) -> frozenset[str]:
    """The JSON kinds the op's result may have at its top level (all six for an unknown op).

    >>> sorted(result_kinds("compaction.prepare")), sorted(result_kinds("tokens.estimate"))
    (['null', 'object'], ['number'])
    """
    return _kinds(_op_defs().get(f"{op}.result"), _op_defs())


def validate_shape(op: str, result: object) -> None:
    """Raise `ProtocolViolation` when `result`'s top-level JSON type is not one its op allows.

    This is the one schema check that makes an answer an *error*: a truncation answered
    with a list, a skill list answered with a string, `null` where Pi always answers an
    object. Whatever lies inside a result of the right top-level type (a missing, extra or
    mistyped field) is left to the comparison, where it is one difference among the others.
    """
    kinds = result_kinds(op)
    got = json_kind(result)
    if got not in kinds:
        want = " or ".join(sorted(kinds))
        shown = shorten(json.dumps(result, ensure_ascii=True), PREVIEW_CHARS)
        raise ProtocolViolation(
            f"{op} result must be {want} at its top level (protocol v1), got {got}: {shown}"
        )


def validate_args(op: str, args: object) -> str | None:
    """The first problem with `args` for `op`, or None (used on case files and requests)."""
    if op_schema(op, "args") is None:
        return f"unknown op {op!r}"
    problem = first_problem(_op_validator(op, "args"), args)
    return None if problem is None else f"args {problem}"


def quote_line(line: bytes, limit: int = PREVIEW_CHARS) -> str:
    """A line on stdout as a report shows it: quoted as a JSON string (bytes that are not
    UTF-8 as U+FFFD, no Python repr), its head and tail kept within `limit` characters
    with how many were left out. Head and tail are quoted apart, so no escape is cut.

    >>> print(quote_line(b"{'id': 1}\\n"))
    "{'id': 1}"
    >>> print(quote_line(b"x" * 10 + b"y", limit=4))
    "xx"… [7 of 11 characters not shown] …"xy"
    """
    text = line.decode("utf-8", "replace").rstrip("\r\n")
    if len(text) <= limit:
        return _quoted(text)
    half = max(limit // 2, 1)
    left_out = f"[{len(text) - 2 * half} of {len(text)} characters not shown]"
    return f"{_quoted(text[:half])}… {left_out} …{_quoted(text[-half:])}"


def _quoted(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)
