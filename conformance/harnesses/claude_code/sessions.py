"""`agent.resume` for Claude Code: a session replayed, then resumed or forked, and its next request.

The history is replayed with `claude -p`, one run per user message: the first starts the
session (its id from the JSON result), each later one continues it with `--resume <id>`;
the scripted model answers each request with the assistant messages that follow, an
assistant message with `toolCall` calling `Bash` with `cat tool-<n>.txt`, a file that
holds the next message's text (Claude Code runs it and sends the result). Then:

- without `fork`: `claude -p <prompt> --resume <id>`; the answer's `messages` is the
  conversation of the request that run makes;
- with `fork`: `claude -p <prompt> --resume <id> --fork-session` (the model answers
  `reply`), whose request gives `messages`; then `claude -p <prompt> --resume <id>` on
  the original, whose request gives `original`.

A request's conversation is its `messages` in order, one message per content block: a
user message's text blocks each as a `user` message (Claude Code's own reminders
included, as it sends them) and each `tool_result` as a `tool` message; an assistant
message's text blocks joined as one `assistant` message (its `tool_use` blocks left out,
as a call is no text); the `system` entries Claude Code puts among the messages (its
environment) are left out, with the system prompt. The temp root is taken out.
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from ctxspec.conformance.harnesses.claude_code.run import ClaudeFailed, claude_run, scripted
from ctxspec.conformance.harnesses.kit.jsonlines import Args, InvalidInput, Unsupported
from ctxspec.conformance.harnesses.kit.model_script import (
    Part,
    Request,
    Text,
    ToolCall,
    Turn,
    Usage,
)
from ctxspec.conformance.harnesses.kit.tree import virtualize

__all__ = ["resume"]

FILLER: Final = "ok"  # the answer to a request the case does not script
TOOL: Final = "Bash"
_ROLES: Final = ("user", "assistant", "tool")


@dataclass
class _Turn:
    """One user turn: its prompt and the scripted answers to its requests, in order."""

    prompt: str
    answers: list[list[Part]] = field(default_factory=list)


def _messages(value: object) -> list[dict[str, Any]]:
    if not isinstance(value, list) or not value:
        raise InvalidInput("messages", "must be a non-empty list of messages")
    for index, item in enumerate(value):
        if not isinstance(item, dict) or item.get("role") not in _ROLES:
            raise InvalidInput("messages", f"[{index}]: role must be one of {list(_ROLES)}")
        if not isinstance(item.get("text"), str):
            raise InvalidInput("messages", f"[{index}]: text must be a string")
        before = value[index - 1] if index else {}
        if item["role"] == "tool" and not (
            before.get("role") == "assistant" and before.get("toolCall")
        ):
            raise InvalidInput("messages", f"[{index}]: a tool result follows a toolCall message")
    if value[0]["role"] != "user":
        raise Unsupported("a Claude Code session starts with the user's prompt")
    return value


def _file(index: int) -> str:
    return f"tool-{index}.txt"


def _turns(messages: list[dict[str, Any]]) -> list[_Turn]:
    """The turns to replay, each with its scripted answers (see the module doc)."""
    turns: list[_Turn] = []
    pending: list[Part] = []
    for index, item in enumerate(messages):
        if item["role"] == "user":
            if pending:
                turns[-1].answers.append(pending)
                pending = []
            if turns and _open(turns[-1]):
                turns[-1].answers.append([Text(FILLER)])  # the turn waits for an answer
            turns.append(_Turn(item["text"]))
        elif item["role"] == "assistant":
            if item["text"]:
                pending.append(Text(item["text"]))
            if item.get("toolCall"):
                call = {"command": f"cat {_file(index)}", "description": "Show the file"}
                pending.append(ToolCall(TOOL, call, f"toolu_ctxspec_{index}"))
                turns[-1].answers.append(pending)
                pending = []
    if pending:
        turns[-1].answers.append(pending)
    return turns


def _open(turn: _Turn) -> bool:
    """The turn still waits for a model answer: none yet, or the last one calls a tool."""
    return not turn.answers or isinstance(turn.answers[-1][-1], ToolCall)


class _Script:
    """The history's answers in order; then each request is recorded and answered with
    the next of `finals`."""

    def __init__(self, turns: list[_Turn], finals: list[str]) -> None:
        self.answers: list[list[Part]] = [answer for turn in turns for answer in turn.answers]
        self.finals = finals
        self.replaying = True
        self.seen: list[dict[str, Any]] = []

    def __call__(self, model_request: Request) -> Turn:
        request = model_request.body if isinstance(model_request.body, dict) else {}
        if self.replaying:
            parts = self.answers.pop(0) if self.answers else [Text(FILLER)]
            return Turn(parts, Usage(input_tokens=1))
        self.seen.append(request)
        text = self.finals[min(len(self.seen), len(self.finals)) - 1]
        return Turn([Text(text)], Usage(input_tokens=1))


def _conversation(request: dict[str, Any]) -> list[dict[str, str]]:
    found: list[dict[str, str]] = []
    for message in request.get("messages") or []:
        if not isinstance(message, dict):
            continue
        role, content = message.get("role"), message.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        if role == "user":
            for block in blocks:
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "text":
                    found.append({"role": "user", "text": str(block.get("text", ""))})
                elif block.get("type") == "tool_result":
                    found.append({"role": "tool", "text": _result_text(block.get("content"))})
        elif role == "assistant":
            texts = [
                str(b.get("text", ""))
                for b in blocks
                if isinstance(b, dict) and b.get("type") == "text"
            ]
            if texts:
                found.append({"role": "assistant", "text": "".join(texts)})
    return found


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return ""


def _text(args: Args, name: str) -> str:
    value = args.get(name)
    if not isinstance(value, str) or not value:
        raise InvalidInput(name, "must be a non-empty string")
    return value


def _utf8(text: str) -> bytes:
    return re.sub("[\ud800-\udfff]", "\ufffd", text).encode("utf-8")


def resume(args: Args) -> dict[str, Any]:
    """The conversation Claude Code's next request carries after `--resume` (or
    `--fork-session`), and with a fork the original's."""
    messages = _messages(args.get("messages"))
    prompt, reply = _text(args, "prompt"), _text(args, "reply")
    fork = args.get("fork", False)
    if not isinstance(fork, bool):
        raise InvalidInput("fork", "must be true or false")
    turns = _turns(messages)
    if _open(turns[-1]):
        raise InvalidInput("messages", "the history ends waiting for the model")
    script = _Script(turns, [reply, FILLER] if fork else [FILLER])
    with tempfile.TemporaryDirectory(prefix="ctxspec-claude-") as temp:
        root = Path(os.path.realpath(temp))
        work, home = root / "work", root / "home"
        work.mkdir()
        for index, item in enumerate(messages):
            if item["role"] == "assistant" and item.get("toolCall"):
                following = messages[index + 1] if index + 1 < len(messages) else {}
                text = following.get("text", "") if following.get("role") == "tool" else ""
                (work / _file(index)).write_bytes(_utf8(text))
        with scripted(script) as model:
            try:
                session = None
                for turn in turns:
                    options: list[str] = [] if session is None else ["--resume", session]
                    ran = claude_run(model, turn.prompt, cwd=work, home=home, options=options)
                    session = str(ran.get("session_id") or "")
                    if not session:
                        raise RuntimeError("Claude Code's result names no session_id")
                assert session is not None
                script.replaying = False
                forked = ["--fork-session"] if fork else []
                claude_run(model, prompt, cwd=work, home=home,
                           options=["--resume", session, *forked])  # fmt: skip
                if fork:
                    claude_run(model, prompt, cwd=work, home=home, options=["--resume", session])
            except ClaudeFailed as error:
                raise RuntimeError(str(virtualize(str(error), root))) from None
    wanted = 2 if fork else 1
    if len(script.seen) < wanted:
        raise RuntimeError(
            f"Claude Code made {len(script.seen)} requests after the history, not {wanted}"
        )
    return {
        "messages": virtualize(_conversation(script.seen[0]), root),
        "original": virtualize(_conversation(script.seen[1]), root) if fork else None,
    }
