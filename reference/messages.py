"""What the model sees of Pi's own message kinds: `convertToLlm` and its text framings.

Decides how session-only roles reach the provider: a `bashExecution` becomes a user
text (`bash_execution_to_text`) unless excluded, a `custom` message a user message,
branch and compaction summaries a user text between fixed prefixes and suffixes; user,
assistant and toolResult pass unchanged and every other role is dropped.
Functions: `convert_to_llm`, `bash_execution_to_text`, and the `create_*_message`
projections of session entries.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from ctxspec.reference._jsdate import js_date_ms
from ctxspec.reference._jsjson import js_string, js_truthy
from ctxspec.reference.errors import InvalidInput

__all__ = [
    "BRANCH_SUMMARY_PREFIX",
    "BRANCH_SUMMARY_SUFFIX",
    "COMPACTION_SUMMARY_PREFIX",
    "COMPACTION_SUMMARY_SUFFIX",
    "MESSAGE_ROLES",
    "PASS_THROUGH_ROLES",
    "bash_execution_to_text",
    "convert_to_llm",
    "create_branch_summary_message",
    "create_compaction_summary_message",
    "create_custom_message",
    "role_of",
]

COMPACTION_SUMMARY_PREFIX: Final = (
    "The conversation history before this point was compacted into the following summary:"
    "\n\n<summary>\n"
)
COMPACTION_SUMMARY_SUFFIX: Final = "\n</summary>"
BRANCH_SUMMARY_PREFIX: Final = (
    "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
)
# MSG-2: no newline before the closing tag of a branch summary (unlike a compaction's)
BRANCH_SUMMARY_SUFFIX: Final = "</summary>"
PASS_THROUGH_ROLES: Final = frozenset({"user", "assistant", "toolResult"})
# §12: the roles of Pi 0.85.0's agent messages, the model's three and the session's four
# (`convertToLlm` drops any other, MSG-1); the corpus's tests read this table as
# `ENTRY_TYPES` (tests/corpora/test_entry_types.py)
MESSAGE_ROLES: Final = (
    "user",
    "assistant",
    "toolResult",
    "bashExecution",
    "custom",
    "branchSummary",
    "compactionSummary",
)
_SUMMARY_FRAMES: Final = {
    "branchSummary": (BRANCH_SUMMARY_PREFIX, BRANCH_SUMMARY_SUFFIX),
    "compactionSummary": (COMPACTION_SUMMARY_PREFIX, COMPACTION_SUMMARY_SUFFIX),
}

Message = Mapping[str, Any]


def role_of(message: Mapping[str, Any]) -> str | None:
    """A message's role as Pi's `===` and `switch` compare it: a string, else None (a role
    that is a list or an object matches no rule, and is never a key to look up)."""
    role = message.get("role")
    return role if isinstance(role, str) else None


def bash_execution_to_text(message: Message) -> str:
    """The user text a `bashExecution` message becomes.

    >>> bash_execution_to_text({"command": "ls", "output": "", "exitCode": 2, "cancelled": False})
    'Ran `ls`\\n(no output)\\n\\nCommand exited with code 2'
    """
    command, output = message.get("command"), message.get("output")
    text = f"Ran `{_text(command)}`\n"
    # JavaScript truthiness decides each part: `[]` and `{}` are true, NaN false
    text += f"```\n{js_string(output)}\n```" if js_truthy(output) else "(no output)"
    exit_code = message.get("exitCode")
    if js_truthy(message.get("cancelled")):
        text += "\n\n(command cancelled)"
    elif exit_code is not None and (isinstance(exit_code, bool) or exit_code != 0):  # !== 0
        text += f"\n\nCommand exited with code {js_string(exit_code)}"
    if js_truthy(message.get("truncated")) and js_truthy(message.get("fullOutputPath")):
        text += f"\n\n[Output truncated. Full output: {js_string(message['fullOutputPath'])}]"
    return text


def convert_to_llm(messages: Sequence[Message]) -> tuple[dict[str, Any], ...]:
    """Pi's `convertToLlm`: the messages a provider receives, in order (MSG-1).

    Converted messages carry only `role`, `content` and `timestamp`.

    >>> [converted] = convert_to_llm([{"role": "compactionSummary", "summary": "S"}])
    >>> converted["content"][0]["text"][-22:]
    '<summary>\\nS\\n</summary>'
    """
    out: list[dict[str, Any]] = []
    for message in messages:
        role = role_of(message)
        # MSG-1: user, assistant and toolResult pass through as they are
        if role in PASS_THROUGH_ROLES:
            out.append(dict(message))
        elif role == "bashExecution":
            if js_truthy(message.get("excludeFromContext")):
                continue
            out.append(_user([_text_block(bash_execution_to_text(message))], message))
        elif role == "custom":
            content = message.get("content")
            blocks = [_text_block(content)] if isinstance(content, str) else content
            out.append(_user(blocks, message))
        elif role in _SUMMARY_FRAMES:
            prefix, suffix = _SUMMARY_FRAMES[str(role)]
            summary = _text(message.get("summary"))
            out.append(_user([_text_block(prefix + summary + suffix)], message))
        # every other role is dropped
    return tuple(out)


def create_branch_summary_message(entry: Mapping[str, Any]) -> dict[str, Any]:
    """The `branchSummary` message of a `branch_summary` entry (absent fields stay absent)."""
    return _message(
        "branchSummary",
        entry,
        summary=entry.get("summary", _ABSENT),
        fromId=entry.get("fromId", _ABSENT),
    )


def create_compaction_summary_message(entry: Mapping[str, Any]) -> dict[str, Any]:
    """The `compactionSummary` message of a `compaction` entry."""
    return _message(
        "compactionSummary",
        entry,
        summary=entry.get("summary", _ABSENT),
        tokensBefore=entry.get("tokensBefore", _ABSENT),
    )


def create_custom_message(entry: Mapping[str, Any], content: Any) -> dict[str, Any]:
    """The `custom` message of a `custom_message` entry, with the given content."""
    return _message(
        "custom",
        entry,
        customType=entry.get("customType", _ABSENT),
        content=content,
        display=entry.get("display", _ABSENT),
        details=entry.get("details", _ABSENT),
    )


_ABSENT: Final = object()  # a JS `undefined`: the key is left out of the JSON


def _message(role: str, entry: Mapping[str, Any], **fields: Any) -> dict[str, Any]:
    message = {"role": role, **fields, "timestamp": js_date_ms(entry.get("timestamp"))}
    return {key: value for key, value in message.items() if value is not _ABSENT}


def _user(content: Any, message: Message) -> dict[str, Any]:
    converted = {"role": "user", "content": content}
    if "timestamp" in message:
        converted["timestamp"] = message["timestamp"]
    return converted


def _text_block(text: Any) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _text(value: Any) -> str:
    if isinstance(value, bool) or value is None or isinstance(value, Mapping | list):
        raise InvalidInput("message", f"expected text, got {type(value).__name__}")
    return js_string(value)  # a number as String(n) writes it: `1e-7`, `1e+21`
