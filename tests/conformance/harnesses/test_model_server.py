"""The shared scripted model (`kit/model.py`), asked by a plain HTTP client in each dialect.

The client here is `http.client` and a few lines of server-sent-event parsing, so each
answer is checked as bytes on the wire, the way an agent's own client reads them.
"""

from __future__ import annotations

import http.client
import json
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any, ClassVar

import pytest

from ctxspec.conformance.harnesses.kit.model import (
    SECRET_HEADERS,
    ModelServer,
    ScriptFailed,
    UnscriptedRequest,
)
from ctxspec.conformance.harnesses.kit.model_script import Request, Text, ToolCall, Turn, Usage
from ctxspec.conformance.harnesses.kit.model_wire import CHAT, MESSAGES, RESPONSES
from ctxspec.conformance.transport.pyrun import PYRUN

CALL = ToolCall("bash", {"command": "cat out.txt"}, "call_1")


def post(
    model: ModelServer, path: str, body: Any, headers: dict[str, str] | None = None
) -> tuple[int, str, bytes]:
    """POST `body` as JSON; the status, content type and body of the answer."""
    connection = http.client.HTTPConnection("127.0.0.1", model.port, timeout=5)
    try:
        data = json.dumps(body).encode()
        connection.request(
            "POST", path, data, {"content-type": "application/json", **(headers or {})}
        )
        response = connection.getresponse()
        return response.status, response.getheader("content-type") or "", response.read()
    finally:
        connection.close()


def events(data: bytes) -> list[tuple[str | None, Any]]:
    """Server-sent events as (event name or None, data parsed as JSON, or the raw text)."""
    found: list[tuple[str | None, Any]] = []
    for block in data.decode("ascii").split("\n\n"):
        if not block:
            continue
        name, payload = None, ""
        for line in block.split("\n"):
            field, _, value = line.partition(": ")
            if field == "event":
                name = value
            elif field == "data":
                payload = value
        found.append((name, payload if payload == "[DONE]" else json.loads(payload)))
    return found


class TestAnthropicMessages:
    """`POST /v1/messages`: Claude Code's dialect."""

    def test_a_stream_carries_usage_on_message_start_and_the_stop_reason_after(self) -> None:
        turn = Turn((Text("hé"), CALL), Usage(input_tokens=900, output_tokens=5, cached_tokens=100))
        with ModelServer([turn]) as model:
            status, kind, data = post(
                model, "/v1/messages?beta=true", {"model": "m", "stream": True}
            )
        assert (status, kind) == (200, "text/event-stream")
        seen = events(data)
        assert [name for name, _ in seen] == [
            "message_start",
            *["content_block_start", "content_block_delta", "content_block_stop"] * 2,
            "message_delta",
            "message_stop",
        ]
        assert all(name == payload["type"] for name, payload in seen)
        start = seen[0][1]["message"]
        assert start["content"] == [] and start["stop_reason"] is None and start["model"] == "m"
        usage = {
            "input_tokens": 800,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 100,
            "output_tokens": 5,
        }
        assert start["usage"] == usage
        assert seen[1][1]["content_block"] == {"type": "text", "text": ""}
        assert seen[2][1]["delta"] == {"type": "text_delta", "text": "hé"}
        assert seen[4][1] == {
            "type": "content_block_start",
            "index": 1,
            "content_block": {"type": "tool_use", "id": "call_1", "name": "bash", "input": {}},
        }
        arguments = seen[5][1]["delta"]
        assert arguments["type"] == "input_json_delta"
        assert json.loads(arguments["partial_json"]) == {"command": "cat out.txt"}
        assert seen[7][1]["delta"] == {"stop_reason": "tool_use", "stop_sequence": None}
        assert seen[7][1]["usage"] == usage

    @pytest.mark.parametrize(
        ("turn", "reason"), [(Turn.say("x"), "end_turn"), (Turn.say("x", cut=True), "max_tokens")]
    )
    def test_a_whole_message_has_the_scripted_content_and_stop_reason(
        self, turn: Turn, reason: str
    ) -> None:
        with ModelServer([turn]) as model:
            status, kind, data = post(model, "/v1/messages", {"model": "m"})
        message = json.loads(data)
        assert (status, kind) == (200, "application/json")
        assert message["content"] == [{"type": "text", "text": "x"}]
        assert message["stop_reason"] == reason
        assert message["usage"]["output_tokens"] == 1

    def test_a_turn_without_usage_reports_none(self) -> None:
        with ModelServer([Turn.say("x", usage=None)]) as model:
            _, _, data = post(model, "/v1/messages", {"stream": True})
        assert all(
            "usage" not in payload and "usage" not in payload.get("message", {})
            for _, payload in events(data)
        )


class TestChatCompletions:
    """`POST /v1/chat/completions`: opencode's, Copilot CLI's and Qwen Code's dialect."""

    STREAM: ClassVar[dict[str, Any]] = {
        "model": "m",
        "stream": True,
        "stream_options": {"include_usage": True},
    }

    def test_a_stream_ends_with_the_finish_reason_then_the_usage_then_done(self) -> None:
        with ModelServer(
            [Turn((Text("a"), Text("b")), Usage(input_tokens=70, output_tokens=3))]
        ) as model:
            status, kind, data = post(model, "/v1/chat/completions", self.STREAM)
        assert (status, kind) == (200, "text/event-stream")
        seen = [payload for name, payload in events(data) if name is None]
        assert len(seen) == len(events(data))  # Chat Completions names no events
        chunks, done = seen[:-1], seen[-1]
        assert done == "[DONE]"
        assert all(chunk["object"] == "chat.completion.chunk" for chunk in chunks)
        deltas = [chunk["choices"][0]["delta"] for chunk in chunks[:-1]]
        assert deltas == [{"role": "assistant", "content": "a"}, {"content": "b"}, {}]
        assert [chunk["choices"][0]["finish_reason"] for chunk in chunks[:-1]] == [
            None,
            None,
            "stop",
        ]
        assert all(chunk["usage"] is None for chunk in chunks[:-1])
        assert chunks[-1]["choices"] == []
        assert chunks[-1]["usage"] == {
            "prompt_tokens": 70,
            "completion_tokens": 3,
            "total_tokens": 73,
            "prompt_tokens_details": {"cached_tokens": 0},
        }

    def test_tool_calls_stream_by_index_and_finish_as_tool_calls(self) -> None:
        second = ToolCall("read", {"path": "a"}, "call_2")
        with ModelServer([Turn((CALL, second))]) as model:
            _, _, data = post(model, "/v1/chat/completions", self.STREAM)
        chunks = [payload for _, payload in events(data)][:-2]
        calls = [
            call for chunk in chunks for call in chunk["choices"][0]["delta"].get("tool_calls", [])
        ]
        assert [(c["index"], c["id"], c["type"], c["function"]["name"]) for c in calls] == [
            (0, "call_1", "function", "bash"),
            (1, "call_2", "function", "read"),
        ]
        assert json.loads(calls[1]["function"]["arguments"]) == {"path": "a"}
        assert chunks[-1]["choices"][0]["finish_reason"] == "tool_calls"

    def test_no_usage_chunk_unless_asked(self) -> None:
        with ModelServer([Turn.say("x", cut=True)]) as model:
            _, _, data = post(model, "/v1/chat/completions", {"stream": True})
        chunks = [payload for _, payload in events(data)][:-1]
        assert all("usage" not in chunk for chunk in chunks)
        assert chunks[-1]["choices"][0]["finish_reason"] == "length"

    def test_a_whole_completion(self) -> None:
        with ModelServer([Turn((Text("hi"), CALL), Usage(5, 2))]) as model:
            _, kind, data = post(model, "/v1/chat/completions", {"model": "m"})
        completion = json.loads(data)
        assert kind == "application/json" and completion["object"] == "chat.completion"
        choice = completion["choices"][0]
        assert choice["finish_reason"] == "tool_calls"
        assert choice["message"]["content"] == "hi"
        assert choice["message"]["tool_calls"][0]["function"]["name"] == "bash"
        assert completion["usage"]["total_tokens"] == 7


class TestResponses:
    """`POST /v1/responses`: Codex's dialect, the bytes Codex 0.171.0 was first run against."""

    def test_the_events_are_byte_for_byte_codex_s(self) -> None:
        turn = Turn(
            (Text("hi é", "msg_ctxspec_3"), ToolCall("exec_command", {"cmd": "cat a"}, "call_1")),
            Usage(7),
        )
        with ModelServer([turn]) as model:
            status, kind, data = post(model, "/v1/responses", {"stream": True, "input": []})
        assert (status, kind) == (200, "text/event-stream")
        assert data == (
            b"event: response.created\n"
            b'data: {"type": "response.created", "response": {"id": "resp_ctxspec_1"}}\n\n'
            b"event: response.output_item.done\n"
            b'data: {"type": "response.output_item.done", "item": {"type": "message", '
            b'"role": "assistant", "id": "msg_ctxspec_3", "content": [{"type": "output_text", '
            b'"text": "hi \\u00e9", "annotations": []}]}}\n\n'
            b"event: response.output_item.done\n"
            b'data: {"type": "response.output_item.done", "item": {"type": "function_call", '
            b'"id": "fc_call_1", "call_id": "call_1", "name": "exec_command", '
            b'"arguments": "{\\"cmd\\": \\"cat a\\"}"}}\n\n'
            b"event: response.completed\n"
            b'data: {"type": "response.completed", "response": {"id": "resp_ctxspec_1", '
            b'"usage": {"input_tokens": 7, "input_tokens_details": {"cached_tokens": 0}, '
            b'"output_tokens": 1, "output_tokens_details": {"reasoning_tokens": 0}, '
            b'"total_tokens": 8}}}\n\n'
        )

    def test_a_cut_turn_ends_incomplete_and_without_usage_reports_none(self) -> None:
        with ModelServer([Turn.say("s", usage=None), Turn.say("s", usage=None, cut=True)]) as model:
            post(model, "/v1/responses", {"stream": True})
            _, _, data = post(model, "/v1/responses", {"stream": True})
        assert data.endswith(
            b"event: response.incomplete\n"
            b'data: {"type": "response.incomplete", "response": {"id": "resp_ctxspec_2", '
            b'"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}}}\n\n'
        )


class TestRecord:
    """Every request is recorded, in order, without its credentials."""

    def test_requests_in_order_with_headers_but_no_key(self) -> None:
        with ModelServer([Turn.say("1"), Turn.say("2")]) as model:
            post(
                model,
                "/v1/chat/completions",
                {"n": 1},
                {"authorization": "Bearer k", "x-agent": "a"},
            )
            post(model, "/v1/messages", {"n": 2}, {"x-api-key": "k"})
        first, second = model.requests
        assert (first.number, first.method, first.path, first.dialect, first.body) == (
            1,
            "POST",
            "/v1/chat/completions",
            CHAT,
            {"n": 1},
        )
        assert (second.number, second.dialect, second.body) == (2, MESSAGES, {"n": 2})
        assert first.headers["x-agent"] == "a"
        assert not SECRET_HEADERS & {*first.headers, *second.headers}
        assert model.bodies == [{"n": 1}, {"n": 2}]

    def test_a_chunked_body_is_read_whole(self) -> None:
        with ModelServer([Turn.say("x")]) as model:
            connection = http.client.HTTPConnection("127.0.0.1", model.port, timeout=5)
            parts = iter([b'{"messages": ', b'["a", "b"]}'])
            connection.request("POST", "/v1/chat/completions", parts, encode_chunked=True)
            assert connection.getresponse().status == 200
            connection.close()
        assert model.bodies == [{"messages": ["a", "b"]}]

    def test_a_script_function_sees_each_request(self) -> None:
        def script(request: Request) -> Turn:
            return Turn.say(f"{request.number}: {request.body['q']}")

        with ModelServer(script) as model:
            _, _, data = post(model, "/v1/messages", {"q": "a"})
        assert json.loads(data)["content"][0]["text"] == "1: a"

    def test_only_the_loopback_is_bound(self) -> None:
        with ModelServer([]) as model:
            assert model.url == f"http://127.0.0.1:{model.port}"
            assert model.base_url == model.url + "/v1"
            assert model._server is not None
            assert model._server.server_address == ("127.0.0.1", model.port)
            assert model.port != 0
            other = _own_address()
            if other is None:
                pytest.skip("this host has no address but the loopback's")
            with pytest.raises(OSError):
                socket.create_connection((other, model.port), timeout=2).close()


def _own_address() -> str | None:
    """An address of this host that is not the loopback's (a UDP connect sends nothing)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: only the route is looked up
        except OSError:
            return None
        address = str(probe.getsockname()[0])
    return None if address.startswith("127.") else address


class TestUnscripted:
    """A request the script does not answer fails at once on the wire and in the harness."""

    def test_a_request_past_the_last_turn(self) -> None:
        with pytest.raises(UnscriptedRequest) as raised, ModelServer([Turn.say("only")]) as model:
            post(model, "/v1/messages", {"stream": True})
            status, _, data = post(
                model, "/v1/messages?beta=true", {"messages": [{"content": "again"}]}
            )
            assert status == 400
            answer = json.loads(data)
            assert answer["type"] == "error" and "1 turn(s) are spent" in answer["error"]["message"]
        message = str(raised.value)
        assert "POST /v1/messages?beta=true (request 2)" in message
        assert '"again"' in message
        assert raised.value.request.body == {"messages": [{"content": "again"}]}

    def test_a_path_no_dialect_serves(self) -> None:
        with (
            pytest.raises(UnscriptedRequest, match=r"GET /v1/models \(request 1\)"),
            ModelServer([]) as model,
        ):
            connection = http.client.HTTPConnection("127.0.0.1", model.port, timeout=5)
            connection.request("GET", "/v1/models")
            assert connection.getresponse().status == 404
            connection.close()
        assert [request.path for request in model.requests] == ["/v1/models"]

    def test_a_dialect_left_out_is_not_served(self) -> None:
        with (
            pytest.raises(UnscriptedRequest, match="served: POST /v1/responses"),
            ModelServer([Turn.say("x")], dialects=(RESPONSES,)) as model,
        ):
            status, _, data = post(model, "/v1/chat/completions", {})
            assert status == 404
            assert "no dialect serves this path" in json.loads(data)["error"]["message"]

    @pytest.mark.parametrize("dialects", ["responses", ("responses", "completions")])
    def test_an_unknown_dialect_is_refused_up_front(self, dialects: Any) -> None:
        with pytest.raises(ValueError, match="dialects must be a collection of"):
            ModelServer([], dialects=dialects)

    def test_a_script_function_that_declines(self) -> None:
        with (
            pytest.raises(UnscriptedRequest, match="answers nothing for this request"),
            ModelServer(lambda request: None) as model,
        ):
            assert post(model, "/v1/responses", {})[0] == 400

    def test_a_compressed_body(self) -> None:
        with pytest.raises(ScriptFailed, match="compressed as gzip"), ModelServer([]) as model:
            assert post(model, "/v1/responses", {}, {"content-encoding": "gzip"})[0] == 415

    def test_a_script_that_raises(self) -> None:
        def script(request: Request) -> Turn:
            raise KeyError("q")

        with pytest.raises(ScriptFailed, match="raised KeyError"), ModelServer(script) as model:
            assert post(model, "/v1/responses", {})[0] == 500

    def test_the_model_s_failure_wins_over_the_harness_s_own(self) -> None:
        """A harness that fails because the agent failed still names the request."""
        with pytest.raises(UnscriptedRequest) as raised, ModelServer([]) as model:
            post(model, "/v1/messages", {})
            raise RuntimeError("the agent exited with status 1")
        assert isinstance(raised.value.__cause__, RuntimeError)

    def test_a_long_body_is_shown_by_its_head_and_tail(self) -> None:
        body = {"messages": ["x" * 5000, "the last message"]}
        with pytest.raises(UnscriptedRequest) as raised, ModelServer([]) as model:
            post(model, "/v1/chat/completions", body)
        message = str(raised.value)
        assert "the last message" in message and len(message) < 400


def test_it_imports_with_the_standard_library_alone(tmp_path: Path) -> None:
    """A PyPI port's adapter runs the kit in the port's venv (`pyrun.py`), without ctxspec."""
    adapter = tmp_path / "adapter.py"
    adapter.write_text("import ctxspec.conformance.harnesses.kit.model\nprint('ok')\n")
    ran = subprocess.run(
        [sys.executable, "-I", "-S", str(PYRUN), str(adapter)],
        capture_output=True,
        check=False,
        text=True,
        timeout=30,
    )
    assert (ran.returncode, ran.stdout, ran.stderr) == (0, "ok\n", "")
