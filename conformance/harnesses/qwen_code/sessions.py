"""`agent.resume` for Qwen Code: a session replayed, then resumed, and its next request.

Qwen Code 0.24.4 records each session to disk and documents (`qwen --help`) `--resume
<id>` ("Resume a specific session by its ID"), `--session-id` ("Specify a session ID for
this run", a version-4 UUID) and `--fork-session` ("Create a new forked session from the
resumed session").
So the history is given to it as it would have happened: the first user message is a run
with `--session-id <id>`, every later one a run with `--resume <id>`, and the scripted
model answers each turn with the assistant message that follows it (`ok` when the
history has none before the next user message). Then one more run, `--resume <id>` with
`prompt` (with `--fork-session` for a fork, the model answering `reply`): the answer's
`messages` is the conversation of the request it makes, its `system` messages aside,
each text part as a message of its role (Qwen Code sends its `<system-reminder>`s and
the user's text as parts of one message). After a fork, one more `--resume <id>` with
the same prompt gives `original`. A main-loop request is told from Qwen Code's side
requests (the memory extraction after a turn) by the user's text it ends with.

A history with tool messages is unsupported (the replay does not drive the shell
tool), as are consecutive assistant messages.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any, Final

from ctxspec.conformance.harnesses.kit.jsonlines import Args, InvalidInput, Unsupported
from ctxspec.conformance.harnesses.kit.model_script import Request, Text, Turn, Usage
from ctxspec.conformance.harnesses.kit.tree import virtualize
from ctxspec.conformance.harnesses.qwen_code.run import QwenFailed, qwen, scripted, utf8

__all__ = ["resume"]

FILLER: Final = "ok"
SESSION: Final = "5eed0000-0000-4000-8000-000000000001"  # any version-4 UUID: each request
# has its own HOME, so one id serves every run


def _parts(content: Any) -> list[str]:
    if isinstance(content, list):
        return [
            p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)
        ]
    return [content] if isinstance(content, str) else []


def _conversation(body: Any) -> list[dict[str, str]]:
    """The request's messages but its system ones, each text part as a message of its role
    (Qwen Code sends its reminders and the user's text as parts of one message)."""
    messages = body.get("messages") if isinstance(body, dict) else None
    return [
        {"role": m["role"], "text": part}
        for m in messages or []
        if isinstance(m, dict) and m.get("role") in ("user", "assistant", "tool")
        for part in _parts(m.get("content")) or [""]
    ]


def _asks(body: Any) -> str | None:
    """The user's text a main-loop request ends with (a side request, such as the memory
    extraction Qwen Code makes after a turn, ends with its own prompt)."""
    conversation = _conversation(body)
    if conversation and conversation[-1]["role"] == "user":
        return conversation[-1]["text"]
    return None


def _turns(messages: Any) -> list[tuple[str, str]]:
    """Each user message with the answer the model gives its turn."""
    if not isinstance(messages, list) or not messages:
        raise InvalidInput("messages", "must be a non-empty list of messages")
    turns: list[tuple[str, str | None]] = []
    for index, item in enumerate(messages):
        role = item.get("role") if isinstance(item, dict) else None
        if role not in ("user", "assistant", "tool") or not isinstance(item.get("text"), str):
            raise InvalidInput("messages", f"[{index}]: a role and a text")
        if role == "tool" or item.get("toolCall"):
            raise Unsupported("a history with tool calls: the replay does not drive the shell")
        if role == "user":
            turns.append((item["text"], None))
        elif not turns:
            raise Unsupported("a Qwen Code session starts with the user's prompt")
        elif turns[-1][1] is not None:
            raise Unsupported("two assistant messages in a row: one answer per turn is replayed")
        else:
            turns[-1] = (turns[-1][0], item["text"])
    return [(text, FILLER if answer is None else answer) for text, answer in turns]


class _Script:
    """Each main-loop request that ends with the next expected prompt is answered with that
    prompt's answer (those after the history recorded); any other request, a side request
    of Qwen Code's own, is answered `ok`."""

    def __init__(self, history: list[tuple[str, str]], finals: list[tuple[str, str]]) -> None:
        self.expected = [*history, *finals]
        self.recorded = len(history)  # the requests after these are recorded
        self.seen: list[Any] = []

    def __call__(self, request: Request) -> Turn:
        if self.expected and _asks(request.body) == self.expected[0][0]:
            _, answer = self.expected.pop(0)
            if self.recorded:
                self.recorded -= 1
            else:
                self.seen.append(request.body)
            return Turn((Text(answer),), Usage(input_tokens=1))
        return Turn((Text(FILLER),), Usage(input_tokens=1))


def resume(args: Args) -> dict[str, Any]:
    """The conversation of Qwen Code's next request after `--resume` (or `--fork-session`)
    with the prompt, and after a fork the original's."""
    prompt, reply = args.get("prompt"), args.get("reply")
    if not isinstance(prompt, str) or not prompt:
        raise InvalidInput("prompt", "must be a non-empty string")
    if not isinstance(reply, str) or not reply:
        raise InvalidInput("reply", "must be a non-empty string")
    fork = args.get("fork", False)
    if not isinstance(fork, bool):
        raise InvalidInput("fork", "must be true or false")
    turns = [(_arg(text), answer) for text, answer in _turns(args.get("messages"))]
    sent = _arg(prompt)
    script = _Script(turns, [(sent, reply), (sent, FILLER)] if fork else [(sent, FILLER)])
    resumed = ["--resume", SESSION]
    with tempfile.TemporaryDirectory(prefix="ctxspec-qwen-") as temp:
        root = Path(os.path.realpath(temp))
        work, home = root / "work", root / "home"
        work.mkdir()
        home.mkdir()
        with scripted(script) as model:
            try:
                for index, (text, _) in enumerate(turns):
                    options = ["--session-id", SESSION] if index == 0 else resumed
                    qwen(text, model, cwd=work, home=home, options=options)
                forked = [*resumed, "--fork-session"] if fork else resumed
                qwen(sent, model, cwd=work, home=home, options=forked)
                if fork:
                    qwen(sent, model, cwd=work, home=home, options=resumed)
            except QwenFailed as error:
                model.check()
                raise RuntimeError(str(virtualize(str(error), root))) from None
            model.check()
    wanted = 2 if fork else 1
    if len(script.seen) < wanted:
        raise RuntimeError(f"Qwen Code made {len(script.seen)} requests after the history")
    return {
        "messages": virtualize(_conversation(script.seen[0]), root),
        "original": virtualize(_conversation(script.seen[1]), root) if fork else None,
    }


def _arg(text: str) -> str:
    """`text` as one argument: a lone surrogate as U+FFFD (an argument is bytes)."""
    return utf8(text).decode("utf-8")
