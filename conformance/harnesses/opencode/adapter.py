"""Protocol v1 for opencode (`opencode-ai`), a black box: each request starts its CLI.

Run by ctxspec's own Python through `pyrun.py` (see `opencode.install`), so it imports the
standard library and of ctxspec only the protocol loop (`kit/jsonlines.py`), the tree code
(`kit/tree.py`), the scripted model (`kit/model.py`) and this package's modules. It
converts shapes only: every answer is what opencode sent the model, with the temp root
taken out.

Listed ops, with what drives each (every run: `opencode run --auto` with HOME in the
request's temp directory, the provider in `OPENCODE_CONFIG_CONTENT` pointed at a scripted
model on 127.0.0.1, the four `OPENCODE_DISABLE_*` switches, HTTP proxies pointed at a
closed loopback port, a hard deadline: `run.py`):

    agent.instructions  the system prompt of the first main-loop request over the laid-out
                        tree, from its first `Instructions from:` block (instructions.py)
    agent.tool_output   the scripted model calls the bash tool once (`cat output.txt`); the
                        answer is the call's result in the next request (tool_output.py)
    agent.compaction    the history replayed turn by turn (`-s <session>`, prompts on stdin),
                        the usage on the last answer; whether the next request follows a
                        summary request, and what it keeps verbatim (compaction.py)
    agent.summary       the same replay, the summary request answered with the given summary
                        (`finish_reason: length` when cut); whether the next request carries
                        it (compaction.py)

A session's first run starts with opencode's title request (no tools), which the script
answers with a title.

The bench ops (`kit/bench.py`): `bench.agent_tool_output` (the file hard-linked as
`output.txt`), `bench.agent_instructions` and `bench.agent_compaction` run the same code,
timed as a turn: `elapsedNs` is the wall time of the `opencode run`(s) of the turn (for a
compaction, the last run alone: the turns before it are replayed as setup), `peakKiB` the
peak RSS of that run's process tree.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Final

from ctxspec.conformance.harnesses.kit.bench import bench_handlers
from ctxspec.conformance.harnesses.kit.jsonlines import Handler, dispatch, serve
from ctxspec.conformance.harnesses.opencode.compaction import compaction, summary
from ctxspec.conformance.harnesses.opencode.instructions import instructions
from ctxspec.conformance.harnesses.opencode.tool_output import tool_output

AGENT: Final[dict[str, Handler]] = {
    "agent.compaction": compaction,
    "agent.summary": summary,
    "agent.instructions": instructions,
    "agent.tool_output": tool_output,
}
HANDLERS: Final[dict[str, Handler]] = {**AGENT, **bench_handlers(AGENT)}  # kit/bench.py


def hello() -> dict[str, Any]:
    """The greeting: the installed package's own version (its package.json)."""
    binary = Path(os.environ.get("CTXSPEC_OPENCODE", "."))
    version = "unknown"
    try:
        text = (binary.parent.parent / "package.json").read_text()
    except OSError:
        text = ""
    for line in text.splitlines():  # `"version": "1.18.33",`
        name, _, value = line.strip().partition(":")
        if name == '"version"':
            version = value.strip().strip(",").strip('"')
            break
    return {"implementation": {"name": "opencode", "version": version, "language": "typescript"}}


if __name__ == "__main__":
    serve(dispatch(HANDLERS, hello()))
