"""Protocol v1 for Qwen Code (`@qwen-code/qwen-code`), a black box: each request starts its CLI.

Run by ctxspec's own Python through `pyrun.py` (see `qwen_code.install`), so it imports
the standard library and of ctxspec only the protocol loop (`kit/jsonlines.py`), the tree
code (`kit/tree.py`), the scripted model (`kit/model.py`) and this package's modules. It
converts shapes only: every answer is what the CLI sent the model, with the temp root
taken out.

Listed ops, with what drives each (every run: `node cli.js "<prompt>" --approval-mode
yolo`, HOME in the request's temp directory, the OpenAI-compatible provider pointed at
the scripted model on 127.0.0.1, telemetry off, HTTP proxies pointed at a closed loopback
port, a hard deadline: `run.py`):

    agent.instructions  one run over the laid-out tree; the context-file blocks of the
                        first request's system message (instructions.py)
    agent.tool_output   one run whose scripted model calls `run_shell_command` once; the
                        answer is the tool message of that call in the next request
                        (tool_output.py)
    agent.resume        the history replayed turn by turn (`--session-id <id>`, then
                        `--resume <id>`), then one more `--resume` with the prompt (and
                        `--fork-session` for a fork, then the original resumed); the
                        conversation of each request that follows (sessions.py)

Not listed: agent.compaction and agent.summary (Qwen Code's threshold for
qwen3-coder-plus is 850,000 tokens of usage, not driven yet). Shapes not driven are
answered `unsupported`: `tool: read`, a `budget`.

The bench ops (`kit/bench.py`): `bench.agent_tool_output` (the file hard-linked as
`output.txt`) and `bench.agent_instructions` run the same code, timed as a turn:
`elapsedNs` is the wall time of the CLI's one run, `peakKiB` the peak RSS of its process
tree.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Final

from ctxspec.conformance.harnesses.kit.bench import bench_handlers
from ctxspec.conformance.harnesses.kit.jsonlines import Handler, dispatch, serve
from ctxspec.conformance.harnesses.qwen_code.instructions import instructions
from ctxspec.conformance.harnesses.qwen_code.sessions import resume
from ctxspec.conformance.harnesses.qwen_code.tool_output import tool_output

AGENT: Final[dict[str, Handler]] = {
    "agent.instructions": instructions,
    "agent.resume": resume,
    "agent.tool_output": tool_output,
}
HANDLERS: Final[dict[str, Handler]] = {**AGENT, **bench_handlers(AGENT)}  # kit/bench.py


def hello() -> dict[str, Any]:
    """The greeting: the installed package's own version (its package.json)."""
    cli = Path(os.environ.get("CTXSPEC_QWEN", "."))
    try:
        version = json.loads((cli.parent / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        version = "unknown"
    return {"implementation": {"name": "qwen-code", "version": version, "language": "typescript"}}


if __name__ == "__main__":
    serve(dispatch(HANDLERS, hello()))
