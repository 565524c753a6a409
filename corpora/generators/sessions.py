"""Pi session entries from a short script: long sessions for golden cases, deterministic.

`session(script)` turns a list of items (plain data, as a case file writes them under
`$session`) into Pi 0.85.0 session entries (`{type, id, parentId, timestamp, ...}`),
each the child of the one before unless the item says otherwise. Nothing is random: the
same script always gives the same entries, so a case can hold a 30,000-token session in
ten lines and its expected values still come from running the real Pi on exactly these
entries. `filler(label, chars)` is the text of a `tokens: N` item: numbered lines,
exactly `4 * N` UTF-16 code units, so Pi's estimate (`ceil(chars / 4)`, rule CP-2) of a
user message or a tool result is exactly N.

Items (one key names the kind and gives the id; the others are optional):

- `{user: ID, tokens: N | text: S}`: a user message with string content;
- `{assistant: ID, tokens | text, thinking: N, calls: [CALL], stopReason, usage: N}`: an
  assistant message: a thinking block (N tokens of filler), a text block, one tool call
  per `CALL`, with ids `ID.1`, `ID.2`, ...;
- `{toolResult: ID, call: CALL_ID, tool: NAME, tokens | text, isError}`: a tool result;
- `{bashExecution: ID, command: S, tokens | text}`: a `!` bash run (the text is its
  output);
- `{message: ID, role: R, tokens | text}`: a message of any role (`fields` gives the rest);
- `{custom_message: ID, customType, tokens | text, display}`: an extension's message;
- `{branch_summary: ID, from: ID, summary | tokens}`: a branch summary;
- `{compaction: ID, firstKept: ID, summary | tokens, tokensBefore: N}`: a compaction;
- `{model_change: ID, provider, modelId}`, `{thinking_level_change: ID, level}`,
  `{label: ID, target: ID, text}`, `{custom: ID, customType, data}` (an extension's
  state, projecting nothing), `{session_info: ID, name}`: the metadata entries;
- `{header: VERSION, id: S, cwd: S}`: a session header (`header: null` leaves `version`
  out);
- `{turns: N, from: K, user: T, assistant: T, calls: [CALL], result: T}`: N turns numbered
  from K (default 1): `u<n>` (T tokens); with `calls`, an assistant `t<n>` calling them
  and one result `r<n>` (`r<n>.<k>` for several) of `result` tokens each; then `a<n>`
  (T tokens).

Every item but `header` and `turns` also takes `parent: ID | null` (default: the id of
the entry before it, `null` for the first) and `fields: {...}`, merged last into the
message (message kinds) or into the entry (the others): optional fields, or a field
left out with `null`-free YAML by giving the full object. A `CALL` is `"NAME ARG"`
(`read`, `write`, `edit` and others take `{path: ARG}`, `bash` takes `{command: ARG}`)
or `{name, arguments}`. Stamps: the n-th entry (0-based, headers included) is stamped
`2026-01-01T00:00:00Z` plus n seconds; its message `1767225600000 + 1000 n` (ms).
Assistant messages are Pi's shape (`api: messages`, `provider: anthropic`, `model: m1`,
`stopReason: stop`, or `toolUse` when they call a tool; `usage: N` sets `input` and
`totalTokens` to N, else all zero).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, Final

__all__ = ["KINDS", "filler", "session"]

_START: Final = datetime(2026, 1, 1, tzinfo=UTC)
_START_MS: Final = 1767225600000
_FILL: Final = "the quick brown fox jumps over the lazy dog and keeps on running "
_LINE: Final = 72  # code units of one filler line, its newline included


def filler(label: str, chars: int) -> str:
    """`chars` code units of numbered lines: `<label> line 1: the quick brown fox ...`,
    each 71 characters and a newline, none ending in a space.

    >>> filler("u1", 30)
    'u1 line 1: the quick brown fox'
    >>> filler("a1 thinking", 12)
    'a1 thinking.'
    >>> len(filler("r7", 4000)), filler("r7", 4000).count("\\n")
    (4000, 55)
    """
    lines: list[str] = []
    size = 0
    number = 1
    while size < chars:
        line = _no_trailing_space((f"{label} line {number}: " + _FILL * 2)[: _LINE - 1]) + "\n"
        lines.append(line)
        size += len(line)
        number += 1
    return _no_trailing_space("".join(lines)[:chars])


def _no_trailing_space(text: str) -> str:
    """`text` with a final space made a `.` (same length): YAML shows such text as a block."""
    return text[:-1] + "." if text.endswith(" ") else text


def _text(item: Mapping[str, Any], label: str, default: str = "") -> str:
    """The item's `text`, else `tokens` tokens of filler, else `default`."""
    if "text" in item:
        text = item["text"]
        if not isinstance(text, str):
            raise ValueError(f"{label}: text must be a string")
        return text
    if "tokens" in item:
        return filler(label, 4 * _count(item, "tokens", label))
    return default


def _count(item: Mapping[str, Any], key: str, label: str) -> int:
    value = item[key]
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"{label}: {key} must be a count (an integer >= 0)")
    return value


def _call(spec: Any, call_id: str) -> dict[str, Any]:
    if isinstance(spec, Mapping):
        return {"type": "toolCall", "id": call_id, **spec}
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"{call_id}: a call is 'NAME ARG' or {{name, arguments}}")
    name, _, arg = spec.partition(" ")
    arguments = {"command": arg} if name == "bash" else {"path": arg}
    return {"type": "toolCall", "id": call_id, "name": name, "arguments": arguments}


def _usage(total: int) -> dict[str, Any]:
    cost = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}
    return {
        "input": total,
        "output": 0,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": total,
        "cost": cost,
    }


def _user(item: Mapping[str, Any], label: str) -> dict[str, Any]:
    return {"role": "user", "content": _text(item, label)}


def _assistant(item: Mapping[str, Any], label: str) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if "thinking" in item:
        thinking = filler(f"{label} thinking", 4 * _count(item, "thinking", label))
        content.append({"type": "thinking", "thinking": thinking})
    text = _text(item, label, default="" if item.get("calls") else "done")
    if text or not item.get("calls"):
        content.append({"type": "text", "text": text})
    calls = item.get("calls") or []
    content += [_call(spec, f"{label}.{n}") for n, spec in enumerate(calls, 1)]
    usage = item.get("usage", 0)
    return {
        "role": "assistant",
        "content": content,
        "api": "messages",
        "provider": "anthropic",
        "model": "m1",
        "stopReason": item.get("stopReason", "toolUse" if calls else "stop"),
        "usage": usage if isinstance(usage, Mapping) else _usage(usage),
    }


def _tool_result(item: Mapping[str, Any], label: str) -> dict[str, Any]:
    return {
        "role": "toolResult",
        "toolCallId": item.get("call", f"{label}.call"),
        "toolName": item.get("tool", "read"),
        "content": [{"type": "text", "text": _text(item, label)}],
        "isError": item.get("isError", False),
    }


def _bash(item: Mapping[str, Any], label: str) -> dict[str, Any]:
    return {
        "role": "bashExecution",
        "command": item.get("command", "ls"),
        "output": _text(item, label),
        "exitCode": 0,
        "cancelled": False,
        "truncated": False,
    }


def _any_message(item: Mapping[str, Any], label: str) -> dict[str, Any]:
    return {"role": item.get("role", "mystery"), "content": _text(item, label)}


_MESSAGES: Final[dict[str, Callable[[Mapping[str, Any], str], dict[str, Any]]]] = {
    "user": _user,
    "assistant": _assistant,
    "toolResult": _tool_result,
    "bashExecution": _bash,
    "message": _any_message,
}


def _entry_fields(kind: str, item: Mapping[str, Any], label: str) -> dict[str, Any]:
    """The type-specific fields of a non-message entry."""
    if kind == "custom_message":
        return {
            "customType": item.get("customType", "note"),
            "content": _text(item, label),
            "display": item.get("display", True),
        }
    if kind == "branch_summary":
        summary = item.get("summary") or _text(item, label)
        return {"fromId": item.get("from", "root"), "summary": summary}
    if kind == "compaction":
        return {
            "summary": item.get("summary") or _text(item, label),
            "firstKeptEntryId": item.get("firstKept"),
            "tokensBefore": item.get("tokensBefore", 0),
        }
    if kind == "model_change":
        return {"provider": item.get("provider", "openai"), "modelId": item.get("modelId", "m2")}
    if kind == "thinking_level_change":
        return {"thinkingLevel": item.get("level", "high")}
    if kind == "label":
        return {"targetId": item.get("target"), "label": item.get("text", "mark")}
    if kind == "custom":
        return {"customType": item.get("customType", "state"), "data": item.get("data", {})}
    return {"name": item.get("name", "a session")}  # session_info


KINDS: Final = (
    *_MESSAGES,
    "custom_message",
    "branch_summary",
    "compaction",
    "model_change",
    "thinking_level_change",
    "label",
    "custom",
    "session_info",
)
_COMMON: Final = frozenset({"parent", "fields"})
_OPTIONS: Final = {
    "user": {"tokens", "text"},
    "assistant": {"tokens", "text", "thinking", "calls", "stopReason", "usage"},
    "toolResult": {"call", "tool", "tokens", "text", "isError"},
    "bashExecution": {"command", "tokens", "text"},
    "message": {"role", "tokens", "text"},
    "custom_message": {"customType", "tokens", "text", "display"},
    "branch_summary": {"from", "summary", "tokens"},
    "compaction": {"firstKept", "summary", "tokens", "tokensBefore"},
    "model_change": {"provider", "modelId"},
    "thinking_level_change": {"level"},
    "label": {"target", "text"},
    "custom": {"customType", "data"},
    "session_info": {"name"},
    "header": {"id", "cwd"},
    "turns": {"from", "user", "assistant", "calls", "result"},
}


class _Writer:
    """Appends entries, chaining parents and stamping times."""

    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []
        self.previous: str | None = None

    def _stamp(self) -> tuple[str, int]:
        n = len(self.entries)
        iso = (_START + timedelta(seconds=n)).strftime("%Y-%m-%dT%H:%M:%SZ")
        return iso, _START_MS + 1000 * n

    def add(self, kind: str, item: Mapping[str, Any]) -> None:
        entry_id = item[kind]
        if not isinstance(entry_id, str) or not entry_id:
            raise ValueError(f"{kind}: the id must be a non-empty string, not {entry_id!r}")
        extra = set(item) - {kind} - _COMMON - _OPTIONS[kind]
        if extra:
            raise ValueError(f"{entry_id}: unknown keys {sorted(extra)} for a {kind} item")
        iso, millis = self._stamp()
        parent = item.get("parent", self.previous)
        entry: dict[str, Any] = {"type": kind, "id": entry_id, "parentId": parent, "timestamp": iso}
        fields = item.get("fields") or {}
        if not isinstance(fields, Mapping):
            raise ValueError(f"{entry_id}: fields must be a mapping")
        if kind in _MESSAGES:
            message = {**_MESSAGES[kind](item, entry_id), "timestamp": millis, **fields}
            entry = {**entry, "type": "message", "message": message}
        else:
            entry = {**entry, **_entry_fields(kind, item, entry_id), **fields}
        self.entries.append(entry)
        self.previous = entry_id

    def header(self, item: Mapping[str, Any]) -> None:
        extra = set(item) - {"header"} - _OPTIONS["header"]
        if extra:
            raise ValueError(f"header: unknown keys {sorted(extra)}")
        entry: dict[str, Any] = {"type": "session"}
        if item["header"] is not None:
            entry["version"] = item["header"]
        entry["id"] = item.get("id", "s1")
        entry["timestamp"] = self._stamp()[0]
        entry["cwd"] = item.get("cwd", "/w")
        self.entries.append(entry)

    def turns(self, item: Mapping[str, Any]) -> None:
        extra = set(item) - _OPTIONS["turns"] - {"turns"}
        if extra:
            raise ValueError(f"turns: unknown keys {sorted(extra)}")
        first = item.get("from", 1)
        calls = item.get("calls") or []
        for n in range(first, first + _count(item, "turns", "turns")):
            self.add("user", {"user": f"u{n}", "tokens": item.get("user", 10)})
            if calls:
                self.add("assistant", {"assistant": f"t{n}", "calls": calls})
                for k, spec in enumerate(calls, 1):
                    name = spec["name"] if isinstance(spec, Mapping) else spec.partition(" ")[0]
                    result_id = f"r{n}" if len(calls) == 1 else f"r{n}.{k}"
                    result = {"toolResult": result_id, "call": f"t{n}.{k}", "tool": name}
                    self.add("toolResult", {**result, "tokens": item.get("result", 10)})
            self.add("assistant", {"assistant": f"a{n}", "tokens": item.get("assistant", 10)})


def session(script: Sequence[Any]) -> list[dict[str, Any]]:
    """The entries `script` describes (see the module docstring), in order.

    Raises `ValueError` naming the item for an item of no known kind or with an unknown
    key.

    >>> [e["id"] for e in session([{"turns": 2}, {"compaction": "c1", "firstKept": "u2"}])]
    ['u1', 'a1', 'u2', 'a2', 'c1']
    >>> session([{"user": "u1", "tokens": 3}])[0]["message"]["content"]
    'u1 line 1: t'
    """
    if not isinstance(script, Sequence) or isinstance(script, str):
        raise ValueError("a session script is a list of items")
    writer = _Writer()
    for position, item in enumerate(script):
        if not isinstance(item, Mapping):
            raise ValueError(f"item {position}: an item is a mapping, not {item!r}")
        if "header" in item:
            writer.header(item)
        elif "turns" in item:
            writer.turns(item)
        else:
            kinds = [kind for kind in KINDS if kind in item]
            if len(kinds) != 1:
                raise ValueError(
                    f"item {position}: name exactly one kind of {(*KINDS, 'header', 'turns')}"
                )
            writer.add(kinds[0], item)
    return writer.entries
