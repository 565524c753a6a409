"""The harness kit: one protocol loop and one tree layout per language, shared by every harness.

- Python: `jsonlines` (the protocol v1 loop and `dispatch`), `tree` (virtual trees, with
  their confinement), and `pyrun.py` (runs a PyPI port's adapter in the port's own venv
  with these two modules). Standard library only (and `reference.errors`): they run in
  the ports' venvs, where ctxspec is not installed.
- Node and Bun: `serve.mjs` (the loop), `tree.mjs` (the tree layout), `errors.mjs` (the
  errors an adapter chooses to give, and its own temp dir).
"""
