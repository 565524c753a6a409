"""Tools built on the suite: `fuzz`, `matrix`, `changelog`, `expectations_write`, `sweep`.

Each runs implementations through the runner, judging and transport (`conformance/runner/`,
`conformance/judging/`, `conformance/transport/`); nothing there imports a tool.
"""
