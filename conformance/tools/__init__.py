"""Tools built on the suite: `fuzz`, `matrix`, `changelog`, `expectations_write`, `sweep`.

Each runs implementations through the core (`ctxspec.conformance.results`, `ctxspec.conformance.check`,
`ctxspec.conformance.transport`); nothing in the core imports a tool.
"""
