"""This package's own engines as implementations: in-process, or served over the wire.

- `reference`: the plain oracle (`reference/`), the default `--impl reference`; its
  `ops` hold the handlers, one module per concern, and `Engine`, the table of engine
  functions a handler calls (the bench ops and the grep that runs ripgrep among them);
- `fastengine`: the fast engine (`fastengine/`) through the same handlers, with its own
  `Engine` (`--impl fastengine`).

Each serves protocol v1 on stdio with `python -m ctxspec.conformance.engines.<name>`
(what `ctxspec bench` starts). Third-party implementations are in `harnesses/`.
"""
