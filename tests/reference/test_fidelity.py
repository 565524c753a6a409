"""The reference's ignore rules, JavaScript regular expressions, path forms, themes and
packages (issue 22, item 6): the rules the corpus pins, checked from Python."""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path

import pytest

from ctxspec.conformance.harnesses import pi as pi_adapter
from ctxspec.reference._jsregex import JsSyntaxError, canonical_unit, compile_js, units
from ctxspec.reference.errors import InvalidInput
from ctxspec.reference.ignore import IgnoreMatcher, IgnoreRuleError, scan_patterns
from ctxspec.reference.packages import resolve, resolve_sources
from ctxspec.reference.paths import is_local_path, resolve_path
from ctxspec.reference.resources import load_resources
from ctxspec.reference.skills import load_skills
from ctxspec.reference.themes import dedupe_themes, load_themes, theme_error
from ctxspec.reference.tree import Listing

SKILL = "---\nname: {name}\ndescription: d\n---\n"
COLORS = '"muted": 1, "text": "", "thinkingXhigh": 3, "selectedBg": 2'


def _matcher(*patterns: str) -> IgnoreMatcher:
    matcher = IgnoreMatcher()
    matcher.add(patterns)
    return matcher


class TestIgnoreLines:
    """IGN-1: how Pi turns an ignore file's lines into patterns."""

    def test_comments_blanks_and_prefix(self) -> None:
        """Comments and blank lines go; a nested file's lines are prefixed, `/` dropped."""
        text = "# c\n\n  \n/build\n!keep.md\r\nsrc/*.md\n"
        assert scan_patterns(text, "sub/") == ["sub/build", "!sub/keep.md", "sub/src/*.md"]

    def test_escaped_bang_at_root_is_a_negation(self) -> None:
        """`\\!x` loses its backslash: at the root it reads as `!x`, below as `sub/!x`."""
        assert scan_patterns("\\!x\n", "") == ["!x"]
        assert scan_patterns("\\!x\n", "sub/") == ["sub/!x"]

    def test_indented_comment_dropped_indented_bang_kept(self) -> None:
        """A line is a comment by its trimmed text; `!` counts only in the first column."""
        assert scan_patterns("  # c\n  !x\n", "") == ["  !x"]


class TestIgnoreMatching:
    """IGN-2: the ignore package's matching, as Pi uses it."""

    def test_last_match_wins_and_parents_stay_ignored(self) -> None:
        """A later `!` rule re-includes, but not below an ignored directory."""
        matcher = _matcher("*.md", "!keep.md", "drafts/", "!drafts/a.md")
        assert [matcher.ignores(p) for p in ("a.md", "keep.md", "drafts/a.md")] == [
            True,
            False,
            True,
        ]

    def test_slash_anchors_and_trailing_slash_means_directory(self) -> None:
        """`sub/c` matches only there; `c/` only a directory (tested with a final `/`)."""
        matcher = _matcher("sub/c", "d/")
        assert matcher.ignores("sub/c/") and not matcher.ignores("sub/x/c/")
        assert matcher.ignores("x/d/") and not matcher.ignores("x/d")

    def test_case_insensitive_by_javascript_rules(self) -> None:
        """`DRAFTS` matches `drafts`; `ſ` upper-cases to ASCII `S`, so it stays itself."""
        assert _matcher("DRAFTS").ignores("drafts")
        assert not _matcher("s").ignores("\u017f")

    def test_question_mark_is_one_utf16_unit(self) -> None:
        """`?` matches one code unit: an astral character is two."""
        assert not _matcher("a?").ignores("a\U0001f642")
        assert _matcher("a??").ignores("a\U0001f642")

    def test_broken_rule_throws_when_tried(self) -> None:
        """IGN-4: `[a/b` is an expression V8 rejects; tried, it throws."""
        with pytest.raises(IgnoreRuleError, match="Unterminated character class"):
            _matcher("[a/b").ignores("x")
        assert _matcher("x", "[a/b").ignores("x")  # an ignored path never tries it

    def test_trailing_escaped_star_is_a_wildcard(self) -> None:
        """The package reads a final `\\*` as `*`: `a\\*` matches `abc`."""
        assert _matcher("a\\*").ignores("abc")


class TestJsRegex:
    """`ctxspec.reference._jsregex`: V8's reading of an expression, without the `u` flag."""

    def test_units_and_canonical(self) -> None:
        assert units("a\U0001f642") == "a\ud83d\ude42"
        assert [canonical_unit(c) for c in "aß\u0131"] == ["A", "ß", "\u0131"]

    def test_annex_b_syntax(self) -> None:
        """`\\d` is a digit, `[]` nothing, `[^]` anything, a lone `]` itself."""
        assert compile_js("^\\d$").test("7")
        assert not compile_js("a[]").test("a")
        assert compile_js("a[^]").test("a\n")
        assert compile_js("]").test("]")

    @pytest.mark.parametrize("source", ["[a", "a)", "(a", "[z-a]", "a\\"])
    def test_invalid_sources_raise(self, source: str) -> None:
        with pytest.raises(JsSyntaxError):
            compile_js(source)


@pytest.fixture(scope="module")
def node_ignore() -> tuple[Path, Path]:
    install = pi_adapter.ensure_installed(quiet=True)
    return install.node, install.root / "node_modules" / "ignore"


def test_ignore_matches_the_ignore_package(node_ignore: tuple[Path, Path], tmp_path: Path) -> None:
    """IGN-2: 400 drawn pattern sets and paths (seed 22) answer as ignore 7 answers."""
    node, package = node_ignore
    draw = random.Random(22)
    alphabet = "ab/*?[]!\\ .#-A\u017f\t"
    cases = []
    for _ in range(400):
        patterns = [
            "".join(draw.choice(alphabet) for _ in range(draw.randint(1, 7))) for _ in range(3)
        ]
        paths = ["/".join("".join(draw.choice("abAB.z*? ") for _ in range(2)) for _ in range(2))]
        cases.append({"patterns": patterns, "paths": [p for p in paths if not p.startswith(".")]})
    script = tmp_path / "ignore.cjs"
    script.write_text(
        "const ignore = require(process.argv[2]);\n"
        "const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));\n"
        "console.log(JSON.stringify(cases.map(({patterns, paths}) => {\n"
        "  const ig = ignore(); ig.add(patterns);\n"
        "  return paths.map((p) => { try { return ig.ignores(p); } catch { return 'throws'; } });\n"
        "})));\n"
    )
    completed = subprocess.run(
        [str(node), str(script), str(package)],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        check=True,
    )
    for case, answers in zip(cases, json.loads(completed.stdout), strict=True):
        matcher = IgnoreMatcher()
        matcher.add(case["patterns"])
        for path, answer in zip(case["paths"], answers, strict=True):
            try:
                mine: bool | str = matcher.ignores(path)
            except IgnoreRuleError:
                mine = "throws"
            assert mine == answer, (case["patterns"], path)


class TestPaths:
    """PATH-1: explicit resource paths as users write them."""

    def test_trim_relative_and_home(self) -> None:
        assert resolve_path(" a/../b\t", cwd="/ws", home=None, field="f") == "/ws/b"
        assert resolve_path("~", cwd="/ws", home="/h", field="f") == "/h"
        assert resolve_path("~u/x", cwd="/ws", home="/h", field="f") == "/ws/~u/x"
        assert resolve_path("   ", cwd="/ws", home=None, field="f") == "/ws"

    def test_file_url_and_missing_home_refused(self) -> None:
        with pytest.raises(InvalidInput) as caught:
            resolve_path("file:///etc", cwd="/ws", home=None, field="skillPaths")
        assert caught.value.field == "skillPaths"
        with pytest.raises(InvalidInput) as caught:
            resolve_path("~/x", cwd="/ws", home=None, field="skillPaths")
        assert caught.value.field == "home"

    def test_package_sources_are_not_local(self) -> None:
        assert [is_local_path(v) for v in ("npm:x", " git:y", "https://z", "./a")] == [
            False,
            False,
            False,
            True,
        ]

    def test_skills_load_reports_resolved_paths(self) -> None:
        tree = Listing.from_wire({"ws/s/a/SKILL.md": SKILL.format(name="a")})
        result = load_skills(
            tree, cwd="/ws", agent_dir="/agent", skill_paths=[" s ", "gone"], include_defaults=False
        )
        assert [s.file_path for s in result.skills] == ["/ws/s/a/SKILL.md"]
        assert [d.path for d in result.diagnostics] == ["/ws/gone"]


class TestThemes:
    """THEME-1..3: theme files as the loader reads them."""

    @pytest.mark.parametrize(
        ("text", "message"),
        [
            ("{x", "Failed to parse theme /t.json: <SyntaxError>"),
            ('{"name": "t"}', 'Invalid theme "/t.json": expected an object with a "colors" map.'),
            ('{"colors": null}', "<TypeError>"),  # reading a colour of null
            ('{"colors": {' + COLORS + ', "x": "v"}}', "Variable reference not found: v"),
            ('{"colors": {' + COLORS + ', "x": "v"}, "vars": 5}', "<TypeError>"),  # `in` on 5
            ('{"colors": {' + COLORS + ', "x": true}}', "<TypeError>"),  # true.startsWith
            ('{"colors": {' + COLORS + ', "x": "#0x0000"}}', "Invalid hex color: #0x0000"),
        ],
    )
    def test_why_a_theme_does_not_load(self, text: str, message: str) -> None:
        assert theme_error(text, "/t.json") == message

    def test_loads_and_collisions(self) -> None:
        theme = '{"name": %s, "colors": {' + COLORS + "}}"
        tree = Listing.from_wire(
            {
                f"t/{n}.json": theme % name
                for n, name in (("a", '"x"'), ("b", '"x"'), ("c", "5"), ("d", '"5"'))
            }
            | {"t/e.txt": "x"}
        )
        themes, warnings = load_themes(tree, ["/t", "/t/e.txt", "/gone"])
        assert [w.message for w in warnings] == [
            "theme path is not a json file",
            "theme path does not exist",
        ]
        kept, collisions = dedupe_themes(themes)
        assert [t.name for t in kept] == ["x", 5, "5"]
        assert [c.message for c in collisions] == ['name "x" collision']


class TestPackagesAndExtensions:
    """EXT-1, PKG-1, PKG-2: what the package manager hands the loader."""

    def test_explicit_directory_is_a_package(self) -> None:
        tree = Listing.from_wire(
            {"p/extensions/e.ts": "x", "p/skills/s/SKILL.md": SKILL.format(name="s"), "q/r.md": "x"}
        )
        found = resolve_sources(tree, ["/p", "/q"], cwd="/ws", home="/h")
        assert [r.path for r in found["extensions"]] == ["/p/extensions/e.ts", "/q"]
        assert [r.path for r in found["skills"]] == ["/p/skills/s/SKILL.md"]
        assert {r.origin.origin for r in found["skills"]} == {"package"}

    def test_package_sources_need_an_install(self) -> None:
        with pytest.raises(InvalidInput) as caught:
            resolve_sources(Listing.from_wire({}), ["npm:x"], cwd="/ws", home="/h")
        assert caught.value.field == "additionalExtensionPaths"
        tree = Listing.from_wire({"agent/settings.json": '{"packages": ["git:github.com/a/b"]}'})
        with pytest.raises(InvalidInput):
            resolve(tree, cwd="/ws", agent_dir="/agent", home="/h", trusted=True)

    def test_extension_paths_in_loader_order(self) -> None:
        tree = Listing.from_wire(
            {
                "x/one.ts": "x",
                "ws/.pi/extensions/p.ts": "x",
                "agent/extensions/index.ts": "x",
                "agent/extensions/other.ts": "x",
            }
        )
        result = load_resources(
            tree,
            cwd="/ws",
            agent_dir="/agent",
            home="/h",
            additional_extension_paths=["/x/one.ts", "/x/no.ts"],
        )
        assert result.extension_paths == (
            "/x/one.ts",
            "/ws/.pi/extensions/p.ts",
            "/agent/extensions/index.ts",
        )
        assert result.extension_errors == (("/x/no.ts", "Extension path does not exist: /x/no.ts"),)
