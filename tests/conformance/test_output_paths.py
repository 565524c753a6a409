"""Report paths that cannot be written are refused before anything runs (`cli_args`)."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conformance import cli_args

PROC = Path("/proc")
needs_proc = pytest.mark.skipif(not PROC.is_dir(), reason="/proc: a folder no file can be made in")
as_root = pytest.mark.skipif(os.geteuid() == 0, reason="root writes in a read-only folder")


@pytest.fixture
def place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A scratch folder with a file, a read-only folder and a link to a missing folder."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a-file").write_text("kept\n")
    (tmp_path / "read-only").mkdir(mode=0o500)
    (tmp_path / "nowhere.json").symlink_to(tmp_path / "missing" / "r.json")
    return tmp_path


class TestOutputFile:
    """What `output_file` accepts and refuses, with the reason in its message."""

    @pytest.mark.parametrize(
        ("text", "why"),
        [
            ("", "expected a file to write, got ''"),
            (".", "expected a file to write, '.' is a directory"),
            ("a-file/r.json", "is not a directory"),
            ("a-file/deeper/r.json", "is not a directory"),
            ("nowhere.json", "whose folder does not exist"),
            pytest.param("/proc/ctxspec/r.json", "no file can be made in /proc", marks=needs_proc),
            pytest.param("read-only/r.json", "Permission denied", marks=as_root),
        ],
    )
    def test_refused(self, place: Path, text: str, why: str) -> None:
        """The message quotes the path and says why."""
        with pytest.raises(argparse.ArgumentTypeError) as caught:
            cli_args.output_file(text)
        assert why in str(caught.value)

    @pytest.mark.parametrize("text", ["a-file", "new/deeper/r.json", "r.json", os.devnull])
    def test_accepted_and_left_alone(self, place: Path, text: str) -> None:
        """An existing file is not truncated; no folder is made and no probe file is left."""
        before = sorted(p.name for p in place.rglob("*"))
        assert cli_args.output_file(text) == text
        assert (place / "a-file").read_text() == "kept\n"
        assert sorted(p.name for p in place.rglob("*")) == before

    @needs_proc
    def test_output_dir_refuses_an_unwritable_folder(self, place: Path) -> None:
        """A report folder is tried the same way (`matrix --out`, `fuzz --write-cases`)."""
        with pytest.raises(argparse.ArgumentTypeError, match="no file can be made in /proc"):
            cli_args.output_dir("/proc/ctxspec-matrix")
        with pytest.raises(argparse.ArgumentTypeError, match="is not a directory"):
            cli_args.output_dir("a-file")
        assert cli_args.output_dir("new/matrix") == "new/matrix"


# each command with a report option; IMPL is a command that leaves a file when started,
# so a refusal before the run leaves none
MARKER = "impl-started"
IMPL = f"{sys.executable} -c \"open('{MARKER}', 'w')\""
COMMANDS = [
    ("conform --json", ["conform", "--impl", IMPL, "--json"]),
    ("conform --md", ["conform", "--impl", IMPL, "--md"]),
    ("conform --junit", ["conform", "--impl", IMPL, "--junit"]),
    ("smoke --json", ["smoke", "--impl", IMPL, "--json"]),
    ("matrix --out", ["matrix", "--impl", IMPL, "--out"]),
]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "argv"), COMMANDS, ids=[c[0] for c in COMMANDS])
@pytest.mark.parametrize("bad", ["a-file/r.json", "nowhere.json"])
def test_refused_before_the_run(place: Path, name: str, argv: list[str], bad: str) -> None:
    """One line naming the command, the option, the path and why; status 2; nothing ran."""
    if argv[-1] == "--out" and bad == "nowhere.json":
        bad = "a-file"  # a folder option: a file where the folder should be
    done = subprocess.run(
        [sys.executable, "-m", "conformance.cli", *argv, bad],
        capture_output=True,
        text=True,
        cwd=place,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout == ""
    (line,) = done.stderr.splitlines()
    command, option = name.split()
    assert line.startswith(f"ctxspec {command}: error: argument {option}: "), line
    assert repr(bad) in line
    assert not (place / MARKER).exists()
