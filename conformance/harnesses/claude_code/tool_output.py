"""`agent.tool_output` for Claude Code's Bash tool: what `claude -p` sends back for a command.

The content is written to `output.txt` in a temp workspace (in UTF-8, a lone surrogate as
U+FFFD: a program cannot print one), and `claude -p` is run there against the scripted
model (`run.py`). The first answer calls Claude Code's `Bash` tool (`{command,
description}`) with `cat output.txt`; the second, asked once the tool result is in the
request, ends the turn. The answer's `content` is that `tool_result` block's content exactly
as sent (a string, or its text blocks joined), with the temp root taken out; `saved` is the
file it names after `Full output saved to: ` (Claude Code's `<persisted-output>` marker)
when there is one, read back whole; from 64 MB on, the marker reads `Output exceeded the
64MB persist limit; only the first 64MB were saved to: <file>`, and that file (the first
64 MB) is `saved`. The saved file's path reads
`/home/.claude/projects/-work/<session>/tool-results/<id>.txt` on every machine.

- `limit`: Claude Code's own setting `bashOutputMaxChars` (`--settings`); null = its
  default (30,000). The setting clamps to 4,000-128,000 ([S] the setting's description in
  the 2.1.332 binary; run: 100 behaves as 4,000), so a limit outside that range cannot be
  set: unsupported.
- `tool: read`: not driven here (unsupported).
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path
from typing import Any, Final

from ctxspec.conformance.harnesses.claude_code.run import ClaudeFailed, claude_run, scripted
from ctxspec.conformance.harnesses.kit.bench import write_output
from ctxspec.conformance.harnesses.kit.jsonlines import Args, InvalidInput, Unsupported
from ctxspec.conformance.harnesses.kit.model_script import Request, Text, ToolCall, Turn, Usage
from ctxspec.conformance.harnesses.kit.tree import virtualize

__all__ = ["LEAST", "MOST", "tool_output"]

TOOL: Final = "Bash"
CALL_ID: Final = "toolu_ctxspec_1"
LEAST: Final = 4_000  # bashOutputMaxChars clamps to LEAST..MOST
MOST: Final = 128_000
_FILE: Final = "output.txt"
_PROMPT: Final = "Show output.txt."
# the marker's two wordings in 2.1.332: the whole output saved, or (from 64 MB) its first 64 MB
_SAVED: Final = re.compile(r"(?:Full output saved to|only the first \S+ were saved to): (\S+)")


def _results(body: Any) -> list[Any]:
    """The contents of the tool_result blocks of the scripted call in `body`."""
    if not isinstance(body, dict):
        return []
    return [
        block.get("content")
        for message in body.get("messages") or []
        if isinstance(message, dict) and isinstance(message.get("content"), list)
        for block in message["content"]
        if isinstance(block, dict)
        and block.get("type") == "tool_result"
        and block.get("tool_use_id") == CALL_ID
    ]


def _reply(request: Request) -> Turn:
    """Call Bash once; end the turn once its result is in the request."""
    if _results(request.body):
        return Turn((Text("done"),), Usage(input_tokens=1))
    call = ToolCall(TOOL, {"command": f"cat {_FILE}", "description": "Show the file"}, CALL_ID)
    return Turn((call,), Usage(input_tokens=1))


def _limit(args: Args) -> int | None:
    value = args.get("limit")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value):
        raise InvalidInput("limit", "must be a whole number (bashOutputMaxChars)")
    if value < 0:
        raise InvalidInput("limit", "must be >= 0 (bashOutputMaxChars)")
    if not LEAST <= value <= MOST:
        raise Unsupported(
            f"Claude Code's bashOutputMaxChars clamps to {LEAST:,}-{MOST:,}: {int(value):,} "
            "cannot be set"
        )
    return int(value)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(
        isinstance(block, dict) and block.get("type") == "text" for block in content
    ):
        return "".join(str(block.get("text", "")) for block in content)
    raise RuntimeError(f"Claude Code sent a tool result that is not text: {str(content)[:300]}")


def tool_output(args: Args) -> dict[str, str]:
    """The Bash tool's result for a command printing `content`, as Claude Code sends it."""
    content = args.get("content")
    if not isinstance(content, str):
        raise InvalidInput("content", "must be a string")
    if (args.get("tool") or "shell") != "shell":
        raise Unsupported("Claude Code's Read tool is not driven by this harness")
    limit = _limit(args)
    settings = None if limit is None else {"bashOutputMaxChars": limit}
    with tempfile.TemporaryDirectory(prefix="ctxspec-claude-") as temp:
        root = Path(os.path.realpath(temp))
        work, home = root / "work", root / "home"
        work.mkdir()
        write_output(work / _FILE, content, _utf8)
        with scripted(_reply) as model:
            try:
                claude_run(model, _PROMPT, cwd=work, home=home, settings=settings)
            except ClaudeFailed as error:
                raise RuntimeError(str(virtualize(str(error), root))) from None
        results = _results(model.bodies[-1]) if model.bodies else []
        if len(results) != 1:
            raise RuntimeError(f"Claude Code sent {len(results)} results of the scripted call")
        output = _text(results[0])
        answer = {"content": _virtual(output, root)}
        saved = _SAVED.search(output)
        if saved and Path(saved.group(1)).is_file():
            answer["saved"] = Path(saved.group(1)).read_bytes().decode("utf-8", "replace")
        return answer


def _virtual(text: str, root: Path) -> str:
    """`text` with the temp root taken out, from paths and from the project folder's name
    (Claude Code names it after the cwd, each character but a letter or digit a `-`)."""
    slug = re.sub("[^A-Za-z0-9]", "-", str(root))
    return str(virtualize(text, root)).replace(f"/projects/{slug}-", "/projects/-")


def _utf8(text: str) -> bytes:
    return re.sub("[\ud800-\udfff]", "\ufffd", text).encode("utf-8")
