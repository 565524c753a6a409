"""Which lines of the docs are lab notebook rather than guide: how the share is counted.

The guide, findings and performance pages state what holds now; dated runs and the passes
of an issue belong in docs/history.md and docs/history/. A line counts as lab notebook when

- it sits under a notebook heading (down to the next heading of the same or a higher level),
  a heading that names a date, an issue, a pass, a commit or "earlier runs"; or
- it names one itself: a date (`2026-12-04`, `4 December`, `December 2026`), a clock time
  (`17:21 UTC`), `issue N`, `first pass`, or `commit 1a2b3c4` / `at 1a2b3c4`.

Upstream issue numbers (`openai/codex#13386`) are findings, not notebook, and do not count.

`python tests/support/notebook.py` prints the share over the guide (every docs page outside
the history) and the pages with notebook lines; tests/project/test_docs_guide.py keeps the
guide's headings free of them.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from paths import ROOT

__all__ = [
    "HISTORY",
    "Count",
    "count",
    "guide_pages",
    "is_history",
    "notebook_heading",
    "notebook_line",
]

DOCS = ROOT / "docs"
HISTORY = ("history.md", "history/")  # relative to docs/: the notebook's own home

_MONTH = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November|December)"
)
# each pattern, case-insensitive but for the month names; the table is what counts
NOTEBOOK_LINE = re.compile(
    "|".join(
        (
            r"\b20\d\d-\d\d-\d\d\b",  # 2026-12-04
            rf"\b\d{{1,2}} {_MONTH}\b",  # 4 December
            rf"\b{_MONTH} \d{{1,2}}\b",  # December 4, December 2026
            r"\b\d\d:\d\d(?:[–-]\d\d:\d\d)? UTC\b",  # 17:21 UTC
            r"(?i:\bissues? #?\d+\b)",  # issue 25, issues 12 and 13
            r"(?i:\b(?:first|second|third|fourth|fifth|last|earlier|later) pass\b)",
            r"(?i:\bpass [1-9]\b)",
            r"(?i:\b(?:commit|at|before|after|since) `?[0-9a-f]{7,10}\b)",
        )
    )
)
HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
FENCE = re.compile(r"^\s*(```|~~~)")
_HEX = re.compile(r"\b[0-9a-f]{7,10}\b")
_LINK_TARGET = re.compile(r"\]\([^)\s]*\)")  # a link to the history may name its date
_COMMIT_WORDS = {"commit", "at", "before", "after", "since"}
# a heading names a run or a pass with fewer words than a line must
_HEADING_ONLY = re.compile(r"(?i)\bearlier runs?\b|\bpass\b|\bmorning\b")


def notebook_line(line: str) -> bool:
    """Whether a line names a date, an issue, a pass or a commit.

    >>> notebook_line("the first run of the day (commit 7ca218a)")
    True
    >>> notebook_line("openai/codex#13386: the budget is cut in raw bytes")
    False
    >>> notebook_line("[the run](../history/performance.md#the-gate-on-2026-12-05)")
    False
    """
    match = NOTEBOOK_LINE.search(_LINK_TARGET.sub("]", line))
    if match is None:
        return False
    text = match.group(0)
    if text[:1].isalpha() and text.split()[0].lower() in {
        "commit",
        "at",
        "before",
        "after",
        "since",
    }:
        # a commit needs a hex word with a digit and a letter, not "at 2000000"
        word = _HEX.search(text)
        return (
            word is not None
            and any(c.isdigit() for c in word[0])
            and any(c in "abcdef" for c in word[0])
        )
    return True


def notebook_heading(title: str) -> bool:
    return notebook_line(title) or bool(
        re.search(r"(?i)\bearlier runs?\b|\bpass\b|\bmorning\b", title)
    )


@dataclass(frozen=True, slots=True)
class Count:
    page: str
    lines: int
    notebook: int


def count(path: Path, docs: Path = DOCS) -> Count:
    """The lines of a page, and how many of them are lab notebook (see the module)."""
    lines = path.read_text("utf-8").splitlines()
    under: int | None = None  # the level of the notebook heading we are under
    fenced = False
    notebook = 0
    for line in lines:
        if FENCE.match(line):
            fenced = not fenced
        heading = None if fenced else HEADING.match(line)
        if heading is not None:
            level = len(heading[1])
            if under is not None and level <= under:
                under = None
            if under is None and notebook_heading(heading[2]):
                under = level
        if under is not None or notebook_line(line):
            notebook += 1
    return Count(path.relative_to(docs).as_posix(), len(lines), notebook)


def is_history(relative: str) -> bool:
    return relative == HISTORY[0] or relative.startswith(HISTORY[1])


def guide_pages(docs: Path = DOCS) -> list[Path]:
    """Every Markdown page of docs/ outside the history."""
    return sorted(p for p in docs.rglob("*.md") if not is_history(p.relative_to(docs).as_posix()))


def _report(counts: Iterable[Count]) -> str:
    rows = sorted(counts, key=lambda c: -c.notebook)
    total = sum(c.lines for c in rows)
    notebook = sum(c.notebook for c in rows)
    out = [f"{notebook} of {total} lines ({100 * notebook / total:.1f}%) are lab notebook"]
    out += [f"  {c.notebook:5d} / {c.lines:5d}  {c.page}" for c in rows if c.notebook]
    return "\n".join(out)


def main(argv: list[str]) -> int:
    """`python tests/support/notebook.py [DOCS]`: the share over DOCS (default: docs/), e.g.
    an old commit's docs from `git archive COMMIT docs | tar -x -C DIR` (then DIR/docs)."""
    docs = Path(argv[0]) if argv else DOCS
    every = sorted(docs.rglob("*.md"))
    guide = [count(p, docs) for p in guide_pages(docs)]
    print("guide (docs/ outside history):", _report(guide))
    history = [p for p in every if is_history(p.relative_to(docs).as_posix())]
    print("history:", sum(len(p.read_text("utf-8").splitlines()) for p in history), "lines")
    print("all docs/:", _report(count(p, docs) for p in every).splitlines()[0])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
