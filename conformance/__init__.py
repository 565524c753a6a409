"""ctxspec's conformance suite: protocol v1, the runner, adapters, expectations."""

from __future__ import annotations

__version__ = "0.1.0"
# the case data's own version: bumped when cases are added, changed or withdrawn
DATA_VERSION = "2026.12.6"
