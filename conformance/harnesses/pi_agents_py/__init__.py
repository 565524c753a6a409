"""`--impl pi-agents-py@VERSION`: the PyPI port "Python clone of pi-mono" (truncation, the
read/bash/grep tools, token estimates, skills) in a private venv, answered by
`adapter.py`.
"""

from __future__ import annotations

from typing import Final

from ctxspec.conformance.transport.pyvenv import PypiPort

__all__ = ["ADAPTER", "HARNESS", "install", "requirements"]

# The port pins nothing exactly (httpx[http2]>=0.27, jsonschema>=4.20, pyyaml>=6.0). None of
# them is imported on the adapter's paths (truncate, tools, compaction, skills and the
# agent's types use the standard library only), so they cannot change an answer; they are
# pinned, with what they pull in (the venv's whole `pip freeze`), to the versions the
# 0.58.3 run was made with, so that the venv is that one and a later release of any of
# them cannot break the install. The pins are `pins/0.58.3.txt`.
HARNESS: Final = PypiPort(
    family="pi-agents-py",
    default_version="0.58.3",
    module=__name__,
    packages=("pi-agents-py",),
)
ADAPTER: Final = HARNESS.adapter_path
requirements: Final = HARNESS.requirements
install: Final = HARNESS.install
