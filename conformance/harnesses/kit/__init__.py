"""The harness kit: one protocol loop and one tree layout per language, shared by every harness.

- Python: `jsonlines` (the protocol v1 loop and `dispatch`), `tree` (virtual trees,
  with their confinement) and `model` (the scripted model on the loopback that a
  black-box agent is run against; its script in `model_script`, its three dialects'
  wire format in `model_wire`). Standard library only (and `ctxspec.reference.errors`):
  a PyPI port's adapter runs them in the port's own venv, where ctxspec is not installed
  (`conformance/transport/pyrun.py` makes them importable there).
- Node and Bun: `serve.mjs` (the loop), `tree.mjs` (the tree layout), `errors.mjs` (the
  errors an adapter chooses to give, and its own temp dir), `sessions.mjs` (session
  arguments and the guarded index).
"""
