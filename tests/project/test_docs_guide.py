"""The guide, findings and performance pages say what holds now; the lab notebook is History.

A dated run, a commit or the pass of an issue belongs in docs/history.md and
docs/history/; a page outside them states the figure with the command that gives it and
may link to the history entry. `tests/support/notebook.py` defines what counts (and
`python tests/support/notebook.py` prints the share); this test keeps the guide's
headings free of it, and its prose free of "issue N".
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from notebook import DOCS, FENCE, HEADING, guide_pages, notebook_heading, notebook_line
from paths import ROOT

# Lines left as they are, each with why (the page, then the start of the line). Pages other
# engineers rewrite for issue 33 are listed until their rewrite lands.
BEING_REWRITTEN = "another part of issue 33 rewrites this page"
KNOWN: dict[tuple[str, str], str] = {
    ("corpus.md", "    renamed: 2026-12-04"): "the alias format's own date field, as an example",
    ("fast-engine.md", "2026-12-04, 20:37 UTC"): BEING_REWRITTEN,
    ("results.md", "On branch `masking` (issue 22"): BEING_REWRITTEN,
    ("results.md", "adapter's own tree layout, issue 22"): BEING_REWRITTEN,
    ("results.md", "changes from run to run under the `dev`"): BEING_REWRITTEN,
}
ISSUE = re.compile(r"(?i)\bissues? #?\d+\b")


def _known(page: str, line: str) -> bool:
    return any(page == known_page and line.startswith(start) for known_page, start in KNOWN)


def _lines(path: Path) -> list[tuple[int, str, str | None]]:
    """(line number, text, the heading's title or None) of the lines outside fenced code."""
    out = []
    fenced = False
    for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            heading = HEADING.match(line)
            out.append((number, line, heading[2] if heading else None))
    return out


PAGES = [p.relative_to(DOCS).as_posix() for p in guide_pages()]


class TestGuidePages:
    """Every docs page outside docs/history.md and docs/history/."""

    def test_there_are_pages(self) -> None:
        assert len(PAGES) > 20
        assert "history.md" not in PAGES

    @pytest.mark.parametrize("page", PAGES)
    def test_no_heading_names_a_date_an_issue_or_a_pass(self, page: str) -> None:
        found = [
            f"{page}:{number}: {line}"
            for number, line, title in _lines(DOCS / page)
            if title is not None and notebook_heading(title) and not _known(page, line)
        ]
        assert found == [], "move the section to docs/history.md, or name what it holds"

    @pytest.mark.parametrize("page", PAGES)
    def test_prose_names_no_issue(self, page: str) -> None:
        found = [
            f"{page}:{number}: {line}"
            for number, line, _ in _lines(DOCS / page)
            if ISSUE.search(re.sub(r"\]\([^)\s]*\)", "]", line)) and not _known(page, line)
        ]
        assert found == [], "say what holds; the issue's story goes to docs/history.md"


class TestKnown:
    """The exceptions stay true."""

    def test_each_known_line_is_still_there_and_still_notebook(self) -> None:
        for (page, start), why in KNOWN.items():
            path = DOCS / page
            lines = path.read_text("utf-8").splitlines() if path.exists() else []
            matching = [line for line in lines if line.startswith(start)]
            if not matching and why == BEING_REWRITTEN:
                continue  # the rewrite took it out: drop it from KNOWN when it lands
            assert matching, f"{page}: no line starts {start!r}: drop it from KNOWN ({why})"
            assert any(notebook_line(line) or ISSUE.search(line) for line in matching)


def test_readme_links_to_the_history() -> None:
    assert "(docs/history.md)" in (ROOT / "README.md").read_text("utf-8")
