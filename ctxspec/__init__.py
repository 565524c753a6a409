"""ctxspec: the conformance suite, reference engine and benchmark harness for the context
layer of coding agents, pinned to Pi 0.85.0.

One import name holds everything: `ctxspec.reference` (the oracle), `ctxspec.fastengine`
(the fast engine beside it), `ctxspec.conformance` (the suite and its runner),
`ctxspec.benchmarks` and `ctxspec.corpora`. The repository keeps them as top-level
folders; pyproject.toml maps each into this namespace.
"""
