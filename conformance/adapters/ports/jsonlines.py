"""Protocol v1 on stdio for a port's adapter, with the standard library only.

A PyPI port's adapter runs in the port's own venv (see `pyvenv`), where ctxspec and its
dependencies are not installed, so this loop imports nothing of ctxspec's. An adapter
gives `serve` its handlers (op -> function of the args) and its `hello` identity; a
handler raises `InvalidInput` for arguments it refuses and `Unsupported` for an input
the port's API cannot express. Anything else it raises is answered as `internal`, with
the exception's text as the message and the traceback in `detail`.
"""

from __future__ import annotations

import json
import sys
import traceback
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["InvalidInput", "Unsupported", "serve"]

PROTOCOL = 1


class InvalidInput(Exception):
    """The implementation refuses these arguments (protocol error type `invalid_input`)."""


class Unsupported(Exception):
    """The implementation's API cannot express this input (error type `unsupported`)."""


def _answer(
    request: Mapping[str, Any],
    handlers: Mapping[str, Callable[[dict[str, Any]], Any]],
    hello: dict[str, Any],
) -> dict[str, Any]:
    op, request_id = request.get("op"), request.get("id")
    if op == "hello":
        return {
            "id": request_id,
            "result": {"protocol": PROTOCOL, **hello, "ops": sorted(handlers)},
        }
    handler = handlers.get(str(op))
    if handler is None:
        return {
            "id": request_id,
            "error": {"type": "unsupported", "message": f"op {op} is not supported"},
        }
    try:
        return {"id": request_id, "result": handler(dict(request.get("args") or {}))}
    except InvalidInput as error:
        return {"id": request_id, "error": {"type": "invalid_input", "message": str(error)}}
    except Unsupported as error:
        return {"id": request_id, "error": {"type": "unsupported", "message": str(error)}}
    except Exception as error:  # the port's own failure: report it, keep serving
        return {
            "id": request_id,
            "error": {
                "type": "internal",
                "message": f"{type(error).__name__}: {error}",
                "detail": traceback.format_exc(limit=8),
            },
        }


def serve(handlers: Mapping[str, Callable[[dict[str, Any]], Any]], hello: dict[str, Any]) -> None:
    """Answer requests from stdin until it closes; `hello` gives `implementation`."""
    out = sys.stdout
    sys.stdout = sys.stderr  # a port that prints must not corrupt the wire
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
        except ValueError as error:
            print(f"bad request line: {error}", file=sys.stderr)
            continue
        # ensure_ascii escapes lone surrogates, so the line is valid UTF-8
        out.write(json.dumps(_answer(request, handlers, hello), ensure_ascii=True) + "\n")
        out.flush()
