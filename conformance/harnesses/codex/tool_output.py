"""`agent.tool_output` for Codex's shell tool: what `codex exec` sends back for a command.

The content is written to `output.txt` in a temp workspace (in UTF-8, a lone surrogate
as U+FFFD: a program cannot print one, and Node writes a string so), and `codex exec --json`
is run there against the shared scripted model (`kit/model.py`, through `provider.py`) on
the loopback. The model's
first answer calls Codex's shell tool, `exec_command` (the name and its `cmd` argument
as 0.171.0 declares them in its first request), with `cat output.txt` and no
`max_output_tokens` (the tool's default); its second answer ends the turn. Codex runs
the command itself (its own sandbox and shell) and sends the result as the
`function_call_output` of that call in its next request: the answer's `content` is
that item's `output`, exactly as sent (in 0.171.0 it starts with Codex's own header
lines, `Chunk ID`, `Wall time`, `Process exited with code`, `Original token count`,
`Output:`), with the temp root taken out.

- `limit`: Codex's own setting `tool_output_token_limit` (tokens; a usize), given as
  `-c tool_output_token_limit=N`; null = Codex's default for the model. The model is
  Codex's default one (no `-m`: in 0.171.0, `gpt-6.2-sol`, whose catalog entry in
  `codex debug models` has `truncation_policy: {mode: tokens, limit: 10000}`), so the
  run is cut as a user's would be.
- `tool: read`: Codex has no file-read tool (it reads files with shell commands through
  `exec_command`): unsupported.
- `saved`: never given; Codex keeps no file of the full output that the result names.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any, Final

from ctxspec.conformance.harnesses.codex.numbers import whole
from ctxspec.conformance.harnesses.codex.provider import ENV, overrides, scripted
from ctxspec.conformance.harnesses.codex.run import CodexFailed, codex, config_file, utf8
from ctxspec.conformance.harnesses.kit.bench import write_output
from ctxspec.conformance.harnesses.kit.jsonlines import Args, InvalidInput, Unsupported
from ctxspec.conformance.harnesses.kit.model import ModelServer
from ctxspec.conformance.harnesses.kit.model_script import Request, Text, ToolCall, Turn, Usage
from ctxspec.conformance.harnesses.kit.tree import virtualize

__all__ = ["run_exec", "tool_output"]

TOOL: Final = "exec_command"  # Codex 0.171.0's shell tool, as its first request declares it
CALL_ID: Final = "call_ctxspec_1"
_FILE: Final = "output.txt"
_PROMPT: Final = "Show output.txt."


def _reply(request: Request) -> Turn:
    """Call the shell tool once; once its output is back, end the turn."""
    if _outputs([request.body]):
        return Turn((Text("done"),), Usage(input_tokens=1))
    return Turn((ToolCall(TOOL, {"cmd": f"cat {_FILE}"}, CALL_ID),), Usage(input_tokens=1))


def _outputs(bodies: list[Any]) -> list[Any]:
    return [
        item.get("output")
        for body in bodies
        if isinstance(body, dict)
        for item in body.get("input") or []
        if isinstance(item, dict)
        and item.get("type") == "function_call_output"
        and item.get("call_id") == CALL_ID
    ]


def run_exec(model: ModelServer, root: Path, prompt: str, config: list[str]) -> ModelServer:
    """`codex exec --json` in `root/work` with HOME `root/home` against `model` (serving);
    a request the model was not scripted for raises its `ModelServerError`."""
    work, home = root / "work", root / "home"
    work.mkdir(parents=True, exist_ok=True)
    config_file(home)
    argv = ["--json", "--skip-git-repo-check", "--ephemeral", "--", prompt]
    settings = [*overrides(model), *config]
    try:
        codex(("exec",), argv, cwd=work, home=home, config=settings, env=ENV)
    except CodexFailed as error:
        model.check()  # Codex failed on an unscripted request: name the request
        raise RuntimeError(str(virtualize(str(error), root))) from None
    model.check()
    return model


def tool_output(args: Args) -> dict[str, str]:
    """The shell tool's result for a command printing `content`, as Codex sends it."""
    content = args.get("content")
    if not isinstance(content, str):
        raise InvalidInput("content", "must be a string")
    if (args.get("tool") or "shell") != "shell":
        raise Unsupported("Codex has no read tool: it reads files with exec_command (shell)")
    limit = whole(args, "limit", "tokens: tool_output_token_limit")
    config = [] if limit is None else [f"tool_output_token_limit={limit}"]
    with tempfile.TemporaryDirectory(prefix="ctxspec-codex-") as temp:
        root = Path(os.path.realpath(temp))
        (root / "work").mkdir()
        write_output(root / "work" / _FILE, content, utf8)
        with scripted(_reply) as model:
            run_exec(model, root, _PROMPT, config)
        outputs = _outputs(model.bodies)
        if len(outputs) != 1 or not isinstance(outputs[0], str):
            raise RuntimeError(
                f"Codex sent {len(outputs)} outputs of the scripted call, not one text: "
                f"{str(outputs)[:300]}"
            )
        return {"content": virtualize(outputs[0], root)}
