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
import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Final, Literal

import jsonschema

from conformance.errors import ProtocolViolation

__all__ = [
    "ERROR_TYPES",
    "OPS",
    "PROTOCOL_VERSION",
    "ErrorType",
    "OpError",
    "decode_b64",
    "decode_line",
    "encode_b64",
    "encode_line",
    "op_schema",
    "validate_args",
    "validate_hello",
    "validate_response",
    "validate_result",
]

PROTOCOL_VERSION: Final = 1

ErrorType = Literal["unsupported", "invalid_input", "internal"]
ERROR_TYPES: Final = ("unsupported", "invalid_input", "internal")


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
    """Parse one line; raise `ProtocolViolation` if it is not one JSON object."""
    try:
        message = json.loads(line)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ProtocolViolation(f"not a JSON line: {error}: {_preview(line)}") from None
    if not isinstance(message, dict):
        raise ProtocolViolation(f"a message must be a JSON object, got {_preview(line)}")
    return message


def encode_b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def decode_b64(text: str) -> bytes:
    return base64.b64decode(text, validate=True)


@cache
def _schema(name: str) -> dict[str, Any]:
    text = resources.files("conformance").joinpath("schemas", name).read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


@cache
def _op_defs() -> dict[str, Any]:
    """The `$defs` of every `schemas/ops/*.schema.json`, merged (one file per concern)."""
    merged: dict[str, Any] = {}
    folder = resources.files("conformance").joinpath("schemas", "ops")
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


def _check(instance: object, schema: dict[str, Any], what: str) -> None:
    error = jsonschema.exceptions.best_match(
        jsonschema.Draft202012Validator(schema).iter_errors(instance)
    )
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(top)"
        raise ProtocolViolation(f"{what} does not match the protocol at {where}: {error.message}")


def validate_response(message: dict[str, Any], expected_id: int) -> None:
    _check(message, _schema("response.schema.json"), "response")
    if message["id"] != expected_id:
        raise ProtocolViolation(
            f"response id {message['id']} answers no pending request (expected {expected_id})"
        )


def validate_hello(result: object) -> None:
    schema = op_schema("hello", "result")
    assert schema is not None
    _check(result, schema, "hello result")
    assert isinstance(result, dict)
    if result["protocol"] != PROTOCOL_VERSION:
        raise ProtocolViolation(
            f"implementation speaks protocol {result['protocol']}, runner speaks {PROTOCOL_VERSION}"
        )


def validate_result(op: str, result: object) -> None:
    schema = op_schema(op, "result")
    if schema is not None:
        _check(result, schema, f"{op} result")


def validate_args(op: str, args: object) -> str | None:
    """The first problem with `args` for `op`, or None (used on case files and requests)."""
    schema = op_schema(op, "args")
    if schema is None:
        return f"unknown op {op!r}"
    error = jsonschema.exceptions.best_match(
        jsonschema.Draft202012Validator(schema).iter_errors(args)
    )
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path) or "(top)"
    return f"args at {where}: {error.message}"


def _preview(line: bytes, limit: int = 120) -> str:
    shown = line[:limit]
    return repr(shown) + ("…" if len(line) > limit else "")
