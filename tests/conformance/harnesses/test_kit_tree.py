"""Virtual file trees: validated, laid out on disk as described, mapped back to `/`."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ctxspec.conformance.harnesses.kit.tree import materialize, real_path, validate_tree, virtualize
from ctxspec.reference.errors import InvalidInput


class TestTree:
    """The protocol's file-tree argument."""

    def test_every_entry_kind_is_laid_out(self, tmp_path: Path) -> None:
        """Text, bytes, directories, symlinks and modes arrive on disk as written."""
        materialize(
            {
                "ws/AGENTS.md": "é\n",
                "ws/raw.bin": {"contentB64": "/wA="},
                "ws/empty/": {},
                "ws/link": {"symlink": "AGENTS.md"},
                "ws/locked.md": {"content": "x", "mode": 0o000},
            },
            tmp_path,
        )
        assert (tmp_path / "ws/AGENTS.md").read_bytes() == "é\n".encode()
        assert (tmp_path / "ws/raw.bin").read_bytes() == b"\xff\x00"
        assert (tmp_path / "ws/empty").is_dir()
        assert os.readlink(tmp_path / "ws/link") == "AGENTS.md"
        assert (tmp_path / "ws/locked.md").stat().st_mode & 0o777 == 0

    def test_symlink_loops_can_be_described(self, tmp_path: Path) -> None:
        """A loop is just two links; laying it out does not follow it."""
        materialize({"a": {"symlink": "b"}, "b": {"symlink": "a"}}, tmp_path)
        assert os.readlink(tmp_path / "a") == "b"

    @pytest.mark.parametrize(
        "tree",
        [
            {"/abs": "x"},
            {"../up": "x"},
            {"d/": {"x": 1}},
            {"f": {"weird": 1}},
            ["not", "a", "map"],
        ],
    )
    def test_bad_trees_are_invalid_input(self, tree: object) -> None:
        """Absolute or escaping paths and unknown entries are refused, naming the tree."""
        with pytest.raises(InvalidInput) as caught:
            validate_tree(tree)
        assert caught.value.field == "tree"

    def test_paths_map_both_ways(self, tmp_path: Path) -> None:
        """Virtual /ws maps into the root; the root disappears from results again."""
        assert real_path(tmp_path, "/ws/repo") == f"{tmp_path}/ws/repo"
        assert real_path(tmp_path, "/") == str(tmp_path)
        result = {"path": f"{tmp_path}/ws/AGENTS.md", "list": [f'<p path="{tmp_path}/x">']}
        assert virtualize(result, tmp_path) == {"path": "/ws/AGENTS.md", "list": ['<p path="/x">']}
