"""Tools built on the suite: `fuzz`, `matrix`, `changelog`, `expectations_write`, `sweep`.

Each runs implementations through the core (`conformance.results`, `conformance.check`,
`conformance.transport`); nothing in the core imports a tool.
"""
