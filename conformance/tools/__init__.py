"""Tools built on the suite: `fuzz`, `matrix`, `changelog`, `expectations_write`, `sweep`.

Each runs implementations through the core (`ctxspec.conformance.runner.results`, `ctxspec.conformance.judging.check`,
`ctxspec.conformance.transport`); nothing in the core imports a tool.
"""
