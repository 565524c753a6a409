"""Report paths that cannot be written are refused before anything runs (`cli_args`)."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ctxspec.conformance import cli_args
from ctxspec.conformance.runner.results import slug
from ctxspec.conformance.tools.matrix import check_outputs, matrix_paths

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
    ("sweep --json", ["sweep", "--impl", IMPL, "--json"]),
    ("sweep --record", ["sweep", "--impl", IMPL, "--record"]),
    ("sweep --write-cases", ["sweep", "--impl", IMPL, "--write-cases"]),
]
FOLDER_OPTIONS = ("--out", "--write-cases")


@pytest.mark.slow
@pytest.mark.parametrize(("name", "argv"), COMMANDS, ids=[c[0] for c in COMMANDS])
@pytest.mark.parametrize("bad", ["a-file/r.json", "nowhere.json"])
def test_refused_before_the_run(place: Path, name: str, argv: list[str], bad: str) -> None:
    """One line naming the command, the option, the path and why; status 2; nothing ran."""
    if argv[-1] in FOLDER_OPTIONS and bad == "nowhere.json":
        bad = "a-file"  # a folder option: a file where the folder should be
    line = _refusal(place, [*argv, bad])
    command, option = name.split()
    assert line.startswith(f"ctxspec {command}: error: argument {option}: "), line
    assert repr(bad) in line


def _refusal(place: Path, argv: list[str]) -> str:
    """Run ctxspec with `argv` in `place`: its one line on stderr, having run nothing."""
    done = subprocess.run(
        [sys.executable, "-m", "ctxspec", *argv],
        capture_output=True,
        text=True,
        cwd=place,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert not (place / MARKER).exists()
    return line


# what stands in a matrix folder `out` where the matrix writes: each is refused up front
MATRIX_TRAPS = {
    "index.html": "a folder named index.html",
    "matrix.json": "a folder named matrix.json",
    "badges": "a file where the badges' folder goes",
    "results": "a file where the results' folder goes",
    "badges/reference.svg": "a folder where a badge goes",
    f"results/{slug(IMPL)}.json": "a folder where a run's results go",
}


def _trap(out: Path, name: str) -> None:
    """Put at `out/name` what the matrix cannot write over (see `MATRIX_TRAPS`)."""
    target = out / name
    target.parent.mkdir(parents=True, exist_ok=True)
    if name in ("badges", "results"):
        target.write_text("not a folder\n")
    else:
        target.mkdir()


class TestMatrixPaths:
    """`ctxspec matrix --out DIR` tries every file it will write in DIR, not DIR alone."""

    def test_every_written_path_is_listed(self, tmp_path: Path) -> None:
        sources = [{"header": {"implementation": "reference"}, "records": []}]
        folders, files = matrix_paths(tmp_path, sources, ["pi", "reference"])
        assert folders == [tmp_path, tmp_path / "badges", tmp_path / "results"]
        assert files == [
            tmp_path / "matrix.json",
            tmp_path / "index.html",
            tmp_path / "results" / "pi.json",
            tmp_path / "results" / "reference.json",
            tmp_path / "badges" / "reference.svg",
            tmp_path / "badges" / "pi-0.85.0.svg",  # the run's name: pi's full name
            tmp_path / "badges" / "reference-2.svg",  # a repeat, as build_matrix keys it
        ]

    @pytest.mark.parametrize("name", MATRIX_TRAPS, ids=list(MATRIX_TRAPS.values()))
    def test_each_is_refused_as_usage(self, tmp_path: Path, name: str) -> None:
        _trap(tmp_path, name)
        with pytest.raises(cli_args.UsageError) as caught:
            check_outputs(tmp_path, [], ["reference", IMPL])
        message = str(caught.value)
        assert message.startswith("argument --out: ")
        assert repr(str(tmp_path / name)) in message  # the very path that cannot be written

    def test_a_clean_folder_passes_and_stays_empty(self, tmp_path: Path) -> None:
        check_outputs(tmp_path / "new", [], ["reference"])
        assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
@pytest.mark.parametrize("name", MATRIX_TRAPS, ids=list(MATRIX_TRAPS.values()))
def test_matrix_refuses_before_the_first_run(place: Path, name: str) -> None:
    """A folder named index.html in --out: one line naming it, status 2, nothing ran."""
    _trap(place / "m", name)
    line = _refusal(place, ["matrix", "--impl", "reference", "--impl", IMPL, "--out", "m"])
    assert line.startswith("ctxspec matrix: error: argument --out: "), line
    assert "Traceback" not in line
