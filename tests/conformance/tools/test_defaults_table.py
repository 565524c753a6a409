"""`defaults_table`: the committed page is the generated one, read from the reference."""

from __future__ import annotations

from pathlib import Path

import pytest
from paths import ROOT

from ctxspec import reference
from ctxspec.conformance.protocol import OPS
from ctxspec.conformance.tools.defaults_table import DEFAULTS, OUT, main, page, value_of
from ctxspec.reference.summary import SUMMARY_CALLS


class TestPage:
    """docs/guide/defaults.md as committed."""

    def test_committed_page_is_generated(self) -> None:
        """The page equals what `python -m ctxspec.conformance.tools.defaults_table` writes."""
        committed = (ROOT / OUT).read_text("utf-8")
        assert committed == page(), (
            f"{OUT} is stale: python -m ctxspec.conformance.tools.defaults_table"
        )

    def test_names_every_op(self) -> None:
        """Every op of protocol v1 but `hello` is on the page: in a row or in a list."""
        text = page()
        assert [op for op in OPS if op != "hello" and f"`{op}`" not in text] == []

    def test_shows_the_truncation_defaults(self) -> None:
        """The numbers a port author asks for first are there, as the reference has them."""
        text = page()
        assert f"`{reference.DEFAULT_MAX_LINES}`" in text
        assert f"`{reference.DEFAULT_MAX_BYTES}`" in text


class TestValueOf:
    """Where a row's value is read."""

    def test_every_row_resolves(self) -> None:
        """Each row names a constant, attribute or parameter default that exists."""
        for row in DEFAULTS:
            assert value_of(row.source) is not None, row.source

    def test_reads_an_attribute_and_a_key(self) -> None:
        assert value_of(
            "ctxspec.reference.compaction:DEFAULT_COMPACTION_SETTINGS.reserve_tokens"
        ) == (reference.DEFAULT_COMPACTION_SETTINGS.reserve_tokens)
        assert value_of("ctxspec.reference.summary:SUMMARY_CALLS.reply") == SUMMARY_CALLS["reply"]

    def test_reads_a_parameter_default(self) -> None:
        assert value_of("ctxspec.reference.skills:load_skills(include_defaults)") is True

    def test_a_parameter_without_default_is_refused(self) -> None:
        with pytest.raises(ValueError, match="no default"):
            value_of("ctxspec.reference.skills:load_skills(cwd)")


class TestCommand:
    """`python -m ctxspec.conformance.tools.defaults_table [--out FILE] [--check]`."""

    def test_writes_then_checks(self, tmp_path: Path) -> None:
        out = tmp_path / "defaults.md"
        assert main(["--out", str(out), "--check"]) == 1  # missing is stale
        assert main(["--out", str(out)]) == 0
        assert out.read_text("utf-8") == page()
        assert main(["--out", str(out), "--check"]) == 0

    def test_check_fails_on_a_stale_page(self, tmp_path: Path) -> None:
        out = tmp_path / "defaults.md"
        out.write_text(page().replace("`2000`", "`3000`"), "utf-8")
        assert main(["--out", str(out), "--check"]) == 1
