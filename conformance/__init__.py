"""ctxspec's conformance suite: protocol v1, the runner, adapters, expectations."""

from __future__ import annotations

# the case data's own version, bumped when cases are added, changed or withdrawn (the
# package's version is `ctxspec.__version__`, from its metadata)
DATA_VERSION = "2026.12.6"
