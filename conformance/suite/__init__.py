"""The suite's test modules, collected by `ctxspec conform` (`--pyargs conformance.suite`)."""
