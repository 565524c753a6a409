"""The suite's property names, as `--expectations` is checked against them before a run."""

from __future__ import annotations

from ctxspec.conformance.cli_args import suite_properties
from ctxspec.conformance.runner.expectations import default_expectations_file, load_expectations


def test_properties_parametrized_per_op_are_named() -> None:
    """A property parametrized by `suite.differential.per_op` carries its mark on each
    parameter, not on the function: it is a property of the suite all the same."""
    names = suite_properties()
    assert {"test_context_op_matches_reference", "test_session_op_matches_reference",
            "test_tool_matches_reference"} <= names  # fmt: skip


def test_every_shipped_expectations_file_names_properties_the_suite_has() -> None:
    for impl in ("pi@0.87.1", "pi@1.6.0", "pi-agents-py@0.58.3", "oh-my-pi@18.3.4"):
        path = default_expectations_file(impl)
        assert path is not None
        listed = {name.split("[", 1)[0] for name in load_expectations(path, impl).properties}
        assert listed <= suite_properties(), impl
