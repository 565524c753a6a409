"""What a case's input carries: the entry types and message roles of its `entries`,
`jsonl`, `messages` or `message`, named as the reference's tables name them.

Shared by the corpus's tests of entry types (tests/corpora/test_entry_types.py: every
type in every op that walks it) and of case inputs (tests/corpora/test_case_inputs.py:
no type a case's rule and `why` are not about).

A kind is an entry type (`model_change`, `session` for a header) or `message:<role>` for
a message entry or a message; a type or role outside the reference's tables is
`unknown`. Ops are read from the protocol's schemas: an op whose args take `entries` or
`jsonl` walks entries, one that takes `messages` or `message` walks messages; `agent.*`
ops speak their own vocabulary (user, assistant, tool) and are left out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from ctxspec.conformance.corpus.cases import Case
from ctxspec.conformance.protocol import OPS, op_schema
from ctxspec.reference.messages import MESSAGE_ROLES
from ctxspec.reference.session import ENTRY_TYPES
from ctxspec.reference.session_file import parse_session_entries

__all__ = [
    "CORE",
    "MESSAGE_KINDS",
    "UNKNOWN",
    "entry_kinds",
    "kinds_of",
    "walking_ops",
]

UNKNOWN: Final = "unknown"
# the messages every port of Pi's context layer takes: the model's own three roles
CORE: Final = frozenset({"message:user", "message:assistant", "message:toolResult"})
MESSAGE_KINDS: Final = tuple(f"message:{role}" for role in MESSAGE_ROLES)


def _arg_names(op: str) -> set[str]:
    schema = op_schema(op, "args")
    if schema is None:
        return set()
    return set(schema["$defs"][f"{op}.args"].get("properties", {}))


def walking_ops() -> dict[str, str]:
    """op -> "entries" or "messages": what it walks, read from its args schema."""
    walks = {}
    for op in OPS:
        names = _arg_names(op)
        if op.startswith(("agent.", "bench.")):
            continue
        if names & {"entries", "jsonl"}:
            walks[op] = "entries"
        elif names & {"messages", "message"}:
            walks[op] = "messages"
    return walks


def entry_kinds() -> tuple[str, ...]:
    """Every kind an entry can be: the entry types, a message entry by its role."""
    return tuple(t for t in ENTRY_TYPES if t != "message") + MESSAGE_KINDS


def _message_kind(message: Any) -> str | None:
    if not isinstance(message, Mapping):
        return None
    role = message.get("role")
    return f"message:{role}" if role in MESSAGE_ROLES else UNKNOWN


def _entry_kind(entry: Any) -> str | None:
    if not isinstance(entry, Mapping):
        return None  # a JSON value that is no object has no type (SS-6)
    kind = entry.get("type")
    if kind == "message":
        return _message_kind(entry.get("message"))
    return kind if kind in ENTRY_TYPES else UNKNOWN


def _entries(args: Mapping[str, Any]) -> Iterable[Any]:
    if isinstance(args.get("entries"), list):
        return args["entries"]
    if isinstance(args.get("jsonl"), str):
        return parse_session_entries(args["jsonl"]).entries
    return ()


def kinds_of(case: Case) -> set[str]:
    """The kinds a case's input carries."""
    args = case.args
    found = {_entry_kind(entry) for entry in _entries(args)}
    messages = list(args.get("messages") or []) + ([args["message"]] if "message" in args else [])
    found |= {_message_kind(message) for message in messages}
    found.discard(None)
    return {kind for kind in found if kind is not None}
