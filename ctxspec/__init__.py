"""ctxspec: the conformance suite, reference engine and benchmark harness for the context
layer of coding agents, pinned to Pi 0.85.0.

One import name holds everything: `ctxspec.reference` (the oracle), `ctxspec.fastengine`
(the fast engine beside it), `ctxspec.conformance` (the suite and its runner),
`ctxspec.benchmarks` and `ctxspec.corpora`. The repository keeps them as top-level
folders; setup.py maps each into this namespace.

This package itself is the small core of the command line: `ctxspec.cli` (the parser and
the registry the subpackages add their commands to) and `ctxspec.exits` (every exit
status). `ctxspec.__version__` is read from the installed package's metadata, so the
version is written once, in pyproject.toml.
"""

from __future__ import annotations


def __getattr__(name: str) -> str:
    """`__version__`, read when first asked for (importing `ctxspec.reference` does not
    read the metadata)."""
    if name == "__version__":
        from importlib.metadata import version  # noqa: PLC0415  (only when asked for)

        return version("ctxspec")
    raise AttributeError(f"module 'ctxspec' has no attribute {name!r}")
