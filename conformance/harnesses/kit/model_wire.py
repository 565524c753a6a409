"""A scripted turn on the wire, in each dialect the loopback model speaks (`model.py`).

Written from each API's documented wire format, with what each client reads:

- **Anthropic Messages** (`POST /v1/messages`; Claude Code). Streaming (`stream: true`):
  server-sent events, each `event: <type>` + `data: <JSON>`: `message_start` (the
  message with no content yet, `usage` already on it), per content block
  `content_block_start` / `content_block_delta` (`text_delta`, or `input_json_delta`
  with a tool call's arguments) / `content_block_stop`, then `message_delta` (the
  `stop_reason`: `end_turn`, `tool_use`, `max_tokens`; the usage again, cumulative as
  the API documents) and `message_stop`. Otherwise one JSON message. Usage:
  `input_tokens` (not from the cache), `cache_read_input_tokens`,
  `cache_creation_input_tokens` (0), `output_tokens`.
- **OpenAI Chat Completions** (`POST /v1/chat/completions`; opencode, Copilot CLI, Qwen
  Code). Streaming: `data: <chunk>` lines, `chat.completion.chunk` objects whose one
  choice carries a `delta` (the role and text, or `tool_calls` by index with the id,
  name and arguments), a last choice chunk with `finish_reason` (`stop`, `tool_calls`,
  `length`), then, only when the request asked for it (`stream_options.include_usage`),
  a chunk with no choices and the `usage` (the chunks before it carry `usage: null`),
  and `data: [DONE]`. Otherwise one `chat.completion`. Usage: `prompt_tokens` (the
  cached ones included, also in `prompt_tokens_details.cached_tokens`),
  `completion_tokens`, `total_tokens`.
- **Responses** (`POST /v1/responses`; Codex). Streaming: `response.created`, one
  `response.output_item.done` per item (a `message` with `output_text`, or a
  `function_call`), then `response.completed` with the usage, or `response.incomplete`
  (`incomplete_details.reason: max_output_tokens`) for a cut turn; the bytes are those
  Codex 0.171.0 was first run against (json.dumps' default separators). Otherwise one
  `response` object.

A turn without usage sends none: no `usage` key (Messages, Responses, a whole Chat
Completion), no usage chunk (streamed Chat Completions).

Standard library only (`model_script.py` says why).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final

from ctxspec.conformance.harnesses.kit.model_script import Part, Stop, Text, ToolCall, Turn, Usage

__all__ = [
    "CHAT",
    "DIALECTS",
    "MESSAGES",
    "RESPONSES",
    "Wire",
    "answer",
    "error",
]

MESSAGES: Final = "messages"
CHAT: Final = "chat"
RESPONSES: Final = "responses"
DIALECTS: Final = {  # the path each dialect is asked on, the query string aside
    "/v1/messages": MESSAGES,
    "/v1/chat/completions": CHAT,
    "/v1/responses": RESPONSES,
}
STOP_REASONS: Final[dict[str, dict[Stop, str]]] = {
    MESSAGES: {"end": "end_turn", "tool": "tool_use", "cut": "max_tokens"},
    CHAT: {"end": "stop", "tool": "tool_calls", "cut": "length"},
}
SSE: Final = "text/event-stream"
JSON: Final = "application/json"


@dataclass(frozen=True, slots=True)
class Wire:
    """An answer's status, content type and bytes."""

    status: int
    content_type: str
    body: bytes


def answer(dialect: str, turn: Turn, request: Any, number: int) -> Wire:
    """`turn` as the `number`-th model answer to `request` (its JSON body) in `dialect`."""
    body = request if isinstance(request, dict) else {}
    stream = body.get("stream") is True
    model = str(body.get("model") or "ctxspec")
    if dialect == MESSAGES:
        return _messages(turn, model, number, stream)
    if dialect == CHAT:
        options = body.get("stream_options")
        usage = isinstance(options, dict) and options.get("include_usage") is True
        return _chat(turn, model, number, stream, usage)
    return _responses(turn, number, stream)


def error(dialect: str | None, status: int, kind: str, message: str) -> Wire:
    """An error answer in the shape the dialect's clients read its message from."""
    if dialect == MESSAGES:
        shaped: dict[str, Any] = {"type": "error", "error": {"type": kind, "message": message}}
    else:
        shaped = {"error": {"message": message, "type": kind, "param": None, "code": None}}
    return Wire(status, JSON, json.dumps(shaped).encode())


def _event(name: str, data: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()


def _data(data: dict[str, Any] | str) -> bytes:
    text = data if isinstance(data, str) else json.dumps(data)
    return f"data: {text}\n\n".encode()


# Anthropic Messages


def _anthropic_usage(usage: Usage) -> dict[str, int]:
    return {
        "input_tokens": usage.input_tokens - usage.cached_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": usage.cached_tokens,
        "output_tokens": usage.output_tokens,
    }


def _block(part: Part) -> dict[str, Any]:
    if isinstance(part, Text):
        return {"type": "text", "text": part.text}
    return {"type": "tool_use", "id": part.call_id, "name": part.name, "input": part.arguments}


def _block_events(index: int, part: Part) -> Iterable[bytes]:
    if isinstance(part, Text):
        start: dict[str, Any] = {"type": "text", "text": ""}
        delta: dict[str, Any] = {"type": "text_delta", "text": part.text}
    else:
        start = {"type": "tool_use", "id": part.call_id, "name": part.name, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": part.arguments_json}
    yield _event(
        "content_block_start",
        {"type": "content_block_start", "index": index, "content_block": start},
    )
    yield _event(
        "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
    )
    yield _event("content_block_stop", {"type": "content_block_stop", "index": index})


def _messages(turn: Turn, model: str, number: int, stream: bool) -> Wire:
    usage = None if turn.usage is None else _anthropic_usage(turn.usage)

    def with_usage(fields: dict[str, Any]) -> dict[str, Any]:
        return fields if usage is None else {**fields, "usage": usage}

    stop = STOP_REASONS[MESSAGES][turn.stop]
    message = {
        "id": f"msg_ctxspec_{number}",
        "type": "message",
        "role": "assistant",
        "model": model,
    }
    if not stream:
        content = [_block(part) for part in turn.parts]
        whole = {**message, "content": content, "stop_reason": stop, "stop_sequence": None}
        return Wire(200, JSON, json.dumps(with_usage(whole)).encode())
    opened: dict[str, Any] = {**message, "content": [], "stop_reason": None, "stop_sequence": None}
    events = [
        _event("message_start", {"type": "message_start", "message": with_usage(opened)}),
        *(event for index, part in enumerate(turn.parts) for event in _block_events(index, part)),
        _event(
            "message_delta",
            with_usage(
                {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}}
            ),
        ),
        _event("message_stop", {"type": "message_stop"}),
    ]
    return Wire(200, SSE, b"".join(events))


# OpenAI Chat Completions


def _chat_usage(usage: Usage) -> dict[str, Any]:
    return {
        "prompt_tokens": usage.input_tokens,
        "completion_tokens": usage.output_tokens,
        "total_tokens": usage.input_tokens + usage.output_tokens,
        "prompt_tokens_details": {"cached_tokens": usage.cached_tokens},
    }


def _tool_call(index: int, call: ToolCall) -> dict[str, Any]:
    function = {"name": call.name, "arguments": call.arguments_json}
    return {"index": index, "id": call.call_id, "type": "function", "function": function}


def _chat(turn: Turn, model: str, number: int, stream: bool, include_usage: bool) -> Wire:
    texts = [part.text for part in turn.parts if isinstance(part, Text)]
    calls = [
        _tool_call(i, c) for i, c in enumerate(p for p in turn.parts if isinstance(p, ToolCall))
    ]
    finish = STOP_REASONS[CHAT][turn.stop]
    head = {"id": f"chatcmpl-ctxspec-{number}", "created": int(time.time()), "model": model}
    if not stream:
        message: dict[str, Any] = {
            "role": "assistant",
            "content": "".join(texts) if texts else None,
        }
        if calls:
            message["tool_calls"] = [
                {k: v for k, v in call.items() if k != "index"} for call in calls
            ]
        choice = {"index": 0, "message": message, "finish_reason": finish}
        whole: dict[str, Any] = {**head, "object": "chat.completion", "choices": [choice]}
        if turn.usage is not None:
            whole["usage"] = _chat_usage(turn.usage)
        return Wire(200, JSON, json.dumps(whole).encode())
    nulled = {"usage": None} if include_usage else {}

    def chunk(delta: dict[str, Any], reason: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": reason}
        return _data({**head, "object": "chat.completion.chunk", "choices": [choice], **nulled})

    deltas: list[dict[str, Any]] = [{"content": text} for text in texts]
    deltas += [{"tool_calls": [call]} for call in calls]
    deltas = deltas or [{"content": ""}]
    deltas[0] = {"role": "assistant", **deltas[0]}
    chunks = [*(chunk(delta) for delta in deltas), chunk({}, finish)]
    if include_usage and turn.usage is not None:
        last = {
            **head,
            "object": "chat.completion.chunk",
            "choices": [],
            "usage": _chat_usage(turn.usage),
        }
        chunks.append(_data(last))
    chunks.append(_data("[DONE]"))
    return Wire(200, SSE, b"".join(chunks))


# Responses


def _responses_usage(usage: Usage) -> dict[str, Any]:
    return {
        "input_tokens": usage.input_tokens,
        "input_tokens_details": {"cached_tokens": usage.cached_tokens},
        "output_tokens": usage.output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": usage.input_tokens + usage.output_tokens,
    }


def _item(part: Part) -> dict[str, Any]:
    if isinstance(part, Text):
        content = [{"type": "output_text", "text": part.text, "annotations": []}]
        item_id = part.id or "msg_ctxspec"
        return {"type": "message", "role": "assistant", "id": item_id, "content": content}
    return {
        "type": "function_call",
        "id": f"fc_{part.call_id}",
        "call_id": part.call_id,
        "name": part.name,
        "arguments": part.arguments_json,
    }


def _responses(turn: Turn, number: int, stream: bool) -> Wire:
    items = [_item(part) for part in turn.parts]
    ended: dict[str, Any] = {"id": f"resp_ctxspec_{number}"}
    if turn.usage is not None:
        ended["usage"] = _responses_usage(turn.usage)
    if turn.cut:  # the Responses API's end of an answer stopped at max_output_tokens
        ended |= {"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}}
    if not stream:
        whole = {"object": "response", "status": "completed", **ended, "output": items}
        return Wire(200, JSON, json.dumps(whole).encode())
    last = "response.incomplete" if turn.cut else "response.completed"
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {"id": ended["id"]}},
        *({"type": "response.output_item.done", "item": item} for item in items),
        {"type": last, "response": ended},
    ]
    return Wire(200, SSE, b"".join(_event(event["type"], event) for event in events))
