"""ctxspec's corpus: language-neutral case files (YAML) and generators of large inputs."""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable

__all__ = ["cases_root"]


def cases_root() -> Traversable:
    """The `cases/` folder, as installed (works from a wheel, not only a checkout)."""
    return resources.files(__name__).joinpath("cases")
