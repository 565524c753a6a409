"""`agent.tool_output` for opencode's bash tool: what `opencode run` sends back for a command.

The content is written to `output.txt` in a temp workspace (in UTF-8, a lone surrogate as
U+FFFD: a program cannot print one), and `opencode run --auto` is run there against the
scripted model (`run.py`). The title request (no tools) is answered with a title; the
main loop's first answer calls opencode's `bash` tool (`{command, description}`, as 1.18.33
declares it) with `cat output.txt`, its second ends the turn. opencode runs the command and
sends the result as the `tool` message of that call in its next request: the answer's
`content` is that message's content exactly as sent, with the temp root taken out, and
`saved` the file it names after `Full output saved to: ` when it cut.

- `limit`: opencode's own setting `tool_output.max_bytes` (bytes) in its config; null =
  its default (51,200); 0 is refused by opencode's config check (unsupported).
  `tool_output.max_lines` stays at its default (2,000).
- `tool: read`: not driven here (unsupported).
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path
from typing import Any, Final

from ctxspec.conformance.harnesses.kit.bench import write_output
from ctxspec.conformance.harnesses.kit.jsonlines import Args, InvalidInput, Unsupported
from ctxspec.conformance.harnesses.kit.model_script import Request, Text, ToolCall, Turn, Usage
from ctxspec.conformance.harnesses.kit.tree import virtualize
from ctxspec.conformance.harnesses.opencode.run import (
    OpencodeFailed,
    is_title,
    opencode_run,
    scripted,
)

__all__ = ["tool_output"]

TOOL: Final = "bash"
CALL_ID: Final = "call_ctxspec_1"
_FILE: Final = "output.txt"
_PROMPT: Final = "Show output.txt."
_SAVED: Final = re.compile(r"Full output saved to: (\S+)")


def _reply(request: Request) -> Turn:
    """A title for the title request; else call bash once, and end the turn after it."""
    if is_title(request):
        return Turn.say("Show output", usage=Usage(input_tokens=1))
    if _outputs([request.body]):
        return Turn((Text("done"),), Usage(input_tokens=1))
    call = ToolCall(TOOL, {"command": f"cat {_FILE}", "description": "Show the file"}, CALL_ID)
    return Turn((call,), Usage(input_tokens=1))


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


def _limit(args: Args) -> int | None:
    value = args.get("limit")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value):
        raise InvalidInput("limit", "must be a whole number (bytes: tool_output.max_bytes)")
    if value < 0:
        raise InvalidInput("limit", "must be >= 0 (bytes: tool_output.max_bytes)")
    if value == 0:
        raise Unsupported(
            "opencode refuses tool_output.max_bytes 0 ('Expected a value greater than 0')"
        )
    return int(value)


def tool_output(args: Args) -> dict[str, str]:
    """The bash tool's result for a command printing `content`, as opencode sends it."""
    content = args.get("content")
    if not isinstance(content, str):
        raise InvalidInput("content", "must be a string")
    if (args.get("tool") or "shell") != "shell":
        raise Unsupported("opencode's read tool is not driven by this harness")
    limit = _limit(args)
    config = {} if limit is None else {"tool_output": {"max_bytes": limit}}
    with tempfile.TemporaryDirectory(prefix="ctxspec-opencode-") as temp:
        root = Path(os.path.realpath(temp))
        work, home = root / "work", root / "home"
        work.mkdir()
        write_output(work / _FILE, content, _utf8)
        with scripted(_reply) as model:
            try:
                opencode_run(model, _PROMPT, cwd=work, home=home, config=config)
            except OpencodeFailed as error:
                raise RuntimeError(str(virtualize(str(error), root))) from None
        outputs = _outputs(model.bodies[-1:])
        if len(outputs) != 1 or not isinstance(outputs[0], str):
            raise RuntimeError(
                f"opencode sent {len(outputs)} outputs of the scripted call, not one text: "
                f"{str(outputs)[:300]}"
            )
        answer = {"content": virtualize(outputs[0], root)}
        saved = _SAVED.search(outputs[0])
        if saved and Path(saved.group(1)).is_file():
            answer["saved"] = Path(saved.group(1)).read_bytes().decode("utf-8", "replace")
        return answer


def _utf8(text: str) -> bytes:
    return re.sub("[\ud800-\udfff]", "\ufffd", text).encode("utf-8")
