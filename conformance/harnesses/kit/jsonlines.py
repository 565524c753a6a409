"""Protocol v1 on stdio for Python: the one loop the reference and every Python port serve with.

`serve(answer)` reads one request per line until stdin closes and writes `answer`'s
response to each, one ASCII line (lone surrogates escaped, no NaN), flushed. Whatever
`answer` raises, or a response that is not JSON, is answered as `internal` with the
exception's text as the message and the traceback in `detail`, and the loop goes on. A
line that is not a JSON object has no id to answer: it is named on stderr and skipped.
With the process's own stdout, `sys.stdout` is pointed at stderr first, so an
implementation that prints cannot corrupt the wire.

`dispatch(handlers, hello)` is the `answer` of a port's adapter: `hello` with the ops
listed, each other op to its handler, a `tree` argument checked first by the shared tree
code (`tree.validate_tree`, as `reference.handle` does), and the errors a handler
chooses to give: `InvalidInput` (the engine's, naming the field), `Refused` (the port's
own refusal, naming none) and `Unsupported` (an input the port's API cannot express).

Standard library only (besides `ctxspec.reference.errors` and `tree`, themselves standard library
only): a port's adapter runs this in the port's own venv (`transport/pyrun.py`).
"""

from __future__ import annotations

import json
import sys
import traceback
from collections.abc import Callable, Mapping
from typing import Any, BinaryIO, Final

from ctxspec.conformance.harnesses.kit.tree import validate_tree
from ctxspec.reference.errors import InvalidInput

__all__ = [
    "Answer",
    "Args",
    "Handler",
    "InvalidInput",
    "Refused",
    "Unsupported",
    "dispatch",
    "serve",
]

PROTOCOL: Final = 1

Args = dict[str, Any]  # a request's arguments, as a handler gets them
Handler = Callable[[Args], Any]
Answer = Callable[[dict[str, Any]], dict[str, Any]]


class Refused(Exception):
    """The implementation refuses these arguments in its own words (`invalid_input`, no field)."""


class Unsupported(Exception):
    """The implementation's API cannot express this input (error type `unsupported`)."""


def dispatch(handlers: Mapping[str, Handler], hello: Mapping[str, Any]) -> Answer:
    """The answer function of an adapter with these handlers; `hello` gives `implementation`."""
    greeting = {"protocol": PROTOCOL, **hello, "ops": sorted(handlers)}

    def answer(request: dict[str, Any]) -> dict[str, Any]:
        op, request_id = request.get("op"), request.get("id")
        if op == "hello":
            return {"id": request_id, "result": greeting}
        handler = handlers.get(str(op))
        if handler is None:
            return _error(request_id, "unsupported", f"op {op} is not supported")
        args = request.get("args")
        try:
            if not isinstance(args, dict | None):
                raise InvalidInput("args", "must be an object")
            args = dict(args or {})
            if "tree" in args:
                validate_tree(args["tree"])  # the tree rules of every adapter (WIRE-1)
            return {"id": request_id, "result": handler(args)}
        except InvalidInput as error:
            return _error(request_id, "invalid_input", str(error), field=error.field)
        except Refused as error:
            return _error(request_id, "invalid_input", str(error))
        except Unsupported as error:
            return _error(request_id, "unsupported", str(error))

    return answer


def serve(answer: Answer, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
    """Answer protocol v1 requests from `stdin` (default: the process's) until it closes."""
    if stdout is None:
        stdout = sys.stdout.buffer
        sys.stdout = sys.stderr  # an implementation that prints must not corrupt the wire
    for line in stdin if stdin is not None else sys.stdin.buffer:
        if line.strip():
            response = _respond(line, answer)
            if response is not None:
                stdout.write(response)
                stdout.flush()


def _respond(line: bytes, answer: Answer) -> bytes | None:
    """One request's response line. Nothing of the request outlives this call: an answer
    kept alive while the next request runs (a compaction's messages are the session's own
    objects) would scatter that request's objects among the survivors, and the reference's
    session helpers on 100k entries ran 2x slower after a few requests."""
    try:
        request = json.loads(line)
    except ValueError as error:
        print(f"bad request line: {error}", file=sys.stderr)
        return None
    if not isinstance(request, dict):
        print(f"bad request line: not a JSON object: {line[:80]!r}", file=sys.stderr)
        return None
    try:
        return _encode(answer(request))
    except Exception as error:  # the implementation's own failure: report it, keep serving
        detail = traceback.format_exc(limit=8)
        return _encode(_error(request.get("id"), "internal", _text(error), detail=detail))


def _encode(response: dict[str, Any]) -> bytes:
    # ensure_ascii escapes lone surrogates, so the line is valid UTF-8 (and ASCII)
    text = json.dumps(response, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    return text.encode("ascii") + b"\n"


def _text(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"


def _error(request_id: object, kind: str, message: str, **extra: str | None) -> dict[str, Any]:
    error = {"type": kind, "message": message}
    error.update({key: value for key, value in extra.items() if value is not None})
    return {"id": request_id, "error": error}
