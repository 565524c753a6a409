"""`--impl claude-code@VERSION`: Claude Code (`@anthropic-ai/claude-code`), driven as a black box.

The npm package `@anthropic-ai/claude-code` has no dependencies but its platform packages
(optional: `@anthropic-ai/claude-code-linux-x64` ...); its postinstall script only copies
the platform's native executable (about 400 MB, no Node needed to run it) over its
`bin/claude.exe`. It is installed into the cache on first use from the committed
`claude_code/locks/<version>/package.json` + `package-lock.json` with `npm ci` (scripts
not run), and runs offline afterwards: the adapter (`adapter.py`, run by ctxspec's own
Python through `pyrun.py`) starts the platform executable once per request (`run.py`).
"""

from __future__ import annotations

from typing import Final

from ctxspec.conformance.transport.npm_harness import PYTHON, NpmHarness

__all__ = ["ADAPTER", "BINARY", "HARNESS", "install", "package_files"]

BINARY: Final = ("node_modules", "@anthropic-ai", "claude-code-linux-x64", "claude")

HARNESS: Final = NpmHarness(
    family="claude-code",
    default_version="2.1.332",
    module=__name__,
    packages=("@anthropic-ai/claude-code",),
    runtime=PYTHON,  # the adapter drives the CLI; nothing of it is imported
    adapter="adapter.py",
    size="about 20 s and 400 MB",
    executable=BINARY,
    required=(BINARY,),
    platform=("linux", "x86_64"),
    paths={"CTXSPEC_CLAUDE": BINARY},
    timeout=120.0,  # agent.resume runs it once per user message, then twice (1 to 3 s each)
)
ADAPTER: Final = HARNESS.adapter_path
install: Final = HARNESS.install
package_files: Final = HARNESS.committed
