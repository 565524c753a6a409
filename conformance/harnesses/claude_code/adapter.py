"""Protocol v1 for Claude Code (`@anthropic-ai/claude-code`), a black box: each request starts it.

Run by ctxspec's own Python through `pyrun.py` (see `claude_code.install`), so it imports
the standard library and of ctxspec only the protocol loop (`kit/jsonlines.py`), the tree
code (`kit/tree.py`), the scripted model (`kit/model.py`) and this package's modules. It
converts shapes only: every answer is what Claude Code sent the model, with the temp root
taken out.

Listed ops, with what drives each (every run: `claude -p <prompt> --output-format json
--allowedTools Bash` with HOME in the request's temp directory, `~/.claude.json` seeded
past onboarding, `ANTHROPIC_BASE_URL` at a scripted model on 127.0.0.1 in the Anthropic
Messages dialect, non-essential traffic off, HTTP proxies pointed at a closed loopback
port, a hard deadline: `run.py`):

    agent.instructions  the instruction reminder of the first request's first user message
                        over the laid-out tree, from its first `Contents of` section
                        (instructions.py)
    agent.tool_output   the scripted model calls the Bash tool once (`cat output.txt`); the
                        answer is the call's tool_result in the next request, and the file
                        a `<persisted-output>` marker names (tool_output.py)
    agent.resume        the history replayed with `-p` and `--resume <id>`, then resumed
                        (or forked: `--fork-session`) with the prompt; the answer is the
                        conversation of the next request (sessions.py)

Compaction and the summary are not driven (not listed in `hello`).

The bench ops (`kit/bench.py`): `bench.agent_tool_output` (the file hard-linked as
`output.txt`) and `bench.agent_instructions` run the same code, timed as a turn:
`elapsedNs` is the wall time of the CLI's one run, `peakKiB` the peak RSS of its process
tree.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Final

from ctxspec.conformance.harnesses.claude_code.instructions import instructions
from ctxspec.conformance.harnesses.claude_code.sessions import resume
from ctxspec.conformance.harnesses.claude_code.tool_output import tool_output
from ctxspec.conformance.harnesses.kit.bench import bench_handlers
from ctxspec.conformance.harnesses.kit.jsonlines import Handler, dispatch, serve

AGENT: Final[dict[str, Handler]] = {
    "agent.instructions": instructions,
    "agent.tool_output": tool_output,
    "agent.resume": resume,
}
HANDLERS: Final[dict[str, Handler]] = {**AGENT, **bench_handlers(AGENT)}  # kit/bench.py


def hello() -> dict[str, Any]:
    """The greeting: the installed platform package's own version (its package.json)."""
    binary = Path(os.environ.get("CTXSPEC_CLAUDE", "."))
    version = "unknown"
    try:
        text = (binary.parent / "package.json").read_text()
    except OSError:
        text = ""
    for line in text.splitlines():  # `"version": "2.1.332",`
        name, _, value = line.strip().partition(":")
        if name == '"version"':
            version = value.strip().strip(",").strip('"')
            break
    return {"implementation": {"name": "claude-code", "version": version, "language": "typescript"}}


if __name__ == "__main__":
    serve(dispatch(HANDLERS, hello()))
