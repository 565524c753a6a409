"""The suite's test modules, collected by `ctxspec conform`
(`--pyargs ctxspec.conformance.suite`)."""
