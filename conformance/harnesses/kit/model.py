"""One scripted model on the loopback, for every harness that drives an agent as a black box.

`ModelServer(script)` serves, while its `with` block runs, on `127.0.0.1` at a port the
system picks (never another interface), in a daemon thread of the adapter's process.
It speaks three dialects (`model_wire.py`): Anthropic Messages (`POST /v1/messages`,
Claude Code), OpenAI Chat Completions (`POST /v1/chat/completions`: opencode, Copilot
CLI, Qwen Code) and Responses (`POST /v1/responses`: Codex), each streamed or whole as
the request asks; `dialects=` narrows them to the harness's own. An agent is pointed at
`url` (the origin) or `base_url` (`url` + `/v1`), whichever its setting names.

Every request is recorded in order (`requests`: method, path, headers without the
credentials, JSON body). Each request to a dialect's path takes the script's next answer
(`model_script.py`): the next `Turn` of a list, or what the script function returns
for it. A request nothing answers fails the run, twice over: the agent gets an error
status at once (404 for a path no dialect serves, 400 when the script has no turn for
it, 500 when the script itself raised, 415 for a compressed body), in the dialect's own
error shape, and the harness gets a typed error naming the request (`UnscriptedRequest`,
`ScriptFailed`: its method, path, number and a body excerpt), raised when the `with`
block ends, or earlier by `check()`.

Standard library only: a PyPI port's adapter may run the kit in the port's own venv
(`transport/pyrun.py`).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Final

from ctxspec.conformance.harnesses.kit.model_script import Request, Script, Turn
from ctxspec.conformance.harnesses.kit.model_wire import DIALECTS, Wire, answer, error

__all__ = [
    "HOST",
    "SECRET_HEADERS",
    "ModelServer",
    "ModelServerError",
    "ScriptFailed",
    "UnscriptedRequest",
]

HOST: Final = "127.0.0.1"  # the only address served: the loopback
SECRET_HEADERS: Final = frozenset(  # never recorded: an agent's key stays out of every error
    {"authorization", "proxy-authorization", "x-api-key", "api-key", "cookie", "x-goog-api-key"}
)
_METHODS: Final = ("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")


class ModelServerError(RuntimeError):
    """The scripted model could not answer a request as scripted; `request` is that one."""

    def __init__(self, message: str, request: Request) -> None:
        super().__init__(f"{message}: {request.describe()}")
        self.request = request


class UnscriptedRequest(ModelServerError):
    """The agent asked for something the script does not answer: a path no dialect serves,
    or a model request past the script's turns (or one its function declined)."""


class ScriptFailed(ModelServerError):
    """The harness's script raised, or the request could not be read: the harness's fault."""


@dataclass
class ModelServer:
    """The scripted model, serving while the `with` block runs (module doc)."""

    script: Script
    dialects: Collection[str] = tuple(DIALECTS.values())
    requests: list[Request] = field(default_factory=list)
    failures: list[ModelServerError] = field(default_factory=list)
    _answered: int = 0
    _server: ThreadingHTTPServer | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        known = set(DIALECTS.values())
        if isinstance(self.dialects, str) or not set(self.dialects) <= known:
            raise ValueError(f"dialects must be a collection of {sorted(known)}: {self.dialects!r}")

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("the model server is not serving (use it in a with block)")
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        """The origin, `http://127.0.0.1:<port>`."""
        return f"http://{HOST}:{self.port}"

    @property
    def base_url(self) -> str:
        """The origin + `/v1`, where the dialects' paths start."""
        return f"{self.url}/v1"

    def model_requests(self, dialect: str | None = None) -> list[Request]:
        """The recorded requests to a dialect's path (to `dialect`'s only, when given)."""
        return [
            request
            for request in self.requests
            if request.dialect is not None and dialect in (None, request.dialect)
        ]

    @property
    def bodies(self) -> list[Any]:
        """The JSON bodies of the model requests, in order."""
        return [request.body for request in self.model_requests()]

    def check(self) -> None:
        """Raise the first failure, if any (the others are named by count)."""
        if self.failures:
            first = self.failures[0]
            if len(self.failures) > 1 and not getattr(first, "__notes__", None):
                first.add_note(f"and {len(self.failures) - 1} more failed request(s)")
            raise first

    def _next_turn(self, request: Request) -> Turn | None:
        if callable(self.script):
            return self.script(request)
        turns: Sequence[Turn] = self.script
        return turns[self._answered] if self._answered < len(turns) else None

    def _why_unscripted(self) -> str:
        if callable(self.script):
            return "the script answers nothing for this request"
        return f"the script's {len(self.script)} turn(s) are spent"

    def _fail(self, failure: ModelServerError, status: int, kind: str) -> Wire:
        self.failures.append(failure)
        return error(failure.request.dialect, status, kind, f"ctxspec model server: {failure}")

    def _serve(self, method: str, path: str, headers: dict[str, str], raw: bytes) -> Wire:
        """Record one request and answer it (the module doc says how)."""
        with self._lock:
            request, problem = self._record(method, path, headers, raw)
            self.requests.append(request)
            if problem is not None:
                return self._fail(ScriptFailed(problem, request), 415, "invalid_request_error")
            if request.dialect is None:
                served = [
                    f"POST {path}" for path, name in DIALECTS.items() if name in self.dialects
                ]
                why = f"no dialect serves this path (served: {', '.join(served)})"
                return self._fail(UnscriptedRequest(why, request), 404, "not_found_error")
            try:
                turn = self._next_turn(request)
            except Exception as raised:  # the harness's script is at fault: say so, keep serving
                why = f"the script raised {type(raised).__name__}: {raised}"
                return self._fail(ScriptFailed(why, request), 500, "api_error")
            if turn is None:
                unscripted = UnscriptedRequest(self._why_unscripted(), request)
                return self._fail(unscripted, 400, "invalid_request_error")
            self._answered += 1
            return answer(request.dialect, turn, request.body, self._answered)

    def _record(
        self, method: str, path: str, headers: dict[str, str], raw: bytes
    ) -> tuple[Request, str | None]:
        """The request as recorded, and why its body cannot be read (None: it can)."""
        kept = {name: value for name, value in headers.items() if name not in SECRET_HEADERS}
        dialect = DIALECTS.get(path.partition("?")[0]) if method == "POST" else None
        encoding = headers.get("content-encoding", "identity")
        body: Any = None
        problem = None
        if encoding != "identity":
            problem = f"a body compressed as {encoding} (the model reads identity only)"
        elif raw:
            try:
                body = json.loads(raw)
            except ValueError:
                body = raw.decode("utf-8", "replace")
                problem = "a body that is not JSON"
        number = len(self.requests) + 1
        served = dialect if dialect in self.dialects else None
        return Request(number, method, path, kept, body, served), problem

    def __enter__(self) -> ModelServer:
        model = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _handle(self) -> None:
                headers = {name.lower(): value for name, value in self.headers.items()}
                wire = model._serve(self.command, self.path, headers, _body(self, headers))
                self.send_response(wire.status)
                self.send_header("content-type", wire.content_type)
                self.send_header("content-length", str(len(wire.body)))
                self.end_headers()
                self.wfile.write(wire.body)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = _handle

            def log_message(self, format: str, *args: Any) -> None:
                return  # an adapter's stdout is the protocol's wire: nothing printed

        self._server = ThreadingHTTPServer((HOST, 0), Handler)
        self._server.daemon_threads = True
        serving = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)
        serving.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        raised: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if isinstance(raised, ModelServerError) or not isinstance(raised, Exception | None):
            return  # already the model's failure, or an interrupt: let it through
        if self.failures:  # the request the run failed on, over whatever the harness saw
            try:
                self.check()
            except ModelServerError as failure:
                raise failure from raised


def _body(handler: BaseHTTPRequestHandler, headers: dict[str, str]) -> bytes:
    """The request's body: by its content-length, or its chunks (`transfer-encoding: chunked`)."""
    if "chunked" in headers.get("transfer-encoding", ""):
        return b"".join(_chunks(handler))
    return handler.rfile.read(int(headers.get("content-length") or 0))


def _chunks(handler: BaseHTTPRequestHandler) -> Iterator[bytes]:
    while True:
        size = int(handler.rfile.readline().split(b";")[0].strip() or b"0", 16)
        if size == 0:
            while handler.rfile.readline().strip():  # the trailer, up to its blank line
                pass
            return
        yield handler.rfile.read(size)
        handler.rfile.readline()  # the CRLF after the chunk
