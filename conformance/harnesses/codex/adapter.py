"""Protocol v1 for Codex (`@openai/codex`), a black box: each request starts its CLI.

Run by ctxspec's own Python through `pyrun.py` (see `codex.install`), so it imports the
standard library and of ctxspec only the protocol loop (`kit/jsonlines.py`), the tree
code (`kit/tree.py`) and this package's modules. It converts shapes only: every answer
is what the CLI printed or sent, with the temp root taken out.

Listed ops, with what drives each:

    agent.instructions  `codex debug prompt-input` over the laid-out tree (instructions.py)

Not listed:

    agent.summary       needs Codex to be given a summary by a model ...
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Final

from conformance.harnesses.codex.instructions import instructions
from conformance.harnesses.codex.tool_output import tool_output
from conformance.harnesses.kit.jsonlines import Handler, dispatch, serve

HANDLERS: Final[dict[str, Handler]] = {
    "agent.instructions": instructions,
    "agent.tool_output": tool_output,
}


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
