"""A scripted model on the loopback that speaks the OpenAI Responses API, for `codex exec`.

Codex 0.171.0 talks to a custom provider (`model_providers.<id>` with `wire_api =
"responses"`; `"chat"` is refused by this version) by `POST <base_url>/responses` with
`stream: true`, and reads server-sent events. `MockModel(reply)` serves that on
`127.0.0.1` (a free port, a daemon thread): each request body is recorded (`requests`),
`reply(body)` gives the output items of the answer and the usage to report, and the
answer is sent as the events Codex reads: `response.created`, one
`response.output_item.done` per item, `response.completed` with the usage. Any other
method or path is recorded in `unexpected` and answered 404, so a run that reaches for
something else is seen.

`config()` gives the `-c` overrides that point Codex at it (`model_provider` and its
`model_providers` entry, no retries) and `env` the key variable the entry names.

Standard library only: it runs in the adapter's process (`pyrun.py`).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Final

__all__ = ["MockModel", "Reply", "function_call", "message"]

PROVIDER: Final = "ctxspec"
_KEY: Final = "CTXSPEC_MOCK_KEY"


@dataclass(frozen=True, slots=True)
class Reply:
    """One scripted answer: its output items and the usage the provider reports."""

    items: list[dict[str, Any]]
    input_tokens: int = 0
    output_tokens: int = 1
    usage: bool = True  # False: `response.completed` reports no usage
    cut: bool = False  # True: stopped at the output limit (`response.incomplete`)


def message(text: str, item_id: str = "msg_ctxspec") -> dict[str, Any]:
    """An assistant message output item."""
    content = [{"type": "output_text", "text": text, "annotations": []}]
    return {"type": "message", "role": "assistant", "id": item_id, "content": content}


def function_call(name: str, arguments: dict[str, Any], call_id: str) -> dict[str, Any]:
    """A function call output item (Codex runs it and sends its output back)."""
    return {
        "type": "function_call",
        "id": f"fc_{call_id}",
        "call_id": call_id,
        "name": name,
        "arguments": json.dumps(arguments),
    }


def _events(number: int, reply: Reply) -> bytes:
    response_id = f"resp_ctxspec_{number}"
    usage = {
        "input_tokens": reply.input_tokens,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": reply.output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": reply.input_tokens + reply.output_tokens,
    }
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {"id": response_id}},
        *({"type": "response.output_item.done", "item": item} for item in reply.items),
        {"type": "response.completed", "response": {"id": response_id, "usage": usage}},
    ]
    if not reply.usage:
        del events[-1]["response"]["usage"]
    if reply.cut:  # the Responses API's end of an answer stopped at max_output_tokens
        events[-1]["type"] = "response.incomplete"
        events[-1]["response"]["status"] = "incomplete"
        events[-1]["response"]["incomplete_details"] = {"reason": "max_output_tokens"}
    return b"".join(
        f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode() for event in events
    )


@dataclass
class MockModel:
    """The scripted model, serving while the `with` block runs."""

    reply: Callable[[dict[str, Any]], Reply]
    requests: list[dict[str, Any]] = field(default_factory=list)
    unexpected: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("the mock model is not serving")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def config(self) -> list[str]:
        """The `-c` overrides that make Codex ask this model, once per request (no retries)."""
        entry = (
            f'{{name="ctxspec mock",base_url="{self.url}",wire_api="responses",'
            f'env_key="{_KEY}",stream_max_retries=0,request_max_retries=0}}'
        )
        return [f"model_provider={PROVIDER}", f"model_providers.{PROVIDER}={entry}"]

    @property
    def env(self) -> dict[str, str]:
        return {_KEY: "ctxspec-mock"}

    def _answer(self, path: str, body: bytes) -> tuple[int, bytes]:
        with self._lock:
            if path != "/v1/responses":
                self.unexpected.append(f"POST {path}")
                return 404, b""
            try:
                request = json.loads(body)
                self.requests.append(request)
                return 200, _events(len(self.requests), self.reply(request))
            except Exception as error:  # reported by the caller: a bad script or request
                self.errors.append(f"{type(error).__name__}: {error}")
                return 500, b""

    def __enter__(self) -> MockModel:
        model = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length)
                if self.headers.get("content-encoding", "identity") != "identity":
                    model.errors.append(f"compressed body ({self.headers['content-encoding']})")
                    status, data = 415, b""
                else:
                    status, data = model._answer(self.path, body)
                self.send_response(status)
                self.send_header("content-type", "text/event-stream")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                model.unexpected.append(f"GET {self.path}")
                self.send_response(404)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                return  # the wire is stdout's: nothing printed

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
