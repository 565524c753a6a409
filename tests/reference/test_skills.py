"""The reference's skill loading and its front matter reader (YAML 1.2 core, as Pi's `yaml`)."""

from __future__ import annotations

import math

import pytest

from ctxspec.reference.frontmatter import FrontmatterError, parse_frontmatter
from ctxspec.reference.skills import format_skills_for_prompt, load_skills, parse_skill_file
from ctxspec.reference.tree import Listing


def _front(text: str) -> object:
    return parse_frontmatter(f"---\n{text}\n---\nbody\n")[0]


class TestCoreSchema:
    """Plain scalars resolve by the YAML 1.2 core schema, not PyYAML's 1.1 rules."""

    def test_yes_on_are_strings(self) -> None:
        """`yes`, `on`, `no` stay strings; only true/True/TRUE are true."""
        assert _front("a: yes\nb: on\nc: True\nd: TRUE\ne: tRue") == {
            "a": "yes",
            "b": "on",
            "c": True,
            "d": True,
            "e": "tRue",
        }

    def test_numbers(self) -> None:
        """`012` is decimal, `0o7` octal, `1_000` and dates strings, big ints doubles."""
        front = _front("a: 012\nb: 0o7\nc: 1_000\nd: 2001-12-14\ne: 123456789012345678901")
        assert front == {
            "a": 12,
            "b": 7,
            "c": "1_000",
            "d": "2001-12-14",
            "e": 1.2345678901234568e20,
        }
        assert math.isinf(_front("x: -.inf")["x"])  # type: ignore[index]

    def test_nulls_and_merge_key(self) -> None:
        """`~`, `Null`, nothing are null; `<<` is an ordinary key."""
        assert _front("a: ~\nb: Null\nc:\n<<: {x: 1}") == {
            "a": None,
            "b": None,
            "c": None,
            "<<": {"x": 1},
        }

    def test_block_scalar_keeps_final_newline(self) -> None:
        """A `|` block on the last line before `---` ends with its line break."""
        assert _front("d: |\n  line") == {"d": "line\n"}

    def test_anchor_redefined(self) -> None:
        """An anchor may be set twice; unknown tags keep the plain scalar."""
        assert _front("a: &x 1\nb: &x 2\nc: *x\nd: !custom v") == {"a": 1, "b": 2, "c": 2, "d": "v"}

    def test_empty_and_non_mapping(self) -> None:
        """An empty block is `{}`; a list stays a list (callers read no keys from it)."""
        assert parse_frontmatter("---\n---\n") == ({}, "")
        assert _front("- a") == ["a"]


class TestErrors:
    """YAML errors carry the wording and position suffix of Pi's `yaml`."""

    @pytest.mark.parametrize(
        ("block", "message"),
        [
            ("a: 1\na: 2", "Map keys must be unique at line 2, column 1:\n\na: 1\na: 2\n^\n"),
            (
                "a:\n\t- x",
                "Tabs are not allowed as indentation at line 2, column 1:\n\na:\n\t- x\n^\n",
            ),
            ('n: "abc', 'Missing closing "quote at line 1, column 8:\n\nn: "abc\n       ^\n'),
            (
                "n: @x",
                "Plain value cannot start with reserved character @ at line 1, column 4:"
                "\n\nn: @x\n   ^\n",
            ),
            (
                "a: b: c",
                "Nested mappings are not allowed in compact mappings at line 1, column 4:"
                "\n\na: b: c\n   ^\n",
            ),
            ("n: *nope", "Unresolved alias (the anchor must be set before the alias): nope"),
            (
                "a: 1\n...\n  b: 2",
                "Source contains multiple documents; please use YAML.parseAllDocuments()"
                " at line 3, column 1:\n\n...\n  b: 2\n^^^^^^\n",
            ),
            (
                "a: x\nb: - a\na: y",
                "Unexpected block-seq-ind on same line with key at line 2, column 4:"
                "\n\nb: - a\n   ^\n",
            ),
            (
                "a: x\nb: {\na: y",
                "Flow map in block collection must be sufficiently indented and end with a }"
                " at line 3, column 1:\n\nb: {\na: y\n^\n",
            ),
            (
                "k:\n  b: [x,\n   y\n  c: 1",
                "Flow sequence in block collection must be sufficiently indented and end with a ]"
                " at line 4, column 3:\n\n   y\n  c: 1\n  ^\n",
            ),
        ],
    )
    def test_message(self, block: str, message: str) -> None:
        """The message text equals what Pi 0.85.0 reports for the same block."""
        with pytest.raises(FrontmatterError) as caught:
            _front(block)
        assert caught.value.message == message

    def test_alias_after_other_errors(self) -> None:
        """An alias without anchor loses to a later syntax error; alone, it is the error."""
        with pytest.raises(FrontmatterError) as caught:
            _front("a: *nope\n- b")
        assert caught.value.message.startswith("Implicit keys need to be on a single line")

    def test_node_end_token(self) -> None:
        """Content after the node names its token, the caret under all of it."""
        with pytest.raises(FrontmatterError) as caught:
            _front("- a\n'key': b")
        assert caught.value.message == (
            "Unexpected single-quoted-scalar at node end at line 2, column 1:"
            "\n\n- a\n'key': b\n^^^^^\n"
        )

    def test_flow_closed_at_key_column(self) -> None:
        """A flow collection's closing bracket may stand at its key's column."""
        assert _front("a: [x,\n]\nb: 1") == {"a": ["x"], "b": 1}


class TestSkillFile:
    """`parse_skill_file`: which warnings, in which order."""

    def test_description_warning_before_name(self) -> None:
        """A SKILL.md without description warns about it before its name."""
        skill, warnings = parse_skill_file(
            "/s/Bad/SKILL.md", "---\nname: Bad\n---\n", is_skill_file=True
        )
        assert skill is None
        assert warnings[0].message == "description is required"
        assert "invalid characters" in warnings[1].message

    def test_loose_file_errors_silent(self) -> None:
        """A root `.md` with a YAML error or no description gives no warning at all."""
        assert parse_skill_file("/s/x.md", "---\na: [\n---\n", is_skill_file=False) == (None, [])
        assert parse_skill_file("/s/x.md", "---\nname: Bad\n---\n", is_skill_file=False) == (
            None,
            [],
        )

    def test_disable_yes_is_not_true(self) -> None:
        """`disable-model-invocation: yes` leaves the skill visible."""
        text = "---\ndescription: d\ndisable-model-invocation: yes\n---\n"
        skill, _ = parse_skill_file("/s/a/SKILL.md", text, is_skill_file=True)
        assert skill is not None
        assert not skill.disable_model_invocation


class TestLoadSkills:
    """`load_skills`: explicit paths and collisions."""

    def test_not_markdown_path(self) -> None:
        """An explicit file that is not `.md` is a warning."""
        tree = Listing.from_wire({"x/notes.txt": "t"})
        result = load_skills(tree, cwd="/w", agent_dir="/a", skill_paths=["/x/notes.txt"])
        assert [d.message for d in result.diagnostics] == ["skill path is not a markdown file"]

    def test_loser_met_twice_collides_twice(self) -> None:
        """A losing file met again (a repeated path) collides again; a winner is silent."""
        tree = Listing.from_wire(
            {
                "a/skills/one/SKILL.md": "---\nname: one\ndescription: w\n---\n",
                "x/one/SKILL.md": "---\nname: one\ndescription: l\n---\n",
            }
        )
        result = load_skills(
            tree, cwd="/w", agent_dir="/a", skill_paths=["/x/one", "/x/one", "/a/skills/one"]
        )
        assert [d.type for d in result.diagnostics] == ["collision", "collision"]


def test_format_other_tool_is_bash() -> None:
    """A `fileReadTool` other than `read` names bash (Pi tests `=== "read"`)."""
    skill = parse_skill_file("/s/a/SKILL.md", "---\ndescription: d\n---\n", is_skill_file=True)[0]
    assert skill is not None
    assert "Use bash to load" in format_skills_for_prompt([skill], "grep")
