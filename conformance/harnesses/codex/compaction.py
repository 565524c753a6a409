"""`agent.compaction` for Codex: replay the history through `codex exec`, see the next request.

Codex decides to compact inside its session loop, so the history is given to it the way
it would have happened: each user message starts a turn (the first with `codex exec`,
the others with `codex exec resume <thread id>`, the prompt as the argument, or on stdin
when longer than one argument may be; every text with its lone surrogates as U+FFFD, as
`run.whole_text` says), and the scripted model (`kit/model.py`) answers each request of a
turn with the assistant messages that follow, in order. An assistant message with
`toolCall` is answered as that text plus a call of Codex's shell tool (`exec_command`,
`cat tool-<n>.txt`), and the tool message after it is what that file holds, so Codex
runs the command and sends the result back itself (as its own `function_call_output`,
its header included). Consecutive assistant messages without a tool call are one answer.
A turn the history leaves waiting for the model (a user message right after a user
message or a tool result) is ended by an answer `ok` before the next user message: Codex
cannot start a turn while one waits.

The window is Codex's own setting `model_context_window` (`-c model_context_window=W`;
the auto-compact limit is left to Codex, which derives it from the window). `usage` is
reported by the answer that produced the last message (as `input_tokens`, no output
tokens); every other answer reports 0 input tokens; null: no answer reports usage.

"Its next request" is the one Codex makes after the last message: in the same turn when
the history ends with a tool call or its result, the first request of the turn the last
user message starts, or, when the history ends with a plain assistant message (the turn
is over), the first request of one more turn (prompt `continue`). Codex compacts there
when that request asks the model for a summary: the compaction prompt is set to a known
text (`compact_prompt`, Codex's own setting) so the request is recognised without
reading Codex's default prompt. The scripted summary answers it, and `keep` is read from
the request that follows: the first index from which every message reaches it verbatim
(a user message as the same `input_text`, an assistant message as the same
`output_text`, a tool result as the output of the same call). In 0.171.0 Codex keeps the
user messages and drops the rest, so a history that ends with an assistant or a tool
message keeps none (`keep` = its length).

`agent.summary` replays the same way and answers the compaction request with the given
summary, stopped at the output limit when `stopReason` is `length` (the Responses API's
`response.incomplete`, reason `max_output_tokens`); it is accepted when the request
after it carries the summary. In 0.171.0 a cut summary fails the turn (`Incomplete
response returned, reason: max_output_tokens`), which is its answer: not accepted.

A history that makes Codex compact before its last message is reached is answered
unsupported (the state the request describes never exists), as is one that does not
start with a user message (a Codex session does).
"""

from __future__ import annotations

import json
import os
import tempfile
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from ctxspec.conformance.harnesses.codex.numbers import whole
from ctxspec.conformance.harnesses.codex.provider import ENV, overrides, scripted
from ctxspec.conformance.harnesses.codex.run import (
    CodexFailed,
    codex,
    config_file,
    toml_string,
    utf8,
    whole_text,
)
from ctxspec.conformance.harnesses.codex.tool_output import TOOL
from ctxspec.conformance.harnesses.kit.bench import setup
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

__all__ = ["COMPACT_PROMPT", "compaction", "summary"]

COMPACT_PROMPT: Final = "ctxspec: summarize the conversation so far."
SUMMARY: Final = "ctxspec summary."
NEXT: Final = "continue"
FILLER: Final = "ok"  # the answer that ends a turn the history does not end
_ARGUMENT: Final = 100_000  # bytes: a longer prompt goes on stdin (Linux caps one argument)
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
        raise Unsupported("a Codex session starts with the user's prompt: messages[0] is a user's")
    return value


def _call_id(index: int) -> str:
    return f"call_ctxspec_{index}"


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
                turns[-1].answers.append([Text(FILLER)])  # Codex waits for an answer
            turns.append(_Turn(item["text"]))  # sent as `whole_text` (_prompt)
        elif item["role"] == "assistant":
            pending.append(Text(whole_text(item["text"]), f"msg_ctxspec_{index}"))
            if item.get("toolCall"):
                call = {"cmd": f"cat {_file(index)}"}
                pending.append(ToolCall(TOOL, call, _call_id(index)))
                turns[-1].answers.append(pending)
                pending = []
    if pending:
        turns[-1].answers.append(pending)
    return turns


def _open(turn: _Turn) -> bool:
    """The turn still waits for a model answer: none yet, or the last one calls a tool."""
    return not turn.answers or isinstance(turn.answers[-1][-1], ToolCall)


def _texts(item: object) -> list[str]:
    if not isinstance(item, dict) or item.get("type") != "message":
        return []
    return [part.get("text", "") for part in item.get("content") or [] if isinstance(part, dict)]


def _is_compaction(request: dict[str, Any]) -> bool:
    items = request.get("input") or []
    return bool(items) and _texts(items[-1]) == [COMPACT_PROMPT]


def _kept(index: int, item: dict[str, Any], request: dict[str, Any]) -> bool:
    """messages[index] reaches `request` verbatim."""
    entries = [entry for entry in request.get("input") or [] if isinstance(entry, dict)]
    calls = {entry.get("call_id") for entry in entries if entry.get("type") == "function_call"}
    outputs = {
        entry.get("call_id") for entry in entries if entry.get("type") == "function_call_output"
    }
    if item["role"] == "tool":
        return _call_id(index - 1) in outputs
    said = any(
        entry.get("role") == item["role"] and whole_text(item["text"]) in _texts(entry)
        for entry in entries
    )
    return said and (not item.get("toolCall") or _call_id(index) in calls)


class _Script:
    """The model's side: the scripted answers in order, then the observed next request."""

    def __init__(self, turns: list[_Turn], usage: int | None, summary: str, cut: bool) -> None:
        self.answers = [answer for turn in turns for answer in turn.answers]
        self.usage = usage
        self.summary, self.cut = summary, cut
        self.sent = 0
        self.early: int | None = None  # answers sent when Codex compacted during the replay
        self.compacted = False
        self.after: dict[str, Any] | None = None  # the first other request once observing

    @property
    def observing(self) -> bool:
        return self.sent >= len(self.answers)

    def _reply(self, parts: list[Part], tokens: int = 0, cut: bool = False) -> Turn:
        """An answer reporting `tokens` input tokens; none at all when the usage is null."""
        usage = None if self.usage is None else Usage(input_tokens=tokens, output_tokens=0)
        return Turn(parts, usage, cut=cut)

    def __call__(self, model_request: Request) -> Turn:
        request = model_request.body if isinstance(model_request.body, dict) else {}
        if _is_compaction(request):
            if self.observing:
                self.compacted = True
            elif self.early is None:
                self.early = self.sent
            return self._reply([Text(self.summary)], cut=self.cut)
        if self.observing:
            if self.after is None:
                self.after = request
            return self._reply([Text(FILLER)])
        items = self.answers[self.sent]
        self.sent += 1
        return self._reply(items, (self.usage or 0) if self.observing else 0)


def _thread(stdout: bytes) -> str:
    for line in stdout.decode("utf-8", "replace").splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict) and event.get("type") == "thread.started":
            return str(event["thread_id"])
    raise RuntimeError("codex exec printed no thread.started event")


def _prompt(text: str) -> tuple[list[str], bytes | None]:
    """The prompt as arguments (after `--`), or on stdin (`-`) when too long for one."""
    if len(utf8(text)) > _ARGUMENT:
        return ["-"], utf8(text)
    return [whole_text(text)], None


def _replay(turns: list[_Turn], script: _Script, root: Path, config: list[str]) -> None:
    work, home = root / "work", root / "home"
    prompts = [turn.prompt for turn in turns]
    if not _open(turns[-1]) and turns[-1].answers:
        prompts.append(NEXT)  # the turn is over: the next request is the next turn's
    with scripted(script) as model:
        options = ["--json", "--skip-git-repo-check"]
        settings = [*overrides(model), *config]
        thread = None
        for number, prompt in enumerate(prompts, 1):
            args, stdin = _prompt(prompt)
            command: tuple[str, ...] = ("exec",) if thread is None else ("exec", "resume")
            argv = [*options, "--", *([] if thread is None else [thread]), *args]
            # the replay before the last run is setup: a bench op times the last run alone
            with nullcontext() if number == len(prompts) else setup():
                ran = codex(
                    command, argv, cwd=work, home=home, config=settings, env=ENV, stdin=stdin
                )
            thread = thread or _thread(ran.stdout)
            if script.early is not None:
                raise Unsupported(
                    f"Codex compacted while the history was replayed, after the model's answer "
                    f"{script.early} of {len(script.answers)}: it never holds this history "
                    "uncompacted"
                )
        model.check()


def _run(args: Args, summary: str, cut: bool) -> tuple[list[dict[str, Any]], _Script]:
    """Replay `args`' history through Codex (module doc); the script holds what it saw."""
    messages = _messages(args.get("messages"))
    window = whole(args, "window", "tokens: model_context_window", least=1, required=True)
    usage = whole(args, "usage", "input tokens")
    turns = _turns(messages)
    if usage is not None and not any(turn.answers for turn in turns):
        raise Unsupported("no model answer precedes the history's end to report the usage on")
    script = _Script(turns, usage, summary, cut)
    config = [f"model_context_window={window}", f"compact_prompt={toml_string(COMPACT_PROMPT)}"]
    with tempfile.TemporaryDirectory(prefix="ctxspec-codex-") as temp:
        root = Path(os.path.realpath(temp))
        (root / "work").mkdir()
        config_file(root / "home")
        for index, item in enumerate(messages):
            if item["role"] == "assistant" and item.get("toolCall"):
                following = messages[index + 1] if index + 1 < len(messages) else {}
                text = following.get("text", "") if following.get("role") == "tool" else ""
                (root / "work" / _file(index)).write_bytes(utf8(text))
        try:
            _replay(turns, script, root, config)
        except CodexFailed as error:
            if not (script.compacted and cut):  # a cut summary may fail the turn: its answer
                raise RuntimeError(str(virtualize(str(error), root))) from None
    if script.after is None and not (script.compacted and cut):
        raise RuntimeError("Codex made no request after the history's last message")
    return messages, script


def compaction(args: Args) -> dict[str, Any]:
    """Whether Codex compacts before its next request, and the first message it keeps."""
    messages, script = _run(args, SUMMARY, cut=False)
    if not script.compacted or script.after is None:
        return {"compact": False, "keep": None}
    keep = len(messages)
    while keep and _kept(keep - 1, messages[keep - 1], script.after):
        keep -= 1
    return {"compact": True, "keep": keep}


def summary(args: Args) -> dict[str, bool]:
    """Whether Codex puts the scripted model's summary in place of the history."""
    text, stop = args.get("summary"), args.get("stopReason")
    if not isinstance(text, str) or not text:
        raise InvalidInput("summary", "must be a non-empty string")
    if stop not in ("stop", "length"):
        raise InvalidInput("stopReason", "must be 'stop' or 'length'")
    text = whole_text(text)
    messages, script = _run(args, text, cut=stop == "length")
    if not script.compacted:
        raise Unsupported("Codex does not compact before this request, so it asks for no summary")
    said = {whole_text(item["text"]) for item in messages}
    entries = (script.after or {}).get("input") or []
    found = any(
        part.endswith(text) and part not in said for entry in entries for part in _texts(entry)
    )
    return {"accepted": found}
