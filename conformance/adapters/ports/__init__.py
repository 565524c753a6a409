"""Forks and ports of Pi from the registries, each installed on first use into the cache.

One module per implementation, each with `install(version, *, quiet) -> Launch` (see
`conformance.adapters.named`). Their adapters convert shapes between protocol v1 and the
implementation's API and never fix behaviour: what a port does differently is a finding
for its expectations file.
"""
