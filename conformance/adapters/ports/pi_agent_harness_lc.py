"""`--impl pi-agent-harness-lc@VERSION`: the PyPI port's harness (compaction, sessions,
skills, the system prompt) in a private venv, answered by `pi_agent_harness_lc_adapter.py`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from conformance.adapters.named import Launch
from conformance.adapters.ports.pyvenv import adapter_launch, ensure_venv

__all__ = ["ADAPTER", "install", "requirements"]

ADAPTER: Final = Path(__file__).parent / "pi_agent_harness_lc_adapter.py"

# The port pins its sibling exactly (pi-agent-core-lc==VERSION) but everything else loosely
# (langchain-core>=0.3, pydantic>=2, pyyaml>=6, pathspec>=0.12, typing-extensions>=4.6): a
# later release of any of them could change the answers (pydantic's validation and dumps
# are on every path), so the versions the 0.6.0 run was made with are pinned here too.
_PINNED_0_6_0: Final = (
    "langchain-core==1.8.3",
    "pydantic==2.14.4",
    "pydantic-core==2.50.5",
    "pyyaml==6.0.4",
    "pathspec==1.1.1",
    "typing-extensions==4.16.0",
)


def requirements(version: str) -> list[str]:
    """What the venv for `version` installs: the port, its core, and the pins above."""
    pins = list(_PINNED_0_6_0) if version == "0.6.0" else []
    return [f"pi-agent-harness-lc=={version}", f"pi-agent-core-lc=={version}", *pins]


def install(version: str, *, quiet: bool = False) -> Launch:
    """The port's venv on first use (cached), and the adapter run by its python."""
    python = ensure_venv(f"pi-agent-harness-lc-{version}", requirements(version), quiet=quiet)
    return adapter_launch(python, ADAPTER)
