"""What a Pi 0.85.0 summariser is sent, and which of its replies are refused.

`serialize_conversation` writes the messages summarised as the transcript the model
reads; `get_summarization_failure` says why a reply cannot be kept (CP-8). Apart from
`ctxspec.reference.compaction` because compaction summaries and branch summaries
(`ctxspec.reference.branch`) share both. `ctxspec.reference.compaction` re-exports these names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from ctxspec.reference._jsjson import js_own_keys, js_stringify
from ctxspec.reference._utf16 import code_units, js_slice
from ctxspec.reference.errors import InvalidInput
from ctxspec.reference.session import js_truthy

__all__ = ["TOOL_RESULT_MAX_CHARS", "get_summarization_failure", "serialize_conversation"]

TOOL_RESULT_MAX_CHARS: Final = 2000


def serialize_conversation(messages: Sequence[Mapping[str, Any]]) -> str:
    """The transcript a summariser reads: `[User]: `, `[Assistant]: `, ... joined by blank lines."""
    parts = []
    for message in messages:
        role = message.get("role")
        content = message.get("content")
        if role == "user":
            text = _content_text(content, "")
            if text:
                parts.append(f"[User]: {text}")
        elif role == "assistant":
            blocks = _blocks(content)
            thinking = [_str(b.get("thinking")) for b in blocks if b.get("type") == "thinking"]
            calls = [
                f"{_str(b.get('name'))}({_call_arguments(b.get('arguments'))})"
                for b in blocks
                if b.get("type") == "toolCall"
            ]
            if thinking:
                parts.append("[Assistant thinking]: " + "\n".join(thinking))
            if any(b.get("type") == "text" for b in blocks):
                parts.append("[Assistant]: " + _content_text(blocks, "\n"))
            if calls:
                parts.append("[Assistant tool calls]: " + "; ".join(calls))
        elif role == "toolResult":
            text = _content_text(content, "")
            if text:
                parts.append(f"[Tool result]: {_truncate_for_summary(text)}")
    return "\n\n".join(parts)


def get_summarization_failure(response: Mapping[str, Any], label: str) -> str | None:
    """Why a summary reply cannot be kept (CP-8), or None.

    >>> get_summarization_failure({"stopReason": "length"}, "Branch summarization")
    'Branch summarization failed: generation hit the token cap and the summary is incomplete'
    """
    stop = response.get("stopReason")
    if stop == "error":
        reason = response.get("errorMessage")
        return f"{label} failed: {reason if js_truthy(reason) else 'Unknown error'}"
    # CP-8: a reply cut at the token cap is never kept as a summary
    if stop == "length":
        return f"{label} failed: generation hit the token cap and the summary is incomplete"
    return None


def _truncate_for_summary(text: str) -> str:
    length = code_units(text)
    if length <= TOOL_RESULT_MAX_CHARS:
        return text
    more = length - TOOL_RESULT_MAX_CHARS
    return f"{js_slice(text, 0, TOOL_RESULT_MAX_CHARS)}\n\n[... {more} more characters truncated]"


def _call_arguments(arguments: Any) -> str:
    if not isinstance(arguments, Mapping):
        raise InvalidInput("arguments", "tool call arguments must be an object")
    return ", ".join(f"{key}={js_stringify(value)}" for key, value in _js_entries(arguments))


def _js_entries(obj: Mapping[str, Any]) -> list[tuple[str, Any]]:
    # CP-9: `Object.entries` order (a Unicode digit such as "١" or "²" is no array index)
    return [(k, obj[k]) for k in js_own_keys(obj)]


def _content_text(content: Any, separator: str) -> str:
    if isinstance(content, str):
        return content
    return separator.join(_str(b.get("text")) for b in _blocks(content) if b.get("type") == "text")


def _blocks(content: Any) -> list[Mapping[str, Any]]:
    if not isinstance(content, list) or not all(isinstance(b, Mapping) for b in content):
        raise InvalidInput("content", "must be a list of content blocks")
    return content


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise InvalidInput("text", "must be a string")
    return value
