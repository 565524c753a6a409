"""`agent.tool_output` for Qwen Code's shell tool: what its next model request holds for a command.

The content is written to `output.txt` in a temp workspace (in UTF-8, a lone surrogate as
U+FFFD: a program cannot print one), and Qwen Code is run there (`run.py`) against the
shared scripted model (`kit/model.py`, Chat Completions dialect) on the loopback. The
model's first answer calls its shell tool, `run_shell_command` (the name and its `command`
argument as 0.24.4 declares them in its first request), with `cat output.txt`; its second
ends the turn. Qwen Code runs the command itself and sends the result as the `tool`
message of that call in its next request: the answer's `content` is that message's text
(its text parts joined), exactly as sent (in 0.24.4 it is Qwen Code's own envelope,
`Command:`, `Directory:`, `Output:`, `Error:`, `Exit Code:`, `Signal:`, `Process Group
PGID:` lines), with the temp root taken out.

- `limit`: Qwen Code's own setting `tools.truncateToolOutputThreshold` (UTF-16 code
  units of the whole record; settings.json), a whole number; 0 or less turns the cut off
  in 0.24.4 (`getTruncateToolOutputThreshold`). Null: the shell tool's default, 30,000.
- `tool: read`: not driven (unsupported).
- `saved`: never given.

Under load Qwen Code 0.24.4 sometimes sends `Output: (empty)` for a command that printed
something (seen with three runs at once on two cores): the output is lost, not cut, and a
verdict cannot rest on a race. So a run whose record says `(empty)` for a non-empty file is
run again, up to `ATTEMPTS` times in all; the record of the last run is the answer, and
a retry is written to stderr (`docs/agents.md`, Qwen Code). A bench op times the last
run alone (`kit/bench.py` `discard`).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any, Final

from ctxspec.conformance.harnesses.kit.bench import discard, write_output
from ctxspec.conformance.harnesses.kit.jsonlines import Args, InvalidInput, Unsupported
from ctxspec.conformance.harnesses.kit.model_script import Request, Text, ToolCall, Turn, Usage
from ctxspec.conformance.harnesses.kit.tree import virtualize
from ctxspec.conformance.harnesses.qwen_code.run import QwenFailed, qwen, scripted, utf8

__all__ = ["tool_output"]

TOOL: Final = "run_shell_command"  # Qwen Code 0.24.4's shell tool, as its first request declares it
CALL_ID: Final = "call_ctxspec_1"
ATTEMPTS: Final = 3  # runs of one request when its output comes back lost
LOST: Final = "Output: (empty)"
_FILE: Final = "output.txt"
_PROMPT: Final = "Show output.txt."


def _reply(request: Request) -> Turn:
    """Call the shell tool once; once its output is back, end the turn."""
    if _outputs([request.body]):
        return Turn((Text("done"),), Usage(input_tokens=1))
    return Turn((ToolCall(TOOL, {"command": f"cat {_FILE}"}, CALL_ID),), Usage(input_tokens=1))


def _text(content: Any) -> Any:
    if isinstance(content, list):
        parts = [part.get("text") for part in content if isinstance(part, dict)]
        return "".join(part for part in parts if isinstance(part, str))
    return content


def _outputs(bodies: list[Any]) -> list[Any]:
    return [
        _text(message.get("content"))
        for body in bodies
        if isinstance(body, dict)
        for message in body.get("messages") or []
        if isinstance(message, dict)
        and message.get("role") == "tool"
        and message.get("tool_call_id") == CALL_ID
    ]


def tool_output(args: Args) -> dict[str, str]:
    """The shell tool's result for a command printing `content`, as Qwen Code sends it."""
    content = args.get("content")
    if not isinstance(content, str):
        raise InvalidInput("content", "must be a string")
    if (args.get("tool") or "shell") != "shell":
        raise Unsupported("Qwen Code's read tool is not driven by this harness")
    limit = args.get("limit")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)):
        raise InvalidInput("limit", "must be a whole number (tools.truncateToolOutputThreshold)")
    settings = None if limit is None else {"tools": {"truncateToolOutputThreshold": limit}}
    for attempt in range(1, ATTEMPTS + 1):
        discard()  # a bench op's figure is the run that answers, not the lost ones
        output = _run(content, settings)
        if not (content and LOST in output.splitlines()) or attempt == ATTEMPTS:
            return {"content": output}
        print(f"qwen-code: output lost in run {attempt} (`{LOST}`), run again", file=sys.stderr)
    raise AssertionError("unreachable")


def _run(content: str, settings: dict[str, Any] | None) -> str:
    """One run of Qwen Code over `output.txt` holding `content`: the tool message's text."""
    with tempfile.TemporaryDirectory(prefix="ctxspec-qwen-") as temp:
        root = Path(os.path.realpath(temp))
        work, home = root / "work", root / "home"
        work.mkdir()
        home.mkdir()
        write_output(work / _FILE, content, utf8)
        with scripted(_reply) as model:
            try:
                qwen(_PROMPT, model, cwd=work, home=home, settings=settings)
            except QwenFailed as error:
                model.check()  # Qwen Code failed on an unscripted request: name the request
                raise RuntimeError(str(virtualize(str(error), root))) from None
            model.check()
        outputs = _outputs(model.bodies[-1:])
        if len(outputs) != 1 or not isinstance(outputs[0], str):
            raise RuntimeError(
                f"Qwen Code sent {len(outputs)} outputs of the scripted call, not one text: "
                f"{str(outputs)[:300]}"
            )
        return str(virtualize(outputs[0], root))
