"""The README stays a short front page whose links resolve; its test command is what CI runs.

The docs site itself is checked by `nox -s docs` (`mkdocs build --strict`: broken links and
anchors between pages, missing includes and pages left out of the nav are errors). What
mkdocs cannot see is README.md, which sits outside docs/ and links into the repository.
"""

from __future__ import annotations

import ast
import re
import shlex
import unicodedata
from pathlib import Path

import pytest
from paths import ROOT

README = ROOT / "README.md"
MAX_README_LINES = 150

# [text](target) outside code; an image's ![alt](target) is a link too
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
CODE_SPAN = re.compile(r"`[^`\n]*`")


def _links(markdown: str) -> list[str]:
    """The link targets of a Markdown text, fenced code and code spans left out."""
    prose = CODE_SPAN.sub("", FENCE.sub("", markdown))
    return LINK.findall(prose)


def _slug(heading: str) -> str:
    """A heading's anchor as Python-Markdown's toc extension (mkdocs) and GitHub make it
    for plain headings: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"`([^`]*)`", r"\1", heading)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = unicodedata.normalize("NFKD", text)
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def _anchors(markdown: str) -> set[str]:
    prose = FENCE.sub("", markdown)
    return {_slug(m) for m in re.findall(r"^#{1,6}\s+(.+?)\s*#*\s*$", prose, re.M)}


def _relative_links(path: Path) -> list[str]:
    return [
        target
        for target in _links(path.read_text(encoding="utf-8"))
        if not re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I)  # http:, https:, mailto:
    ]


class TestReadme:
    """README.md: short, every relative link resolving, the CI command in step."""

    def test_is_at_most_150_lines(self) -> None:
        lines = README.read_text(encoding="utf-8").splitlines()
        assert len(lines) <= MAX_README_LINES, f"README.md has {len(lines)} lines"

    def test_has_relative_links(self) -> None:
        """The check below checks something: the README links into the repository."""
        assert len(_relative_links(README)) >= 10

    @pytest.mark.parametrize("target", sorted(set(_relative_links(README))))
    def test_relative_link_resolves(self, target: str) -> None:
        path, _, anchor = target.partition("#")
        file = (README.parent / path).resolve() if path else README
        assert file.is_relative_to(ROOT), f"{target} leaves the repository"
        assert file.exists(), f"{target}: no such file in the repository"
        if anchor and file.suffix == ".md":
            anchors = _anchors(file.read_text(encoding="utf-8"))
            assert anchor in anchors, f"{target}: no heading with anchor #{anchor}"

    def test_test_command_is_what_ci_and_nox_run(self) -> None:
        """The README's second command, `.ci/run` and nox's default sessions name the same
        sessions in the same order."""
        readme = README.read_text(encoding="utf-8")
        block = readme.split("```sh\n", 1)[1].split("```", 1)[0].splitlines()
        assert len(block) >= 2
        ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
        ci_command = [
            line for line in ci.splitlines() if re.match(r"^\s*(python3? -m )?nox -s ", line)
        ]
        assert len(ci_command) == 1, ci_command
        noxfile = (ROOT / "noxfile.py").read_text(encoding="utf-8")
        default = re.search(r"^nox\.options\.sessions = (\[.*?\])$", noxfile, re.M)
        assert default is not None

        def sessions(command: str) -> list[str]:
            words = shlex.split(command.split("#", 1)[0].rsplit("&&", maxsplit=1)[-1])
            return words[words.index("-s") + 1 :]

        assert sessions(block[1]) == sessions(ci_command[0]) == ast.literal_eval(default[1])
        assert "docs" in ast.literal_eval(default[1])


class TestLinkCheck:
    """The link reader the README check relies on."""

    def test_reads_links_and_skips_code(self) -> None:
        text = "[a](x.md) `[b](y.md)` ![c](img.png)\n```\n[d](z.md)\n```\n[e](https://e.org)\n"
        assert _links(text) == ["x.md", "img.png", "https://e.org"]

    def test_slugs_as_the_toc_extension(self) -> None:
        assert _slug("The runner's bounds") == "the-runners-bounds"
        assert _slug("Any implementation: `ctxspec bench --impl`") == (
            "any-implementation-ctxspec-bench-impl"
        )
        assert _slug("The reference against Pi 0.85.0") == "the-reference-against-pi-0850"

    def test_a_missing_file_is_found(self, tmp_path: Path) -> None:
        page = tmp_path / "page.md"
        page.write_text("[gone](nowhere.md) [here](page.md)\n", encoding="utf-8")
        missing = [t for t in _relative_links(page) if not (tmp_path / t).exists()]
        assert missing == ["nowhere.md"]
