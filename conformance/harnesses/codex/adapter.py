"""Protocol v1 for Codex (`@openai/codex`), a black box: each request starts its CLI.

Run by ctxspec's own Python through `pyrun.py` (see `codex.install`), so it imports the
standard library and of ctxspec only the protocol loop (`kit/jsonlines.py`), the tree
code (`kit/tree.py`) and this package's modules. It converts shapes only: every answer
is what the CLI printed or sent, with the temp root taken out.

Listed ops, with what drives each (every run: HOME and CODEX_HOME in the request's temp
directory, telemetry and the plugin marketplace off, HTTP proxies pointed at a closed
loopback port, a hard deadline: `run.py`):

    agent.instructions  `codex debug prompt-input` over the laid-out tree (instructions.py)
    agent.tool_output   `codex exec --json` against a scripted model on 127.0.0.1 that
                        calls the shell tool once; the answer is the call's output in the
                        next request (tool_output.py; provider.py, kit/model.py)
    agent.compaction    the history replayed turn by turn (`codex exec`, then
                        `codex exec resume`) against the scripted model; whether the
                        request after it asks for a summary, and what the one after that
                        keeps (compaction.py)
    agent.summary       the same replay; the compaction request is answered with the
                        given summary, cut at the output limit (`response.incomplete`,
                        reason `max_output_tokens`) when stopReason is `length`; accepted
                        when the next request carries it (compaction.py)
    agent.resume        the same replay, then `codex exec resume` (or `codex exec fork`,
                        then a resume of the original); the conversation of each request
                        that follows (sessions.py)

Shapes Codex cannot take are answered `unsupported`: `tool: read` (Codex has no read
tool), a history that does not start with a user message, one that Codex already
compacts while it is replayed.

The bench ops (`kit/bench.py`) of the three agent ops above that the runner draws curves
of: `bench.agent_tool_output` (the file hard-linked as `output.txt`), `bench.agent_instructions`
and `bench.agent_compaction` run the same code, timed as a turn: `elapsedNs` is the wall
time of the `codex` run(s) of the turn (for a compaction, the last run alone: the turns
before it are replayed as setup), `peakKiB` the peak RSS of that run's process tree.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Final

from ctxspec.conformance.harnesses.codex.compaction import compaction, summary
from ctxspec.conformance.harnesses.codex.instructions import instructions
from ctxspec.conformance.harnesses.codex.sessions import resume
from ctxspec.conformance.harnesses.codex.tool_output import tool_output
from ctxspec.conformance.harnesses.kit.bench import bench_handlers
from ctxspec.conformance.harnesses.kit.jsonlines import Handler, dispatch, serve

AGENT: Final[dict[str, Handler]] = {
    "agent.compaction": compaction,
    "agent.instructions": instructions,
    "agent.resume": resume,
    "agent.summary": summary,
    "agent.tool_output": tool_output,
}
HANDLERS: Final[dict[str, Handler]] = {**AGENT, **bench_handlers(AGENT)}  # kit/bench.py


def hello() -> dict[str, Any]:
    """The greeting: the installed package's own version (its package.json)."""
    launcher = Path(os.environ.get("CTXSPEC_CODEX", "."))
    try:
        version = json.loads((launcher.parent.parent / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        version = "unknown"
    return {"implementation": {"name": "codex", "version": version, "language": "rust"}}


if __name__ == "__main__":
    serve(dispatch(HANDLERS, hello()))
