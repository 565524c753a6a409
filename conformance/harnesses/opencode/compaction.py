"""`agent.compaction` and `agent.summary` for opencode: replay the history, see the next request.

opencode decides to compact inside its session loop (after an answer, from the tokens the
provider reported for it), so the history is given to it the way it would have happened:
each user message starts a turn (the first with `opencode run --auto --format json`, the
others with `-s <session id>` read from its first JSON event), the prompt on stdin (an
argument would come quoted: `opencode run` wraps each argument holding a space in double
quotes; stdin is taken as it is), every text with its lone surrogates as U+FFFD. The
scripted model (`kit/model.py`) answers each main-loop request of a turn with the
assistant messages that follow, in order, and the title request with a title. An
assistant message with `toolCall` is answered as that text plus a call of opencode's bash
tool (`cat tool-<n>.txt`), and the tool message after it is what that file holds, so
opencode runs the command and sends the result back itself. Consecutive assistant
messages without a tool call are one answer. A turn the history leaves waiting for the
model (a user message right after a user message or a tool result) is ended by an answer
`ok` before the next user message: `opencode run` returns only once its turn is over.

The window is the model's `limit.context` in the provider config; its `limit.output` is
4,000 (`run.py`), so a window of 4,000 or less is unsupported (opencode would compact
after every answer). `usage` is reported by the answer that produced the last message (as
`prompt_tokens`, no completion tokens); every other answer reports 0; null: no answer
reports usage.

"Its next request" is the one opencode makes after the last message: in the same turn
when the history ends with a tool call or its result, the first request of the turn the
last user message starts, or, when the history ends with a plain assistant message (the
turn is over), the first request of one more turn (prompt `continue`). opencode compacts
when it asks the model for a summary: a request with no tools whose last message starts
`Here is the conversation so far:` (opencode's own summary prompt, which 1.18.33 does not
let a setting replace). It checks right after each answer, so with the usage past its
threshold it asks before the user's next message is sent, and goes on by itself ("Continue
if you have next steps...", answered `ok`); a summary request once the last answer is
sent is the compaction, and the observed request is the first main-loop request of the
last prompt's run. The scripted summary answers it, and `keep` is read from that
request: the first index from which every message reaches it verbatim (a user message as
a user message of the same text, an assistant message inside an assistant message's
text, a tool result as the result of the same call).

`agent.summary` replays the same way and answers the summary request with the given
summary, with `finish_reason: "length"` when `stopReason` is `length`; it is accepted when
the request after it carries the summary.

A history that makes opencode compact before its last message is reached is answered
unsupported (the state the request describes never exists), as is one that does not
start with a user message or whose user message is empty or only white space (`opencode
run` refuses an empty message).
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

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
from ctxspec.conformance.harnesses.opencode.run import (
    OpencodeFailed,
    is_title,
    opencode_run,
    scripted,
)
from ctxspec.conformance.harnesses.opencode.tool_output import TOOL

__all__ = ["SUMMARY_PROMPT", "compaction", "summary"]

SUMMARY_PROMPT: Final = "Here is the conversation so far:"  # opencode's summary request
SUMMARY: Final = "ctxspec summary."
NEXT: Final = "continue"
FILLER: Final = "ok"  # the answer that ends a turn the history does not end
OUTPUT: Final = 4_000  # the model's limit.output (run.py's default)
_ROLES: Final = ("user", "assistant", "tool")
_LONE: Final = re.compile("[\ud800-\udfff]")


def whole_text(text: str) -> str:
    """`text` with each lone surrogate as U+FFFD (what a program prints or a file holds)."""
    return _LONE.sub("\ufffd", text)


@dataclass
class _Turn:
    """One user turn: its prompt and the scripted answers to its requests, in order."""

    prompt: str
    answers: list[list[Part]] = field(default_factory=list)


def _whole(args: Args, name: str, what: str, *, least: int, required: bool) -> int | None:
    value = args.get(name)
    if value is None:
        if required:
            raise InvalidInput(name, f"is required ({what})")
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value):
        raise InvalidInput(name, f"must be a whole number ({what})")
    if value < least:
        raise InvalidInput(name, f"must be >= {least} ({what})")
    return int(value)


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
        if item["role"] == "user" and not item["text"].strip():
            raise Unsupported(f"opencode run refuses an empty message: messages[{index}]")
    if value[0]["role"] != "user":
        raise Unsupported("an opencode session starts with the user's prompt: messages[0] is not")
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
                turns[-1].answers.append([Text(FILLER)])  # the turn waits for an answer
            turns.append(_Turn(whole_text(item["text"])))
        elif item["role"] == "assistant":
            pending.append(Text(whole_text(item["text"])))
            if item.get("toolCall"):
                call = {"command": f"cat {_file(index)}", "description": "Show the file"}
                pending.append(ToolCall(TOOL, call, _call_id(index)))
                turns[-1].answers.append(pending)
                pending = []
    if pending:
        turns[-1].answers.append(pending)
    return turns


def _open(turn: _Turn) -> bool:
    """The turn still waits for a model answer: none yet, or the last one calls a tool."""
    return not turn.answers or isinstance(turn.answers[-1][-1], ToolCall)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def _entries(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [entry for entry in request.get("messages") or [] if isinstance(entry, dict)]


def _is_summary_request(request: dict[str, Any]) -> bool:
    entries = _entries(request)
    return (
        not request.get("tools")
        and bool(entries)
        and entries[-1].get("role") == "user"
        and _text(entries[-1].get("content")).startswith(SUMMARY_PROMPT)
    )


def _kept(index: int, item: dict[str, Any], request: dict[str, Any]) -> bool:
    """messages[index] reaches `request` verbatim."""
    entries = _entries(request)
    if item["role"] == "tool":
        return any(
            entry.get("role") == "tool" and entry.get("tool_call_id") == _call_id(index - 1)
            for entry in entries
        )
    text = whole_text(item["text"])
    if item["role"] == "user":
        return any(
            entry.get("role") == "user" and _text(entry.get("content")) == text for entry in entries
        )
    said = any(
        entry.get("role") == "assistant" and text in _text(entry.get("content"))
        for entry in entries
    )
    calls = {
        call.get("id")
        for entry in entries
        if entry.get("role") == "assistant"
        for call in entry.get("tool_calls") or []
        if isinstance(call, dict)
    }
    return said and (not item.get("toolCall") or _call_id(index) in calls)


class _Script:
    """The model's side: the scripted answers in order, then the observed next request."""

    def __init__(self, turns: list[_Turn], usage: int | None, summary: str, cut: bool) -> None:
        self.answers = [answer for turn in turns for answer in turn.answers]
        self.usage = usage
        self.summary, self.cut = summary, cut
        self.sent = 0
        self.early: int | None = None  # answers sent when opencode compacted during the replay
        self.compacted = False
        self.final = False  # the last prompt is given: its run makes the observed request
        self.after: dict[str, Any] | None = None  # the first other request of that run

    @property
    def observing(self) -> bool:
        return self.sent >= len(self.answers)

    def _reply(self, parts: list[Part], tokens: int = 0, cut: bool = False) -> Turn:
        """An answer reporting `tokens` input tokens; none at all when the usage is null."""
        usage = None if self.usage is None else Usage(input_tokens=tokens, output_tokens=0)
        return Turn(parts, usage, cut=cut)

    def __call__(self, model_request: Request) -> Turn:
        if is_title(model_request):
            return Turn.say("ctxspec", usage=Usage(input_tokens=1, output_tokens=0))
        request = model_request.body if isinstance(model_request.body, dict) else {}
        if _is_summary_request(request):
            if self.observing:
                self.compacted = True
            elif self.early is None:
                self.early = self.sent
            return self._reply([Text(self.summary)], cut=self.cut)
        if self.observing:
            if self.after is None and self.final:
                self.after = request
            return self._reply([Text(FILLER)])
        items = self.answers[self.sent]
        self.sent += 1
        return self._reply(items, (self.usage or 0) if self.observing else 0)


def _session(stdout: bytes) -> str:
    for line in stdout.decode("utf-8", "replace").splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict) and isinstance(event.get("sessionID"), str):
            return str(event["sessionID"])
    raise RuntimeError("opencode run --format json printed no event with a sessionID")


def _replay(turns: list[_Turn], script: _Script, root: Path, window: int) -> None:
    work, home = root / "work", root / "home"
    prompts = [turn.prompt for turn in turns]
    if not _open(turns[-1]) and turns[-1].answers:
        prompts.append(NEXT)  # the turn is over: the next request is the next turn's
    with scripted(script) as model:
        session: str | None = None
        for number, prompt in enumerate(prompts, 1):
            script.final = number == len(prompts)
            options = ["--format", "json", *([] if session is None else ["-s", session])]
            # the replay before the last run is setup: a bench op times the last run alone
            with nullcontext() if script.final else setup():
                ran = opencode_run(
                    model,
                    None,
                    cwd=work,
                    home=home,
                    context=window,
                    output=OUTPUT,
                    options=options,
                    stdin=prompt.encode("utf-8"),
                )
            session = session or _session(ran)
            if script.early is not None:
                raise Unsupported(
                    f"opencode compacted while the history was replayed, after the model's "
                    f"answer {script.early} of {len(script.answers)}: it never holds this "
                    "history uncompacted"
                )


def _run(args: Args, summary: str, cut: bool) -> tuple[list[dict[str, Any]], _Script]:
    """Replay `args`' history through opencode (module doc); the script holds what it saw."""
    messages = _messages(args.get("messages"))
    window = _whole(args, "window", "tokens: the model's limit.context", least=1, required=True)
    assert window is not None
    if window <= OUTPUT:
        raise Unsupported(
            f"a window of {window} is no larger than the model's output limit ({OUTPUT}): "
            "opencode would compact after every answer"
        )
    usage = _whole(args, "usage", "input tokens", least=0, required=False)
    turns = _turns(messages)
    if usage is not None and not any(turn.answers for turn in turns):
        raise Unsupported("no model answer precedes the history's end to report the usage on")
    script = _Script(turns, usage, summary, cut)
    with tempfile.TemporaryDirectory(prefix="ctxspec-opencode-") as temp:
        root = Path(os.path.realpath(temp))
        (root / "work").mkdir()
        for index, item in enumerate(messages):
            if item["role"] == "assistant" and item.get("toolCall"):
                following = messages[index + 1] if index + 1 < len(messages) else {}
                text = following.get("text", "") if following.get("role") == "tool" else ""
                (root / "work" / _file(index)).write_bytes(whole_text(text).encode("utf-8"))
        try:
            _replay(turns, script, root, window)
        except OpencodeFailed as error:
            raise RuntimeError(str(virtualize(str(error), root))) from None
    if script.after is None:
        raise RuntimeError("opencode made no request after the history's last message")
    return messages, script


def compaction(args: Args) -> dict[str, Any]:
    """Whether opencode compacts before its next request, and the first message it keeps."""
    messages, script = _run(args, SUMMARY, cut=False)
    if not script.compacted or script.after is None:
        return {"compact": False, "keep": None}
    keep = len(messages)
    while keep and _kept(keep - 1, messages[keep - 1], script.after):
        keep -= 1
    return {"compact": True, "keep": keep}


def summary(args: Args) -> dict[str, bool]:
    """Whether opencode puts the scripted model's summary in place of the history."""
    text, stop = args.get("summary"), args.get("stopReason")
    if not isinstance(text, str) or not text:
        raise InvalidInput("summary", "must be a non-empty string")
    if stop not in ("stop", "length"):
        raise InvalidInput("stopReason", "must be 'stop' or 'length'")
    text = whole_text(text)
    messages, script = _run(args, text, cut=stop == "length")
    if not script.compacted:
        raise Unsupported("opencode does not compact before this request: it asks for no summary")
    said = {whole_text(item["text"]) for item in messages}
    found = any(
        entry.get("role") == "assistant"
        and _text(entry.get("content")).endswith(text)
        and _text(entry.get("content")) not in said
        for entry in _entries(script.after or {})
    )
    return {"accepted": found}
