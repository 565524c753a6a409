"""The exit table (`ctxspec.exits`): one meaning per status, every command's rows, and the
docs page generated from it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from paths import ROOT

from ctxspec import exits
from ctxspec.cli import main, registered


class TestTable:
    """The table itself and the commands it names."""

    def test_each_status_has_one_row_and_one_name(self) -> None:
        """A status is one number and one constant name, never two meanings."""
        statuses = [row.status for row in exits.EXITS]
        names = [row.name for row in exits.EXITS]
        assert len(set(statuses)) == len(statuses) and len(set(names)) == len(names)
        assert all(getattr(exits, row.name) == row.status for row in exits.EXITS)

    def test_every_command_it_names_is_registered(self) -> None:
        """A row names a registered command (or one of its actions: `expectations write`)."""
        names = {command.name for command in registered()}
        assert {name.split()[0] for name in exits.commands()} == names

    def test_every_registered_command_has_its_rows(self) -> None:
        """Each command's `--help` ends with its statuses: 0 and 2 at least."""
        for command in registered():
            for name in command.exit_rows or (command.name,):
                assert {exits.OK, exits.USAGE} <= set(exits.statuses(name)), name

    def test_help_ends_with_the_commands_statuses(self, capsys: pytest.CaptureFixture[str]) -> None:
        with pytest.raises(SystemExit):
            main(["sweep", "--help"])
        help_text = capsys.readouterr().out
        assert "exit status (docs/guide/exit-statuses.md):" in help_text
        assert "  4 the reference differs from the oracle" in help_text


class TestPage:
    """docs/guide/exit-statuses.md is `python -m ctxspec.exits --markdown`."""

    def test_the_committed_page_is_the_generated_one(self) -> None:
        page = ROOT / exits.PAGE
        assert page.read_text("utf-8") == exits.markdown(), (
            f"{exits.PAGE} is stale: python -m ctxspec.exits --markdown > {exits.PAGE}"
        )

    def test_check_fails_on_a_stale_page(self, tmp_path: Path) -> None:
        stale = tmp_path / "page.md"
        stale.write_text("# Exit statuses\n", "utf-8")
        assert exits.main(["--check", "--page", str(stale)]) == exits.FAILED
        stale.write_text(exits.markdown(), "utf-8")
        assert exits.main(["--check", "--page", str(stale)]) == exits.OK

    def test_markdown_is_printed_by_the_module(self) -> None:
        done = subprocess.run(
            [sys.executable, "-m", "ctxspec.exits", "--markdown"],
            capture_output=True,
            text=True,
            check=True,
        )
        assert done.stdout == exits.markdown()

    def test_no_other_page_restates_a_table_of_statuses(self) -> None:
        """The other pages link to the generated one instead of keeping a table of their
        own (rows `| 0 |` and `| 1 |`); the history keeps what was true then."""
        pages = [p for p in (ROOT / "docs").rglob("*.md") if p != ROOT / exits.PAGE]
        restating = [
            str(page.relative_to(ROOT))
            for page in pages
            if not page.relative_to(ROOT / "docs").parts[0].startswith("history")
            and {"| 0 |", "| 1 |"} <= {line[:5] for line in page.read_text("utf-8").splitlines()}
        ]
        assert restating == []
