"""The suite's test modules, collected by `ctxspec conform` (pytest `--pyargs conformance.suite`)."""
