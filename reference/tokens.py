"""Token counts as Pi 0.85.0 reckons them: provider usage first, a chars/4 estimate after.

Decides how big a context is when compaction asks: `estimate_tokens` (one message,
`ceil(code units / 4)`), `calculate_context_tokens` (a provider's usage record),
`assistant_usage` (whether a message's usage is valid), `get_last_assistant_usage` (the
newest valid usage among session entries), `estimate_context_tokens` (the last valid
usage plus estimates of every later message).

Messages are Pi's JSON message objects (`role`, `content`, ...); lengths are UTF-16
code units. A message missing a field the estimate reads raises `InvalidInput` (Pi
throws a TypeError there).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ctxspec.reference._jsjson import js_stringify, js_truthy
from ctxspec.reference._jsnum import js_add
from ctxspec.reference._utf16 import code_units
from ctxspec.reference.errors import InvalidInput
from ctxspec.reference.messages import role_of

__all__ = [
    "ESTIMATED_IMAGE_CHARS",
    "INVALID_USAGE_STOP_REASONS",
    "ZERO_USAGE",
    "ContextUsageEstimate",
    "assistant_usage",
    "calculate_context_tokens",
    "estimate_context_tokens",
    "estimate_tokens",
    "get_last_assistant_usage",
]

ESTIMATED_IMAGE_CHARS: Final = 4800
# CP-1: usage of an assistant message that stopped this way is never trusted
INVALID_USAGE_STOP_REASONS: Final = frozenset({"aborted", "error"})
# roles whose estimate counts their content blocks (text and images)
_CONTENT_ROLES: Final = frozenset({"user", "custom", "toolResult"})
_SUMMARY_ROLES: Final = frozenset({"branchSummary", "compactionSummary"})

Message = Mapping[str, Any]

# the usage of a reply that reports none (every count and cost 0)
ZERO_USAGE: Final = {
    "input": 0,
    "output": 0,
    "cacheRead": 0,
    "cacheWrite": 0,
    "totalTokens": 0,
    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
}


@dataclass(frozen=True, slots=True, kw_only=True)
class ContextUsageEstimate:
    """What `estimateContextTokens` returns."""

    tokens: float
    usage_tokens: float
    trailing_tokens: int
    last_usage_index: int | None

    def to_pi(self) -> dict[str, Any]:
        return {
            "tokens": self.tokens,
            "usageTokens": self.usage_tokens,
            "trailingTokens": self.trailing_tokens,
            "lastUsageIndex": self.last_usage_index,
        }


def calculate_context_tokens(usage: Mapping[str, Any]) -> float:
    """`totalTokens` when truthy, else `input + output + cacheRead + cacheWrite`.

    >>> parts = {"input": 3, "output": 4, "cacheRead": 0, "cacheWrite": 1}
    >>> calculate_context_tokens({"totalTokens": 0, **parts})
    8
    """
    total = usage.get("totalTokens")
    if js_truthy(total):
        return _number("usage.totalTokens", total)
    # CP-1: added as JavaScript adds numbers, in doubles (past 2**53 a sum rounds)
    parts = ("input", "output", "cacheRead", "cacheWrite")
    return js_add(*(_number(f"usage.{k}", usage.get(k)) for k in parts))


def assistant_usage(message: Message) -> Mapping[str, Any] | None:
    """The message's usage if it counts (CP-1), else None.

    It counts for an assistant message with a `usage`, a stop reason other than
    aborted/error, and a context size above zero.
    """
    if message.get("role") != "assistant" or "usage" not in message:
        return None
    usage = message["usage"]
    # CP-1: aborted and errored replies, and zero usage, are not measurements of the context
    if message.get("stopReason") in INVALID_USAGE_STOP_REASONS or usage in (None, False, 0, ""):
        return None
    if not isinstance(usage, Mapping):
        raise InvalidInput("usage", "must be an object")
    return usage if calculate_context_tokens(usage) > 0 else None


def get_last_assistant_usage(entries: Sequence[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """The usage of the newest `message` entry whose message's usage counts (CP-1), or None.

    Entries of other types are passed over; a message entry without a message object
    raises `InvalidInput` (Pi throws a TypeError reading its role).
    """
    for position in range(len(entries) - 1, -1, -1):
        entry = entries[position]
        if not isinstance(entry, Mapping):
            raise InvalidInput(f"entries[{position}]", "an entry must be an object")
        if entry.get("type") != "message":
            continue
        message = entry.get("message")
        if not isinstance(message, Mapping):
            raise InvalidInput(f"entries[{position}].message", "must be an object")
        usage = assistant_usage(message)
        if usage is not None:
            return usage
    return None


def estimate_tokens(message: Message) -> int:
    """Pi's `estimateTokens`: `ceil(chars / 4)`, chars in UTF-16 code units (CP-2).

    Text and thinking count their length, an image 4800, a tool call its name plus the
    `JSON.stringify` of its arguments; roles without a rule count 0.

    >>> estimate_tokens({"role": "user", "content": "\\U0001f642\\U0001f642\\U0001f642"})
    2
    >>> blocks = [{"type": "text", "text": "abcd"}, {"type": "image"}]
    >>> estimate_tokens({"role": "user", "content": blocks})
    1201
    """
    role = role_of(message)
    # CP-2: every rule below counts code units and rounds the quarter up
    if role in _CONTENT_ROLES:
        chars = _content_chars(message.get("content"))
    elif role == "assistant":
        chars = sum(_assistant_block_chars(b) for b in _blocks(message.get("content")))
    elif role == "bashExecution":
        chars = _length("command", message.get("command")) + _length(
            "output", message.get("output")
        )
    elif role in _SUMMARY_ROLES:
        chars = _length("summary", message.get("summary"))
    else:
        return 0
    return math.ceil(chars / 4)


def estimate_context_tokens(messages: Sequence[Message]) -> ContextUsageEstimate:
    """The last valid usage (CP-1) plus the estimates of all messages after it.

    With no valid usage every message is estimated and `lastUsageIndex` is None.
    """
    last = None
    for index in range(len(messages) - 1, -1, -1):
        usage = assistant_usage(messages[index])
        if usage is not None:
            last = (index, usage)
            break
    if last is None:
        estimated = sum(estimate_tokens(m) for m in messages)
        return ContextUsageEstimate(
            tokens=estimated, usage_tokens=0, trailing_tokens=estimated, last_usage_index=None
        )
    index, usage = last
    usage_tokens = calculate_context_tokens(usage)
    trailing = sum(estimate_tokens(m) for m in messages[index + 1 :])
    return ContextUsageEstimate(
        tokens=js_add(usage_tokens, trailing),
        usage_tokens=usage_tokens,
        trailing_tokens=trailing,
        last_usage_index=index,
    )


def _content_chars(content: Any) -> int:
    if isinstance(content, str):
        return code_units(content)
    chars = 0
    for block in _blocks(content):
        kind = block.get("type")
        if kind == "text" and block.get("text"):
            chars += _length("text", block["text"])
        elif kind == "image":
            chars += ESTIMATED_IMAGE_CHARS
    return chars


def _assistant_block_chars(block: Mapping[str, Any]) -> int:
    kind = block.get("type")
    if kind == "text":
        return _length("text", block.get("text"))
    if kind == "thinking":
        return _length("thinking", block.get("thinking"))
    if kind == "toolCall":
        if "arguments" not in block:
            raise InvalidInput("arguments", "a tool call without arguments has no estimate")
        return _length("name", block.get("name")) + _json_length(block["arguments"])
    return 0


# what JSON.stringify writes as more than the character itself: quote, backslash, control
# characters and lone surrogates (the only surrogates a canonical str holds)
_ESCAPED: Final = re.compile(r'["\\\x00-\x1f\ud800-\udfff]')  # what JSON.stringify escapes


def _json_length(value: Any) -> int:
    """`JSON.stringify(value).length`, without writing the text for plain strings and objects.

    The length does not depend on the order of an object's keys, so objects of strings
    are summed as they are; anything else is measured on `js_stringify`'s text.
    """
    kind = type(value)
    if kind is str:
        if _ESCAPED.search(value) is None:
            return code_units(value) + 2
    elif kind is dict:
        total = 1 + 2 * len(value) if value else 2  # braces, a colon each, commas between
        for key, item in value.items():
            if type(key) is not str:
                break
            total += _json_length(key) + _json_length(item)
        else:
            return total
    return code_units(js_stringify(value))


def _blocks(content: Any) -> list[Mapping[str, Any]]:
    """The content blocks Pi counts: it loops over `content` and reads each item's `type`.

    A string is looped over by character, and a character, like any item that is not an
    object (`42`, `[1]`), has no `type`: it counts nothing. A null item, or content that
    cannot be looped over (a number, an object), makes Pi throw a TypeError.
    """
    if type(content) is list and all(type(b) is dict for b in content):
        return content  # the usual blocks: no ABC check
    if isinstance(content, str):
        return []
    if not isinstance(content, list) or any(b is None for b in content):
        raise InvalidInput("content", "must be a list of content blocks here")
    return [b for b in content if isinstance(b, Mapping)]


def _length(field: str, value: Any) -> int:
    if not isinstance(value, str):
        raise InvalidInput(field, "must be a string")
    return code_units(value)


def _number(field: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInput(field, "must be a number")
    return value
