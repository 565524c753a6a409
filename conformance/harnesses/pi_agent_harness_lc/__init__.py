"""`--impl pi-agent-harness-lc@VERSION`: the PyPI port's harness (compaction, sessions,
skills, the system prompt) in a private venv, answered by `adapter.py`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from conformance.transport.named import Launch
from conformance.transport.pyvenv import adapter_launch, ensure_venv

__all__ = ["ADAPTER", "install", "requirements"]

ADAPTER: Final = Path(__file__).parent / "adapter.py"

# The port pins its sibling exactly (pi-agent-core-lc==VERSION) but everything else loosely
# (langchain-core>=0.3, pydantic>=2, pyyaml>=6, pathspec>=0.12, typing-extensions>=4.6), and
# those pull in more (langsmith, orjson, packaging, ...): a later release of any of them
# could change the answers (pydantic's validation and dumps are on every path). So the
# whole venv the 0.6.0 expectations were made with is pinned here (its `pip freeze`).
_PINNED_0_6_0: Final = (
    "annotated-types==0.8.0",
    "anyio==4.16.0",
    "certifi==2026.10.19.post1",
    "charset-normalizer==3.5.3",
    "distro==1.9.0",
    "h11==0.16.0",
    "httpcore==1.0.9",
    "httpcore2==2.16.2",
    "httpx==0.29.0",
    "httpx2==2.16.2",
    "idna==3.20",
    "jsonpatch==1.48",
    "jsonpointer==3.12",
    "langchain-core==1.8.3",
    "langchain-protocol==0.0.20",
    "langsmith==0.15.1",
    "orjson==3.13.0",
    "packaging==26.4",
    "pathspec==1.1.1",
    "pydantic==2.14.4",
    "pydantic-core==2.50.5",
    "pyyaml==6.0.4",
    "requests==2.34.2",
    "requests-toolbelt==1.0.0",
    "sniffio==1.3.1",
    "tenacity==9.2.1",
    "truststore==0.10.5",
    "typing-inspection==0.4.5",
    "typing-extensions==4.16.0",
    "urllib3==2.8.0",
    "uuid-utils==0.19.0",
    "websockets==17.4",
    "xxhash==4.1.0",
    "zstandard==0.25.0",
)


def requirements(version: str) -> list[str]:
    """What the venv for `version` installs: the port, its core, and the pins above."""
    pins = list(_PINNED_0_6_0) if version == "0.6.0" else []
    return [f"pi-agent-harness-lc=={version}", f"pi-agent-core-lc=={version}", *pins]


def install(version: str, *, quiet: bool = False) -> Launch:
    """The port's venv on first use (cached), and the adapter run by its python."""
    python = ensure_venv(f"pi-agent-harness-lc-{version}", requirements(version), quiet=quiet)
    return adapter_launch(python, ADAPTER)
