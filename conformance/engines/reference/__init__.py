"""The reference engine as an implementation: in-process, or over the wire.

`handle(op, args)` answers one request from `reference/`; `ReferenceImplementation`
calls it in-process (the default `--impl reference`), and `python -m
ctxspec.conformance.engines.reference` serves the same function as protocol v1 on stdio (with
`jsonlines.serve`, the loop the Python ports share), so the runner's wire path is
tested against a known-good implementation.

`EngineAdapter` is the same for any `Engine` (the handlers' table of engine functions):
`ctxspec.conformance.engines.fastengine` serves the fast engine with it.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import Any, BinaryIO, Final

from ctxspec import __version__
from ctxspec.conformance.engines.reference.ops import REFERENCE, Engine, all_handlers
from ctxspec.conformance.harnesses.kit import jsonlines
from ctxspec.conformance.harnesses.kit.tree import validate_tree
from ctxspec.conformance.protocol import OPS, PROTOCOL_VERSION, OpError
from ctxspec.conformance.transport.base import Implementation, Reply
from ctxspec.reference._jsnum import as_js_numbers
from ctxspec.reference.errors import InvalidInput

__all__ = [
    "HELLO",
    "EngineAdapter",
    "InProcessImplementation",
    "ReferenceImplementation",
    "handle",
    "in_process",
    "serve",
]


class EngineAdapter:
    """An engine's answers to protocol requests: its handlers and its `hello`."""

    def __init__(self, engine: Engine, implementation: str) -> None:
        self.handlers: Final = all_handlers(engine)
        assert set(self.handlers) <= set(OPS), "every handled op is a protocol op (schemas/ops/)"
        self.hello: Final = {
            "protocol": PROTOCOL_VERSION,
            "implementation": {
                "name": implementation,
                "version": __version__,
                "language": f"python {sys.version_info.major}.{sys.version_info.minor}",
            },
            "ops": sorted(self.handlers),
        }

    def handle(self, op: str, args: Mapping[str, Any]) -> Reply:
        """Answer one op; bad arguments become `invalid_input`, an unknown op `unsupported`."""
        if op == "hello":
            return Reply(result=self.hello)
        handler = self.handlers.get(op)
        if handler is None:
            return Reply(error=OpError("unsupported", f"op {op!r} is not implemented"))
        args = as_js_numbers(args)  # the request as a JavaScript engine reads it
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

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        """One request's response; a bug in the engine escapes to the loop, answered `internal`."""
        reply = self.handle(str(request.get("op")), request.get("args") or {})
        return reply.to_wire(request.get("id"))

    def serve(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """Answer protocol v1 requests until stdin closes (the loop every Python adapter shares)."""
        jsonlines.serve(self.answer, stdin, stdout)


class InProcessImplementation(Implementation):
    """An engine in this process; arguments take a JSON round trip, as on the wire."""

    def __init__(self, adapter: EngineAdapter, name: str) -> None:
        self.adapter = adapter
        self.name = name
        self.hello = adapter.hello

    def call(self, op: str, args: Mapping[str, Any]) -> Reply:
        wire_args = json.loads(json.dumps(args))
        reply = self.adapter.handle(op, wire_args)
        if reply.error is None:
            return Reply(result=json.loads(json.dumps(reply.result)))
        return reply


ADAPTER: Final = EngineAdapter(REFERENCE, "ctxspec-reference")
HANDLERS: Final = ADAPTER.handlers
HELLO: Final = ADAPTER.hello


handle: Final = ADAPTER.handle  # the reference's answer to one op
serve: Final = ADAPTER.serve  # protocol v1 on stdio with the reference, until stdin closes


class ReferenceImplementation(InProcessImplementation):
    """The reference engine in this process (`--impl reference`)."""

    def __init__(self) -> None:
        super().__init__(ADAPTER, "reference")


def in_process() -> Implementation:
    """This engine in this process (what `--impl reference` runs)."""
    return ReferenceImplementation()
