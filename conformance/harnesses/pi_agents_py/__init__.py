"""`--impl pi-agents-py@VERSION`: the PyPI port "Python clone of pi-mono" (truncation, the
read/bash/grep tools, token estimates, skills) in a private venv, answered by
`adapter.py`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from conformance.transport.named import Launch
from conformance.transport.pyvenv import adapter_launch, ensure_venv

__all__ = ["ADAPTER", "install", "requirements"]

ADAPTER: Final = Path(__file__).parent / "adapter.py"

# The port pins nothing exactly (httpx[http2]>=0.27, jsonschema>=4.20, pyyaml>=6.0). None of
# them is imported on the adapter's paths (truncate, tools, compaction, skills and the
# agent's types use the standard library only), so they cannot change an answer; they are
# pinned, with what they pull in (the venv's whole `pip freeze`), to the versions the
# 0.58.3 run was made with, so that the venv is that one and a later release of any of
# them cannot break the install.
_PINNED_0_58_3: Final = (
    "anyio==4.16.0",
    "attrs==26.1.0",
    "certifi==2026.10.19.post1",
    "h11==0.16.0",
    "h2==4.4.1",
    "hpack==4.2.0",
    "httpcore==1.0.9",
    "httpx==0.29.0",
    "hyperframe==6.1.0",
    "idna==3.20",
    "jsonschema==4.26.0",
    "jsonschema-specifications==2025.9.1",
    "pyyaml==6.0.4",
    "referencing==0.37.0",
    "rpds-py==2026.9.1",
    "typing-extensions==4.16.0",
)


def requirements(version: str) -> list[str]:
    """What the venv for `version` installs: the port and the pins above."""
    pins = list(_PINNED_0_58_3) if version == "0.58.3" else []
    return [f"pi-agents-py=={version}", *pins]


def install(version: str, *, quiet: bool = False) -> Launch:
    """The port's venv on first use (cached), and the adapter run by its python."""
    python = ensure_venv(f"pi-agents-py-{version}", requirements(version), quiet=quiet)
    return adapter_launch(python, ADAPTER)
