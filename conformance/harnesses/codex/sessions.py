"""`agent.resume` for Codex: a session replayed, then resumed or forked, and its next request.

The history is replayed as `compaction.py` does it (each user message a turn, the first
with `codex exec`, the others with `codex exec resume <thread id>`, the scripted model
answering each request with the assistant messages that follow). Then:

- without `fork`: `codex exec resume <thread id> <prompt>`; the answer's `messages` is
  the conversation of the request that turn makes;
- with `fork`: `codex exec fork <thread id> <prompt>` (the model answers `reply`), whose
  request gives `messages`; then `codex exec resume <thread id> <prompt>` on the original,
  whose request gives `original`.

A request's conversation is its `input` in order: each `message` item as its role and
its text parts joined, each `function_call_output` as a `tool` message with its output;
the rest (reasoning, the calls themselves) is left out. Codex's own messages (its
environment context, the instructions) are in it as Codex sends them, the temp root
taken out: the check looks for the history in order among them.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any, Final

from ctxspec.conformance.harnesses.codex.compaction import (
    FILLER,
    _file,
    _messages,
    _open,
    _prompt,
    _thread,
    _Turn,
    _turns,
)
from ctxspec.conformance.harnesses.codex.provider import ENV, overrides, scripted
from ctxspec.conformance.harnesses.codex.run import CodexFailed, codex, config_file, utf8
from ctxspec.conformance.harnesses.kit.jsonlines import Args, InvalidInput
from ctxspec.conformance.harnesses.kit.model_script import Part, Request, Text, Turn, Usage
from ctxspec.conformance.harnesses.kit.tree import virtualize

__all__ = ["resume"]

_OPTIONS: Final = ("--json", "--skip-git-repo-check")


class _Script:
    """The history's answers in order; then each request is recorded and answered with
    the next of `finals`."""

    def __init__(self, turns: list[_Turn], finals: list[str]) -> None:
        self.answers: list[list[Part]] = [answer for turn in turns for answer in turn.answers]
        self.finals = finals
        self.seen: list[dict[str, Any]] = []

    def __call__(self, model_request: Request) -> Turn:
        request = model_request.body if isinstance(model_request.body, dict) else {}
        if self.answers:
            return Turn(self.answers.pop(0), Usage(input_tokens=0, output_tokens=0))
        self.seen.append(request)
        text = self.finals[min(len(self.seen), len(self.finals)) - 1]
        return Turn([Text(text)], Usage(input_tokens=0, output_tokens=0))


def _conversation(request: dict[str, Any]) -> list[dict[str, str]]:
    found: list[dict[str, str]] = []
    for item in request.get("input") or []:
        if not isinstance(item, dict):
            continue
        if item.get("type") == "message" and item.get("role") in ("user", "assistant"):
            parts = [p.get("text", "") for p in item.get("content") or [] if isinstance(p, dict)]
            found.append({"role": item["role"], "text": "".join(parts)})
        elif item.get("type") == "function_call_output":
            output = item.get("output")
            found.append({"role": "tool", "text": output if isinstance(output, str) else ""})
    return found


def _text(args: Args, name: str) -> str:
    value = args.get(name)
    if not isinstance(value, str) or not value:
        raise InvalidInput(name, "must be a non-empty string")
    return value


def resume(args: Args) -> dict[str, Any]:
    """The conversation Codex's next request carries after a resume (or a fork), and with a
    fork the original's."""
    messages = _messages(args.get("messages"))
    prompt, reply = _text(args, "prompt"), _text(args, "reply")
    fork = args.get("fork", False)
    if not isinstance(fork, bool):
        raise InvalidInput("fork", "must be true or false")
    turns = _turns(messages)
    script = _Script(turns, [reply, FILLER] if fork else [FILLER])
    with tempfile.TemporaryDirectory(prefix="ctxspec-codex-") as temp:
        root = Path(os.path.realpath(temp))
        work, home = root / "work", root / "home"
        work.mkdir()
        config_file(home)
        for index, item in enumerate(messages):
            if item["role"] == "assistant" and item.get("toolCall"):
                following = messages[index + 1] if index + 1 < len(messages) else {}
                text = following.get("text", "") if following.get("role") == "tool" else ""
                (work / _file(index)).write_bytes(utf8(text))
        with scripted(script) as model:
            settings = overrides(model)

            def run(command: tuple[str, ...], thread: str | None, text: str) -> str:
                argv, stdin = _prompt(text)
                ran = codex(command, [*_OPTIONS, "--", *([thread] if thread else []), *argv],
                            cwd=work, home=home, config=settings, env=ENV, stdin=stdin)  # fmt: skip
                return _thread(ran.stdout)

            try:
                thread = None
                for turn in turns:
                    thread = run(("exec",) if thread is None else ("exec", "resume"), thread,
                                 turn.prompt)  # fmt: skip
                    if _open(turn):
                        raise InvalidInput("messages", "the history ends waiting for the model")
                assert thread is not None
                run(("exec", "fork") if fork else ("exec", "resume"), thread, prompt)
                if fork:
                    run(("exec", "resume"), thread, prompt)
            except CodexFailed as error:
                model.check()
                raise RuntimeError(str(virtualize(str(error), root))) from None
            model.check()
    wanted = 2 if fork else 1
    if len(script.seen) < wanted:
        raise RuntimeError(
            f"Codex made {len(script.seen)} requests after the history, not {wanted}"
        )
    return {
        "messages": virtualize(_conversation(script.seen[0]), root),
        "original": virtualize(_conversation(script.seen[1]), root) if fork else None,
    }
