"""`agent.resume` for Copilot CLI: a session replayed, then resumed, and its next request.

The history is replayed turn by turn, as a user has it: its first user message with
`copilot -p <text> --session-id <uuid>` (the option `copilot --help` gives to "set the
UUID for a new session"), each later one with `copilot -p <text> --resume <uuid>`, the
scripted model answering each request with the assistant message that follows it. Then
`copilot -p <prompt> --resume <uuid>`, answered with `reply`: the answer's `messages` is
the conversation of that last request, its system message aside, in order (each message's
role and text, a tool message's content as text).

Copilot puts its own `<current_datetime>...</current_datetime>` block, then a blank line,
before the text of each user message: the answer gives that block as a user message of
its own before the user's text (nothing dropped, the shape the check reads: the user's
text as a message).

- `fork`: unsupported: 1.0.102 documents no fork of a session (`copilot --help`: resume,
  continue, a new session id; `copilot sessions` only imports).
- A history is user and assistant messages in turn, from a user message, ending with an
  assistant message; tool calls in it are not replayed (unsupported).
"""

from __future__ import annotations

import os
import re
import tempfile
import uuid
from pathlib import Path
from typing import Any, Final

from ctxspec.conformance.harnesses.copilot_cli.run import (
    CopilotFailed,
    copilot,
    message_text,
    scripted,
)
from ctxspec.conformance.harnesses.kit.jsonlines import Args, InvalidInput, Unsupported
from ctxspec.conformance.harnesses.kit.model_script import Request, Text, Turn, Usage
from ctxspec.conformance.harnesses.kit.tree import virtualize

__all__ = ["DATETIME", "resume"]

DATETIME: Final = re.compile(r"(<current_datetime>[^<]*</current_datetime>)\n\n", re.DOTALL)


def _text(args: Args, name: str) -> str:
    value = args.get(name)
    if not isinstance(value, str) or not value:
        raise InvalidInput(name, "must be a non-empty string")
    return value


def _pairs(value: Any) -> list[tuple[str, str]]:
    """The history as (user text, assistant text) turns."""
    if not isinstance(value, list) or not value:
        raise InvalidInput("messages", "must be a non-empty list of {role, text}")
    for item in value:
        if not isinstance(item, dict) or not isinstance(item.get("text"), str):
            raise InvalidInput("messages", "each message is {role, text}")
        if item.get("role") == "tool" or item.get("toolCall"):
            raise Unsupported("tool calls in a replayed history are not driven for Copilot CLI")
    roles = [item.get("role") for item in value]
    if roles != ["user", "assistant"] * (len(value) // 2) or len(value) % 2:
        raise Unsupported("only user and assistant messages in turn, ending with an answer")
    return [(value[i]["text"], value[i + 1]["text"]) for i in range(0, len(value), 2)]


def _conversation(body: Any) -> list[dict[str, str]]:
    found: list[dict[str, str]] = []
    messages = body.get("messages") if isinstance(body, dict) else None
    for message in messages or []:
        if not isinstance(message, dict) or message.get("role") == "system":
            continue
        role, text = str(message.get("role")), message_text(message.get("content"))
        stamp = DATETIME.match(text) if role == "user" else None
        if stamp is not None:
            found.append({"role": role, "text": stamp.group(1)})
            text = text[stamp.end() :]
        found.append({"role": role, "text": text})
    return found


class _Script:
    """Each request answered with the next of `answers`; every request's body kept."""

    def __init__(self, answers: list[str]) -> None:
        self.answers = list(answers)
        self.bodies: list[Any] = []

    def __call__(self, request: Request) -> Turn | None:
        self.bodies.append(request.body)
        if not self.answers:
            return None
        return Turn((Text(self.answers.pop(0)),), Usage(input_tokens=1))


def resume(args: Args) -> dict[str, Any]:
    """The conversation Copilot CLI's next request carries after a resume."""
    pairs = _pairs(args.get("messages"))
    prompt, reply = _text(args, "prompt"), _text(args, "reply")
    fork = args.get("fork", False)
    if not isinstance(fork, bool):
        raise InvalidInput("fork", "must be true or false")
    if fork:
        raise Unsupported("Copilot CLI 1.0.102 documents no fork of a session")
    script = _Script([answer for _user, answer in pairs] + [reply])
    session = str(uuid.uuid4())
    with tempfile.TemporaryDirectory(prefix="ctxspec-copilot-") as temp:
        root = Path(os.path.realpath(temp))
        work, home, tmp = root / "work", root / "home", root / "tmp"
        work.mkdir()
        with scripted(script) as model:
            try:
                for index, (user, _answer) in enumerate(pairs):
                    option = "--session-id" if index == 0 else "--resume"
                    copilot(user, model, cwd=work, home=home, tmp=tmp, options=(option, session))
                copilot(prompt, model, cwd=work, home=home, tmp=tmp, options=("--resume", session))
            except CopilotFailed as error:
                raise RuntimeError(str(virtualize(str(error), root))) from None
        if len(script.bodies) != len(pairs) + 1:
            raise RuntimeError(
                f"Copilot CLI made {len(script.bodies)} requests, not {len(pairs) + 1}"
            )
        return {"messages": virtualize(_conversation(script.bodies[-1]), root), "original": None}
