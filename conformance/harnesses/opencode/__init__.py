"""`--impl opencode@VERSION`: opencode (`opencode-ai`), driven as a black box.

The npm package `opencode-ai` holds a placeholder `bin/opencode.exe` that its postinstall
script replaces with the platform binary; the binary itself (a Bun executable, with the
`@ai-sdk/openai-compatible` provider bundled) comes in an optional dependency
(`opencode-linux-x64` ...). It is installed into the cache on first use from the committed
`opencode/locks/<version>/package.json` + `package-lock.json` with `npm install
--ignore-scripts` (the registry this lock was made from resolves only the linux-x64
packages, so `npm ci` refuses it as out of sync; the lock must come out unchanged), and
runs offline afterwards. The adapter (`adapter.py`, run by ctxspec's own Python through
`pyrun.py`) starts the platform binary once per request (`run.py`).
"""

from __future__ import annotations

from typing import Final

from ctxspec.conformance.transport.npm_harness import PYTHON, NpmHarness

__all__ = ["ADAPTER", "BINARY", "HARNESS", "install", "package_files"]

BINARY: Final = ("node_modules", "opencode-linux-x64", "bin", "opencode")

HARNESS: Final = NpmHarness(
    family="opencode",
    default_version="1.18.33",
    module=__name__,
    packages=("opencode-ai",),
    runtime=PYTHON,  # the adapter drives the CLI; nothing of it is imported
    adapter="adapter.py",
    size="about 10 s and 354 MB",
    command="install",  # `npm ci` refuses this lock (above); the lock must come out unchanged
    executable=BINARY,
    required=(BINARY,),
    platform=("linux", "x86_64"),
    paths={"CTXSPEC_OPENCODE": BINARY},
    timeout=240.0,  # agent.compaction replays a history: one run (5 to 8 s) per user message
)
ADAPTER: Final = HARNESS.adapter_path
install: Final = HARNESS.install
package_files: Final = HARNESS.committed
