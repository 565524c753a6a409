"""`agent.tool_output` for Copilot CLI's bash tool: what its next model request holds.

The content is written to `output.txt` in a temp workspace (in UTF-8, a lone surrogate as
U+FFFD: a program cannot print one), and `copilot -p` is run there (`run.py`) against the
scripted model. The model's first answer calls the `bash` tool (`{command, description}`,
as 1.0.102 declares it in its first request) with `cat output.txt`; its second ends the
turn. Copilot runs the command and sends the result as the `tool` message of that call in
its next request: the answer's `content` is that message's text exactly as sent, with the
temp root taken out.

A result over the limit is saved to a file in the system temp dir (Node's `os.tmpdir()`,
here the run's `TMPDIR`, inside the request's temp dir: `<ms>-copilot-tool-output-...txt`)
and the model gets `Output too large to read at once (<size>). Saved to: <file>`, a hint,
and `Preview (first 500 chars):` with the first 500 UTF-16 units. Copilot deletes the file
when it exits, so `saved` is read while the run is still waiting for the model's answer to
that request (the scripted model reads it before answering). The file's name holds the
time, Copilot's process id and a random id; the answer names it
`<ms>-copilot-tool-output-<id>.txt` (`SAVED_NAME`), so an answer is the same on every run
(the process id's digits would change its length).

- `limit`: `COPILOT_LARGE_OUTPUT_THRESHOLD_BYTES` (bytes), the variable the 1.0.102 runtime
  reads for this threshold (in the binary's native runtime; `copilot help environment`
  does not list it). Null: its default, 20,480 bytes. 0 is not a limit of zero bytes
  (nothing is cut): unsupported.
- `tool: read`: not driven (unsupported).
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path
from typing import Any, Final

from ctxspec.conformance.harnesses.copilot_cli.run import (
    CopilotFailed,
    copilot,
    message_text,
    scripted,
    utf8,
)
from ctxspec.conformance.harnesses.kit.bench import write_output
from ctxspec.conformance.harnesses.kit.jsonlines import Args, InvalidInput, Unsupported
from ctxspec.conformance.harnesses.kit.model_script import Request, Text, ToolCall, Turn, Usage
from ctxspec.conformance.harnesses.kit.tree import virtualize

__all__ = ["LIMIT_VARIABLE", "SAVED_NAME", "TOOL", "tool_output"]

TOOL: Final = "bash"  # Copilot CLI 1.0.102's shell tool, as its first request declares it
LIMIT_VARIABLE: Final = "COPILOT_LARGE_OUTPUT_THRESHOLD_BYTES"
CALL_ID: Final = "call_ctxspec_1"
_FILE: Final = "output.txt"
_PROMPT: Final = "Show output.txt."
_SAVED: Final = re.compile(r"Saved to: (\S+)")
_NAME: Final = re.compile(r"(?<=/)\d+-copilot-tool-output-[0-9A-Za-z-]+\.txt(?=\s)")
SAVED_NAME: Final = "<ms>-copilot-tool-output-<id>.txt"


def _outputs(bodies: list[Any]) -> list[Any]:
    return [
        message.get("content")
        for body in bodies
        if isinstance(body, dict)
        for message in body.get("messages") or []
        if isinstance(message, dict)
        and message.get("role") == "tool"
        and message.get("tool_call_id") == CALL_ID
    ]


class _Script:
    """Call bash once; once its result is back, read the file it names, and end the turn."""

    def __init__(self) -> None:
        self.saved: bytes | None = None

    def __call__(self, request: Request) -> Turn:
        outputs = _outputs([request.body])
        if outputs:
            found = _SAVED.search(message_text(outputs[0]))
            if found and Path(found.group(1)).is_file():
                self.saved = Path(found.group(1)).read_bytes()
            return Turn((Text("done"),), Usage(input_tokens=1))
        call = ToolCall(TOOL, {"command": f"cat {_FILE}", "description": "Show the file"}, CALL_ID)
        return Turn((call,), Usage(input_tokens=1))


def _limit(args: Args) -> dict[str, str]:
    value = args.get("limit")
    if value is None:
        return {}
    if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value):
        raise InvalidInput("limit", f"must be a whole number (bytes: {LIMIT_VARIABLE})")
    if value < 0:
        raise InvalidInput("limit", f"must be >= 0 (bytes: {LIMIT_VARIABLE})")
    if value == 0:
        raise Unsupported(f"{LIMIT_VARIABLE}=0 is no limit of zero bytes: nothing is cut")
    return {LIMIT_VARIABLE: str(int(value))}


def tool_output(args: Args) -> dict[str, str]:
    """The bash tool's result for a command printing `content`, as Copilot CLI sends it."""
    content = args.get("content")
    if not isinstance(content, str):
        raise InvalidInput("content", "must be a string")
    if (args.get("tool") or "shell") != "shell":
        raise Unsupported("Copilot CLI's view tool is not driven by this harness")
    env = _limit(args)
    with tempfile.TemporaryDirectory(prefix="ctxspec-copilot-") as temp:
        root = Path(os.path.realpath(temp))
        work = root / "work"
        work.mkdir()
        write_output(work / _FILE, content, utf8)
        script = _Script()
        with scripted(script) as model:
            try:
                copilot(_PROMPT, model, cwd=work, home=root / "home", tmp=root / "tmp", env=env)
            except CopilotFailed as error:
                raise RuntimeError(str(virtualize(str(error), root))) from None
        outputs = _outputs(model.bodies[-1:])
        if len(outputs) != 1 or not isinstance(outputs[0], str | list):
            raise RuntimeError(
                f"Copilot CLI sent {len(outputs)} outputs of the scripted call, not one text: "
                f"{str(outputs)[:300]}"
            )
        text = virtualize(message_text(outputs[0]), root)
        answer = {"content": _NAME.sub(SAVED_NAME, str(text), count=1)}
        if script.saved is not None:
            answer["saved"] = script.saved.decode("utf-8", "replace")
        return answer
