"""The reference engine as an implementation: in-process, or over the wire.

`handle(op, args)` answers one request from `reference/`; `ReferenceImplementation`
calls it in-process (the default `--impl reference`), and `python -m
conformance.adapters.reference` serves the same function as protocol v1 on stdio (with
`jsonlines.serve`, the loop the Python ports share), so the runner's wire path is
tested against a known-good implementation.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import Any, BinaryIO, Final

import reference
from conformance.adapters import jsonlines
from conformance.adapters.base import Implementation, Reply
from conformance.adapters.ops import all_handlers
from conformance.adapters.tree import validate_tree
from conformance.protocol import OPS, PROTOCOL_VERSION, OpError
from reference.errors import InvalidInput

__all__ = ["HELLO", "ReferenceImplementation", "handle", "main", "serve"]

HANDLERS: Final = all_handlers()
assert set(HANDLERS) <= set(OPS), "every handled op is a protocol op (schemas/ops/)"

HELLO: Final = {
    "protocol": PROTOCOL_VERSION,
    "implementation": {
        "name": "ctxspec-reference",
        "version": reference.__version__,
        "language": f"python {sys.version_info.major}.{sys.version_info.minor}",
    },
    "ops": sorted(HANDLERS),
}


def handle(op: str, args: Mapping[str, Any]) -> Reply:
    """Answer one op; bad arguments become `invalid_input`, an unknown op `unsupported`."""
    if op == "hello":
        return Reply(result=HELLO)
    handler = HANDLERS.get(op)
    if handler is None:
        return Reply(error=OpError("unsupported", f"op {op!r} is not implemented"))
    try:
        if "tree" in args:
            validate_tree(args["tree"])  # the tree rules of every adapter that lays one out
        return Reply(result=handler(args))
    except InvalidInput as error:
        return Reply(error=OpError("invalid_input", str(error), error.field))
    except KeyError as error:
        return Reply(
            error=OpError("invalid_input", f"missing argument {error}", str(error.args[0]))
        )


class ReferenceImplementation(Implementation):
    """The engine in this process; arguments take a JSON round trip, as on the wire."""

    name = "reference"

    def __init__(self) -> None:
        self.hello = HELLO

    def call(self, op: str, args: Mapping[str, Any]) -> Reply:
        wire_args = json.loads(json.dumps(args))
        reply = handle(op, wire_args)
        if reply.error is None:
            return Reply(result=json.loads(json.dumps(reply.result)))
        return reply


def serve(stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
    """Answer protocol v1 requests until stdin closes (the loop every Python adapter shares)."""
    jsonlines.serve(_answer, stdin, stdout)


def _answer(request: dict[str, Any]) -> dict[str, Any]:
    """One request's response; a bug in the engine escapes to the loop, answered `internal`."""
    reply = handle(str(request.get("op")), request.get("args") or {})
    return reply.to_wire(request.get("id"))


def main() -> None:
    serve()


if __name__ == "__main__":
    main()
