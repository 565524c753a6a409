"""`ctxspec bench`: the one benchmark path, every figure over protocol v1.

- `requests`: a session length's figures and their requests, the sizes read; the
  requests themselves are the bench extension's (`ctxspec.conformance.bench_requests`).
- `answers`: whether an answer can be taken (the reference's, digests, `Suspect`).
- `measure`: an implementation's process, its rounds, its clock judged, its peak memory.
- `estimates`: each implementation's token estimate against real token counts.
- `run`: the command: everything measured, the report written, the gate checked.
- `instructions`: the instruction counts of the engines' own ops, under Callgrind.
- `report`, `plots`: `report.md` and the four plots; `compare`: the gate (ratios and
  instruction counts) and `baseline.json`.
"""
