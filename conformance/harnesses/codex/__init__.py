"""`--impl codex@VERSION`: OpenAI's Codex CLI (`@openai/codex`), driven as a black box.

The npm package is a Node launcher (`bin/codex.js`) and a Rust binary in a platform
package (`@openai/codex-linux-x64` ...). It is installed into the cache on first use from
the committed `codex/locks/<version>/package.json` + `package-lock.json` (exact versions,
integrity hashes) with `npm ci --ignore-scripts`, and runs offline afterwards. Nothing of
it is imported: the adapter (`adapter.py`, run by ctxspec's own Python through `pyrun.py`,
over `kit/jsonlines.py` + `kit/tree.py`) starts the CLI once per request, the way a user
does (`node bin/codex.js ...`), with HOME and CODEX_HOME in that request's temp directory,
every telemetry switch off and a hard timeout (`run.py`).

How each op is driven is in `adapter.py`.
"""

from __future__ import annotations

from typing import Final

from ctxspec.conformance.transport.npm_harness import PYTHON, NpmHarness, Program

__all__ = ["ADAPTER", "HARNESS", "LAUNCHER", "install", "package_files"]

LAUNCHER: Final = ("node_modules", "@openai", "codex", "bin", "codex.js")
_BINARY: Final = (
    "node_modules",
    "@openai",
    "codex-linux-x64",
    "vendor",
    "x86_64-unknown-linux-musl",
    "bin",
    "codex",
)

HARNESS: Final = NpmHarness(
    family="codex",
    default_version="0.171.0",
    module=__name__,
    packages=("@openai/codex",),
    runtime=PYTHON,  # the adapter drives the CLI; nothing of it is imported
    adapter="adapter.py",
    size="about 10 s and 430 MB",
    executable=_BINARY,
    required=(LAUNCHER,),
    platform=("linux", "x86_64"),
    needs=(
        Program(name="node", env="CTXSPEC_NODE", why="the package's launcher is a Node script"),
    ),
    paths={"CTXSPEC_CODEX": LAUNCHER},
)
ADAPTER: Final = HARNESS.adapter_path
install: Final = HARNESS.install
package_files: Final = HARNESS.committed
