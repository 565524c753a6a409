"""`--impl pi-agent-harness-lc@VERSION`: the PyPI port's harness (compaction, sessions,
skills, the system prompt) in a private venv, answered by `adapter.py`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from ctxspec.conformance.transport.pyvenv import PypiPort

__all__ = ["ADAPTER", "PORT", "install", "requirements"]

ADAPTER: Final = Path(__file__).parent / "adapter.py"

# The port pins its sibling exactly (pi-agent-core-lc==VERSION) but everything else loosely
# (langchain-core>=0.3, pydantic>=2, pyyaml>=6, pathspec>=0.12, typing-extensions>=4.6), and
# those pull in more (langsmith, orjson, packaging, ...): a later release of any of them
# could change the answers (pydantic's validation and dumps are on every path). So the
# whole venv the 0.6.0 expectations were made with is pinned: `pins/0.6.0.txt`, its
# `pip freeze`.
PORT: Final = PypiPort(
    family="pi-agent-harness-lc",
    packages=("pi-agent-harness-lc", "pi-agent-core-lc"),
    adapter=ADAPTER,
)
requirements: Final = PORT.requirements
install: Final = PORT.install
