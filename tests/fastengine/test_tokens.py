"""fastengine/_tokens.c against the reference: Pi's token estimate of a message, and
CP-4's walk back to the budget, on plain and on odd parsed JSON (str subclasses,
escapes, lone surrogates, numbers and nesting in tool-call arguments, missing fields)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from session_entries import same, sessions

from ctxspec.fastengine import tokens as fast_tokens
from ctxspec.fastengine._native import native
from ctxspec.fastengine.walks import C_BUDGET_REACHED_AT, FAST
from ctxspec.reference.errors import InvalidInput
from ctxspec.reference.tokens import estimate_context_tokens, estimate_tokens
from ctxspec.reference.walks import PLAIN

C_MESSAGE_TOKENS = native("_tokens", "message_tokens")
_ZERO = {"totalTokens": 0, "input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}
_ZERO_REPLY = {"role": "assistant", "content": [], "usage": _ZERO}  # no measurement (CP-1)
_CALL = {"p🙂": {"q": "🙂"}, "r": ""}  # astral, nested, empty


class Text(str):
    """A str subclass, which the C pass leaves to the reference."""


_texts = st.text('ab"\\\n\U0001f642\ud800é', max_size=8)
_odd: st.SearchStrategy[Any] = st.sampled_from(
    [None, 0, 1.5, True, False, [], {}, "", Text("text")]
)
_kinds = st.sampled_from(["text", "thinking", "image", "toolCall", "other", Text("text")]) | _odd
_arguments = st.recursive(
    _texts | st.integers(-5, 5) | st.sampled_from([None, True, 1.5]),
    lambda inner: (
        st.dictionaries(_texts | st.just(Text("k")), inner, max_size=3)
        | st.lists(inner, max_size=2)
    ),
    max_leaves=6,
)


@st.composite
def _blocks(draw: st.DrawFn) -> Any:
    block: dict[str, Any] = {}
    for key, values in (
        ("type", _kinds),
        ("text", _texts | _odd),
        ("thinking", _texts | _odd),
        ("name", _texts | _odd),
        ("arguments", _arguments),
    ):
        if draw(st.integers(0, 3)):
            block[key] = draw(values)
    return draw(st.just(block) | _odd | _texts)


@st.composite
def _messages(draw: st.DrawFn) -> Any:
    roles = ["user", "assistant", "toolResult", "custom", "bashExecution", "branchSummary"]
    roles += ["compactionSummary", "other", Text("user")]
    message: dict[str, Any] = {}
    if draw(st.integers(0, 5)):
        message["role"] = draw(st.sampled_from(roles) | _odd)
    for key, values in (
        ("content", _texts | st.lists(_blocks(), max_size=3) | _odd),
        ("command", _texts | _odd),
        ("output", _texts | _odd),
        ("summary", _texts | _odd),
    ):
        if draw(st.integers(0, 3)):
            message[key] = draw(values)
    return message


@pytest.mark.skipif(C_MESSAGE_TOKENS is None, reason="the C pass is not built")
@given(_messages())
@example({"role": "assistant", "content": [{"type": "toolCall", "name": "n", "arguments": {}}]})
@example({"role": "assistant", "content": [{"type": "toolCall", "name": "n", "arguments": _CALL}]})
@example(
    {"role": "user", "content": [{"type": "image"}, {"type": "text", "text": "\U0001f642" * 3}]}
)
def test_message_tokens_in_c_is_estimate_tokens(message: Any) -> None:
    """The reference's estimate wherever the C pass answers; it declines every message the
    reference refuses (a list or object role: a TypeError in the reference today)."""
    found = C_MESSAGE_TOKENS(message)
    try:
        expected = estimate_tokens(message)
    except (InvalidInput, TypeError):
        assert found is None
        return
    assert found is None or found == expected


@st.composite
def _token_sessions(draw: st.DrawFn) -> list[Any]:
    entries: list[Any] = draw(sessions())
    for entry in entries:  # odd messages too, as message entries
        if entry.get("type") == "message" and draw(st.booleans()):
            entry["message"] = draw(_messages())
    odd_entry: bool = draw(st.booleans())
    if entries and odd_entry:
        entries[draw(st.integers(0, len(entries) - 1))] = draw(_odd)
    return entries


@pytest.mark.skipif(C_BUDGET_REACHED_AT is None, reason="the C pass is not built")
@given(
    _token_sessions(),
    st.integers(-2, 3),
    st.integers(-1, 30),
    st.integers(-1, 40) | st.floats(allow_nan=True) | st.just(2**60) | st.just(True),
    st.booleans(),
)
def test_budget_reached_at_in_c_is_the_reference(
    entries: list[Any], start: int, end: int, keep: Any, as_tuple: bool
) -> None:
    """The same index (or None), or the same refusal, on any range of any entries."""
    values = tuple(entries) if as_tuple else entries

    def plain() -> Any:
        try:
            return PLAIN.budget_reached_at(values, start, end, keep)
        except (IndexError, AttributeError, TypeError) as error:
            return type(error)

    def fast() -> Any:
        try:
            return FAST.budget_reached_at(values, start, end, keep)
        except (IndexError, AttributeError, TypeError) as error:
            return type(error)

    same(fast, plain)


@st.composite
def _usages(draw: st.DrawFn) -> Any:
    counts = st.integers(-3, 9) | st.sampled_from([0, 2**70, 1.5, float("nan"), True]) | _odd
    usage = {
        key: draw(counts)
        for key in ("totalTokens", "input", "output", "cacheRead", "cacheWrite")
        if draw(st.integers(0, 4))
    }
    return draw(st.just(usage) | _odd)


@st.composite
def _context_messages(draw: st.DrawFn) -> list[Any]:
    messages = []
    for _ in range(draw(st.integers(0, 6))):
        message = draw(_messages())
        if draw(st.booleans()):
            message["role"] = "assistant"
            if draw(st.integers(0, 3)):
                message["usage"] = draw(_usages())
            if draw(st.booleans()):
                message["stopReason"] = draw(st.sampled_from(["stop", "aborted", "error"]) | _odd)
        messages.append(message)
    if messages and draw(st.integers(0, 5)) == 0:
        messages[draw(st.integers(0, len(messages) - 1))] = draw(_odd)
    return messages


@pytest.mark.skipif(fast_tokens.C_CONTEXT_TOKENS is None, reason="the C pass is not built")
@given(_context_messages(), st.booleans())
@example([{"role": "assistant", "content": [], "usage": {"totalTokens": 5}}, _ZERO_REPLY], True)
@example(
    [
        {
            "role": "assistant",
            "content": [],
            "usage": {"totalTokens": 0, "input": 2, "output": 1, "cacheRead": 0, "cacheWrite": 0},
        },
        {"role": "user", "content": "abcde"},
    ],
    False,
)
def test_estimate_context_tokens_in_c_is_the_reference(messages: list[Any], as_tuple: bool) -> None:
    """The same estimate, or the same refusal, for any messages; the C pass answers the
    plain ones itself."""
    values = tuple(messages) if as_tuple else messages

    def outcome(estimate: Any) -> Any:
        try:
            return estimate(values)
        except (InvalidInput, TypeError, AttributeError) as error:
            return type(error)

    assert outcome(fast_tokens.estimate_context_tokens) == outcome(estimate_context_tokens)
