"""Harnesses: one package per implementation family, each its install and its adapter.

- `reference`, `fastengine`: this package's own engines, answered in-process (or served
  over the wire with `python -m ctxspec.conformance.harnesses.<name>`); `reference.ops` holds the
  handlers, one module per concern;
- `pi`: the real Pi at any published version (npm), its Node adapter and locks;
- `oh_my_pi`: the fork `@oh-my-pi/pi-coding-agent`, run on Bun;
- `pi_agents_py`, `pi_agent_harness_lc`: the PyPI ports, each in a private venv;
- `gemini_cli`: Gemini CLI's core `@google/gemini-cli-core`, in-process on Node (the agent
  ops of protocol 1.4);
- `kit`: what every harness of a language shares: one protocol loop and one tree layout
  per language (`jsonlines.py` + `tree.py` for Python, `serve.mjs` + `tree.mjs` for Node
  and Bun), and `npm_lock.py`, the committed lock of an npm-installed harness.

A family's package has `install(version, *, quiet) -> Launch` (see
`ctxspec.conformance.transport.named`). Adapters convert shapes between protocol v1 and the
implementation's API and never fix behaviour: what an implementation does differently is
a finding for its expectations file (`conformance/expectations/`).
"""
