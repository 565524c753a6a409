"""Protocol v1 for GitHub Copilot CLI (`@github/copilot`), a black box: each request starts it.

Run by ctxspec's own Python through `pyrun.py` (see `copilot_cli.install`), so it imports
the standard library and of ctxspec only the protocol loop (`kit/jsonlines.py`), the tree
code (`kit/tree.py`), the scripted model (`kit/model.py`) and this package's modules. It
converts shapes only: every answer is what the CLI sent the model, with the temp root
taken out.

Listed ops, with what drives each (every run: `copilot -p <prompt> --allow-all-tools`,
BYOK against the scripted model on 127.0.0.1 in the Chat Completions dialect,
`COPILOT_OFFLINE=true`, HOME, COPILOT_HOME and TMPDIR in the request's temp directory,
the install's one unpacked package, HTTP proxies pointed at a closed loopback port, a
hard deadline: `run.py`):

    agent.instructions  one run over the laid-out tree; the `<custom_instruction>` blocks
                        of the first request's system message (instructions.py)
    agent.tool_output   one run whose scripted model calls `bash` once; the answer is the
                        tool message of that call in the next request, and the file it
                        saved the output to (tool_output.py)
    agent.resume        the history replayed turn by turn (--session-id, then --resume),
                        then resumed with the prompt; the conversation of that request
                        (sessions.py)

Not listed: agent.compaction and agent.summary (not driven). Shapes not driven are
answered `unsupported`: `tool: read`, a `budget`, a fork (none documented), tool calls in a
replayed history.

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

from ctxspec.conformance.harnesses.copilot_cli.instructions import instructions
from ctxspec.conformance.harnesses.copilot_cli.sessions import resume
from ctxspec.conformance.harnesses.copilot_cli.tool_output import tool_output
from ctxspec.conformance.harnesses.kit.bench import bench_handlers
from ctxspec.conformance.harnesses.kit.jsonlines import Handler, dispatch, serve

AGENT: Final[dict[str, Handler]] = {
    "agent.instructions": instructions,
    "agent.resume": resume,
    "agent.tool_output": tool_output,
}
HANDLERS: Final[dict[str, Handler]] = {**AGENT, **bench_handlers(AGENT)}  # kit/bench.py


def hello() -> dict[str, Any]:
    """The greeting: the installed platform package's own version (its package.json)."""
    binary = Path(os.environ.get("CTXSPEC_COPILOT", "."))
    try:
        version = json.loads((binary.parent / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        version = "unknown"
    return {"implementation": {"name": "copilot-cli", "version": version, "language": "typescript"}}


if __name__ == "__main__":
    serve(dispatch(HANDLERS, hello()))
