"""Every repository path the protocol and the docs name exists.

A reader follows `conformance/schemas/ops/<concern>.schema.json` or
`harnesses/kit/tree.py` to a file; a path that names nothing (a file since renamed, a
schema that never existed) sends them nowhere. This test reads every code span and link
of conformance/PROTOCOL.md, README.md, corpora/README.md and docs/**/*.md, keeps the
tokens that name a repository path (their first segment is a file or folder of the
repository, at its root or beside the page: `schemas/...` in conformance/PROTOCOL.md is
conformance/schemas/...; or a bare `*.schema.json`, a protocol schema by its name), and
checks that each one exists. Placeholders (`<op>`, `<concern>`, `*`) match any name.

mkdocs (`nox -s docs`) checks the links between pages of the site; this test covers what
it cannot see: code spans, and the pages outside docs/.
"""

from __future__ import annotations

import re
import subprocess
from functools import cache
from pathlib import Path, PurePosixPath

import pytest
from paths import ROOT

PAGES = (
    ROOT / "README.md",
    ROOT / "conformance" / "PROTOCOL.md",
    ROOT / "corpora" / "README.md",
    *sorted((ROOT / "docs").rglob("*.md")),
)
# Pages about the past: they name files as they were when a figure was measured or a
# change was made, and say so.
PAST: dict[str, str] = {
    "docs/history.md": "the project's history names files since split, moved or deleted",
    "docs/history/corpus.md": "the corpus's history names files as they were",
    "docs/history/earlier-runs.md": "earlier runs name the scripts that made them",
    "docs/history/performance.md": "the runs name the code of their day, since moved or deleted",
}
# A path named as gone, or as another project's, with why (each stays named and missing).
NOT_OURS: dict[tuple[str, str], str] = {
    ("docs/agents.md", "docs/cli/trusted-folders.md"): "Gemini CLI's documentation",
    ("docs/fast-engine.md", "reference/_native.py"): "moved to fastengine/, as its table says",
    ("docs/fast-engine.md", "reference/_sessions.c"): "moved to fastengine/, as its table says",
    ("docs/fast-engine.md", "reference/_speedups.c"): "moved to fastengine/, as its table says",
    ("docs/fast-engine.md", "tests/test_reference_session_walks.py"): "the test the split ended",
}

FENCE = re.compile(r"^ {0,3}(```|~~~).*?^ {0,3}\1", re.S | re.M)
CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
PLACEHOLDER = re.compile(r"<[^<>/]+>")


@cache
def _listed() -> frozenset[str]:
    """The repository's files (tracked, or new and not ignored) and every folder of them."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT, capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the repository's files cannot be listed")
    names: set[str] = set()
    for line in out.splitlines():
        path = PurePosixPath(line)
        names.add(str(path))
        names.update(str(parent) for parent in path.parents if str(parent) != ".")
    return frozenset(names)


def _bases(page: Path) -> list[PurePosixPath]:
    """Where a path named on `page` may start: the page's folder, then each one above it."""
    folder = PurePosixPath(page.relative_to(ROOT).parent.as_posix())
    return [folder, *(p for p in folder.parents)]


def _token(word: str) -> str:
    """A word of a code span less what follows a path: punctuation, a line number, a
    fragment (`#/$defs/...`), a pytest node id (`::test`)."""
    word = word.strip("()[]{},;\"'")
    word = word.split("::", 1)[0].split("#", 1)[0]
    return re.sub(r":\d+$", "", word).rstrip(".,:;")


def named_paths(page: Path) -> list[str]:
    """The repository paths `page` names in its code spans, in order."""
    text = FENCE.sub("", page.read_text("utf-8"))
    return [token for span in CODE_SPAN.finditer(text) for token in _tokens(span.group(2), page)]


def _tokens(span: str, page: Path) -> list[str]:
    """The words of one code span on `page` that name a repository path."""
    listed, bases = _listed(), _bases(page)
    kept = []
    for word in span.split():
        token = _token(word)
        if "/" not in token:
            if token.endswith(".schema.json"):
                kept.append(token)
            continue
        first = token.split("/", 1)[0]
        if first in {"", ".", ".."} or PLACEHOLDER.search(first):
            continue
        if any(str(base / first).removeprefix("./") in listed for base in bases):
            kept.append(token)
    return kept


def resolves(page: Path, token: str) -> bool:
    """Whether `token` names an existing path from the page's folder or one above it; a
    bare schema name may also be one of the protocol's (conformance/schemas/)."""
    pattern = PLACEHOLDER.sub("*", token.rstrip("/"))
    if "/" not in pattern and any(ROOT.glob(f"conformance/schemas/**/{pattern}")):
        return True
    return any(
        any(ROOT.glob(str(base / pattern).removeprefix("./")))
        for base in _bases(page)
        if str(base) != "." or not pattern.startswith("/")
    )


def _relative(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


def _dead(page: Path) -> list[str]:
    return [
        token
        for token in named_paths(page)
        if not resolves(page, token) and (_relative(page), token) not in NOT_OURS
    ]


def _links(page: Path) -> list[str]:
    prose = CODE_SPAN.sub("", FENCE.sub("", page.read_text("utf-8")))
    return [
        target.split("#", 1)[0]
        for target in LINK.findall(prose)
        if not re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) and not target.startswith("#")
    ]


def _link_folder(page: Path) -> Path:
    """Where a page's relative links start: PROTOCOL.md is read on the site as
    docs/protocol.md, which includes it, so its links are written from docs/."""
    return ROOT / "docs" if page == ROOT / "conformance" / "PROTOCOL.md" else page.parent


CHECKED = [p for p in PAGES if _relative(p) not in PAST]


class TestNamedPaths:
    """Each page's code spans and links name paths that exist."""

    @pytest.mark.parametrize("page", CHECKED, ids=_relative)
    def test_code_spans_name_existing_paths(self, page: Path) -> None:
        assert _dead(page) == [], f"{_relative(page)} names paths that do not exist"

    @pytest.mark.parametrize("page", CHECKED, ids=_relative)
    def test_links_resolve(self, page: Path) -> None:
        folder = _link_folder(page)
        dead = [t for t in _links(page) if t and not (folder / t).exists()]
        assert dead == [], f"{_relative(page)} links to paths that do not exist"

    def test_protocol_names_its_schemas(self) -> None:
        """The check sees the schema paths the protocol names, placeholders included."""
        named = named_paths(ROOT / "conformance" / "PROTOCOL.md")
        assert "schemas/ops/<concern>.schema.json" in named
        assert "request.schema.json" in named

    @pytest.mark.parametrize(("page", "token"), sorted(NOT_OURS))
    def test_each_exception_is_still_named_and_missing(self, page: str, token: str) -> None:
        """The list of paths named as gone stays true."""
        assert token in named_paths(ROOT / page)
        assert not resolves(ROOT / page, token)


class TestReader:
    """How a page's paths are read and resolved."""

    def test_reads_paths_and_skips_virtual_ones(self, tmp_path: Path) -> None:
        page = ROOT / "docs" / "guide" / "x.md"  # never read: the text below is parsed
        text = (
            "`conformance/schemas/ops/<op>.schema.json` `/ws/AGENTS.md` `ws/AGENTS.md` "
            "`python tests/support/fake_impl.py hang` `reference/truncate.py:41` `ops.schema.json`"
        )
        found = [t for s in CODE_SPAN.finditer(text) for t in _tokens(s.group(2), page)]
        assert found == [
            "conformance/schemas/ops/<op>.schema.json",
            "tests/support/fake_impl.py",
            "reference/truncate.py",
            "ops.schema.json",
        ]

    def test_resolves_from_the_pages_package(self) -> None:
        protocol = ROOT / "conformance" / "PROTOCOL.md"
        assert resolves(protocol, "schemas/ops/<concern>.schema.json")
        assert resolves(protocol, "harnesses/kit/tree.py")
        assert not resolves(protocol, "ops.schema.json")
        assert resolves(protocol, "response.schema.json")
