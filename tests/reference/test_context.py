"""The reference's context layer: the real-directory edge, discovery and the resource loader."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ctxspec.reference.discovery import load_project_context_files
from ctxspec.reference.edge.listing import read_listing
from ctxspec.reference.errors import InvalidInput
from ctxspec.reference.resources import PROMPT_ROOTS, SKILL_ROOTS, load_resources
from ctxspec.reference.tree import Directory, File, Listing, Symlink


def _skill(name: str) -> str:
    return f"---\nname: {name}\ndescription: d\n---\n"


class TestReadListing:
    """`read_listing` over a real temporary directory."""

    def test_links_are_recorded_not_followed(self, tmp_path: Path) -> None:
        """A link loop and a dangling link are listed as links; the walk ends."""
        (tmp_path / "ws").mkdir()
        os.symlink("loop-b", tmp_path / "ws/loop-a")
        os.symlink("loop-a", tmp_path / "ws/loop-b")
        os.symlink("missing.md", tmp_path / "ws/AGENTS.md")
        os.symlink("..", tmp_path / "ws/up")
        listing = read_listing(tmp_path)
        assert listing.entries["/ws/loop-a"] == Symlink(target="loop-b")
        assert listing.entries["/ws/AGENTS.md"] == Symlink(target="missing.md")
        assert listing.resolve("/ws/loop-a") is None
        assert not listing.exists("/ws/AGENTS.md")
        assert listing.is_dir("/ws/up/ws/up/ws")

    def test_binary_file_bytes_kept(self, tmp_path: Path) -> None:
        """A file's bytes are kept as they are; text reads put U+FFFD for invalid UTF-8."""
        (tmp_path / "CLAUDE.md").write_bytes(b"\xef\xbb\xbfok \xff\x00")
        listing = read_listing(tmp_path)
        assert listing.entries["/CLAUDE.md"] == File(data=b"\xef\xbb\xbfok \xff\x00")
        assert listing.read_text("/CLAUDE.md") == "\ufeffok \ufffd\x00"
        files = load_project_context_files(listing, cwd="/", agent_dir="/agent")
        assert [f.content for f in files] == ["ok \ufffd\x00"]

    def test_directories_listed(self, tmp_path: Path) -> None:
        """An empty directory is an entry; the root itself is `/`."""
        (tmp_path / "a/b").mkdir(parents=True)
        listing = read_listing(tmp_path)
        assert listing.entries["/a/b"] == Directory()
        assert listing.children("/") == ("a",)

    def test_entry_limit_refused(self, tmp_path: Path) -> None:
        """More entries than `max_entries` is `InvalidInput`, not a long walk."""
        for i in range(3):
            (tmp_path / f"f{i}").write_text("x")
        with pytest.raises(InvalidInput):
            read_listing(tmp_path, max_entries=2)


class TestLoadResources:
    """`load_resources`: roots, trust and the system prompt source."""

    TREE = Listing.from_wire(
        {
            "ws/.pi/skills/x/SKILL.md": _skill("x"),
            "ws/.agents/skills/a/SKILL.md": _skill("a"),
            "ws/.pi/SYSTEM.md": "P",
            "agent/skills/u/SKILL.md": _skill("u"),
            "agent/SYSTEM.md": "G",
            "home/.agents/skills/h/SKILL.md": _skill("h"),
        }
    )

    def test_trusted_project_first(self) -> None:
        """Trusted, project roots come before the user's and the project SYSTEM.md wins."""
        loaded = load_resources(self.TREE, cwd="/ws", agent_dir="/agent", home="/home")
        assert [s.name for s in loaded.skills] == ["x", "a", "u", "h"]
        assert loaded.system_prompt == "P"

    def test_untrusted_user_only(self) -> None:
        """Untrusted, only user roots load and SYSTEM.md comes from agentDir."""
        loaded = load_resources(
            self.TREE, cwd="/ws", agent_dir="/agent", home="/home", project_trusted=False
        )
        assert [s.name for s in loaded.skills] == ["u", "h"]
        assert loaded.system_prompt == "G"

    def test_explicit_values_replace_discovery(self) -> None:
        """An explicit prompt is literal unless it names a file; empty append items drop."""
        loaded = load_resources(
            self.TREE,
            cwd="/ws",
            agent_dir="/agent",
            home="/home",
            system_prompt="/agent/SYSTEM.md",
            append_system_prompt=["", "inline"],
        )
        assert (loaded.system_prompt, loaded.append_system_prompt) == ("G", ("inline",))

    def test_settings_patterns_filter(self) -> None:
        """A glob keeps the entries' files it matches; `!glob` drops a found skill; `+path`
        brings one back."""
        tree = Listing.from_wire(
            {
                "agent/settings.json": '{"skills": ["lib", "*/a/SKILL.md", "!b", "+lib/b"]}',
                "agent/lib/a/SKILL.md": _skill("a"),
                "agent/lib/c/SKILL.md": _skill("c"),
                "agent/skills/b/SKILL.md": _skill("b"),
                "agent/skills/d/SKILL.md": _skill("d"),
            }
        )
        loaded = load_resources(tree, cwd="/ws", agent_dir="/agent", home="/home")
        assert [s.name for s in loaded.skills] == ["a", "d"]

    def test_force_exclude_wins(self) -> None:
        """`-path` turns a found skill off even when `+path` names it too."""
        tree = Listing.from_wire(
            {
                "agent/settings.json": '{"skills": ["+skills/b", "-skills/b"]}',
                "agent/skills/b/SKILL.md": _skill("b"),
            }
        )
        loaded = load_resources(tree, cwd="/ws", agent_dir="/agent", home="/home")
        assert loaded.skills == ()

    def test_dot_prompt_skipped_in_roots(self) -> None:
        """The prompt roots skip names starting with `.`; an explicit directory does not."""
        tree = Listing.from_wire({"agent/prompts/.hidden.md": "x", "agent/prompts/p.md": "y"})
        found = load_resources(tree, cwd="/ws", agent_dir="/agent", home="/home")
        assert [p.name for p in found.prompts] == ["p"]
        explicit = load_resources(
            tree,
            cwd="/ws",
            agent_dir="/agent",
            home="/home",
            no_prompt_templates=True,
            additional_prompt_template_paths=["/agent/prompts"],
        )
        assert [p.name for p in explicit.prompts] == [".hidden", "p"]

    def test_root_tables_gate_project_only(self) -> None:
        """The gated roots of both tables are the project's, listed before the user's."""
        for table in (SKILL_ROOTS, PROMPT_ROOTS):
            gated = [gate for _, _, gate in table]
            assert gated == sorted(gated, reverse=True)
            assert all(scope.startswith(("project", "agents")) == gate for scope, _, gate in table)
