"""`families_table`: the docs' family lists are the generated ones, read from the code."""

from __future__ import annotations

from pathlib import Path

import pytest
from paths import ROOT

from ctxspec.conformance.tools.families_table import (
    BEGIN,
    END,
    KINDS,
    families,
    main,
    pages,
    render,
    rewrite,
)
from ctxspec.conformance.transport.named import FAMILIES
from ctxspec.conformance.transport.resolve import ENGINES

GUIDE = ROOT / "docs" / "guide" / "named-implementations.md"


def _block(name: str) -> str:
    return f"<!-- families_table: {name} -->\nanything\n{END}\n"


class TestPages:
    """The pages as committed."""

    def test_every_block_is_current(self) -> None:
        """Each page's blocks equal what `python -m ctxspec.conformance.tools.families_table`
        writes."""
        rows = families()
        stale = [
            str(path.relative_to(ROOT))
            for path in pages(ROOT)
            if (text := path.read_text("utf-8")) != rewrite(text, rows, where=str(path))
        ]
        assert stale == [], "stale: run python -m ctxspec.conformance.tools.families_table"

    def test_the_guide_holds_the_table(self) -> None:
        """The named-implementations guide lists the families through the table, not by hand."""
        assert "<!-- families_table: table -->" in GUIDE.read_text("utf-8")


class TestFamilies:
    """What the table reads from the code."""

    def test_names_every_family_and_engine(self) -> None:
        names = [row.name for row in families()]
        assert sorted(names) == sorted([*ENGINES, *FAMILIES])

    def test_every_kind_is_known(self) -> None:
        known = {kind for kind, _ in KINDS}
        assert {row.kind for row in families()} <= known

    def test_kinds_of_the_shipped_families(self) -> None:
        """The facts the kinds rest on: Pi's profile, the other agents' own profiles, the
        registry a port or a fork comes from."""
        kinds = {row.name: row.kind for row in families()}
        assert kinds["reference"] == "engine"
        assert kinds["pi"] == "Pi release"
        assert kinds["oh-my-pi"] == "fork"
        assert kinds["pi-agents-py"] == "port"
        assert kinds["codex"] == "agent"

    def test_every_expectations_file_has_its_family(self) -> None:
        """Each shipped expectations file shows up under the family it names."""
        folder = ROOT / "conformance" / "expectations"
        shipped = {f"{name}.yaml" for row in families() for name in row.shipped}
        files = {path.name for path in folder.glob("*.yaml")}
        assert {name.replace("@", "-") for name in {s.removesuffix(".yaml") for s in shipped}} == {
            f.removesuffix(".yaml") for f in files
        }


class TestRewrite:
    """The markers and what goes between them."""

    def test_replaces_only_the_block(self) -> None:
        text = "before\n" + _block("shipped") + "after\n"
        new = rewrite(text, families())
        assert new.startswith("before\n<!-- families_table: shipped -->\n\n")
        assert new.endswith(f"\n\n{END}\nafter\n")
        assert "anything" not in new
        assert rewrite(new, families()) == new

    def test_a_block_without_its_end_is_refused(self) -> None:
        with pytest.raises(ValueError, match="has no"):
            rewrite("<!-- families_table: table -->\n", families(), where="page.md")

    def test_an_unknown_block_is_refused(self) -> None:
        with pytest.raises(ValueError, match="no block 'nosuch'"):
            render("nosuch", families())

    def test_the_end_marker_opens_no_block(self) -> None:
        assert BEGIN.search(END) is None


class TestCommand:
    """`python -m ctxspec.conformance.tools.families_table [--root DIR] [--check]`."""

    def test_writes_then_checks(self, tmp_path: Path) -> None:
        (tmp_path / "docs").mkdir()
        page = tmp_path / "docs" / "page.md"
        page.write_text("# Page\n" + _block("table"), "utf-8")
        (tmp_path / "README.md").write_text("# Readme\n", "utf-8")
        assert main(["--root", str(tmp_path), "--check"]) == 1
        assert main(["--root", str(tmp_path)]) == 0
        assert "| `pi` | Pi release |" in page.read_text("utf-8")
        assert main(["--root", str(tmp_path), "--check"]) == 0
