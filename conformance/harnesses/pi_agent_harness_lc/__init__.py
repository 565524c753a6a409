"""`--impl pi-agent-harness-lc@VERSION`: the PyPI port's harness (compaction, sessions,
skills, the system prompt) in a private venv, answered by `adapter.py`.
"""

from __future__ import annotations

from typing import Final

from ctxspec.conformance.transport.pyvenv import PypiPort

__all__ = ["ADAPTER", "HARNESS", "install", "requirements"]

# The port pins its sibling exactly (pi-agent-core-lc==VERSION) but everything else loosely
# (langchain-core>=0.3, pydantic>=2, pyyaml>=6, pathspec>=0.12, typing-extensions>=4.6), and
# those pull in more (langsmith, orjson, packaging, ...): a later release of any of them
# could change the answers (pydantic's validation and dumps are on every path). So the
# whole venv the 0.6.0 expectations were made with is pinned: `pins/0.6.0.txt`, its
# `pip freeze`.
HARNESS: Final = PypiPort(
    family="pi-agent-harness-lc",
    default_version="0.6.0",
    module=__name__,
    packages=("pi-agent-harness-lc", "pi-agent-core-lc"),
)
ADAPTER: Final = HARNESS.adapter_path
requirements: Final = HARNESS.requirements
install: Final = HARNESS.install
