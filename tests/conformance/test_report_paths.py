"""No report carries a path of the machine that ran it: not the run's dir, not the home
dir, not the checkout (the terminal, `--json`, `--md`, `--junit`, the matrix page)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from paths import FAKE_IMPL, ROOT

from ctxspec.conformance.runner.report_paths import shown_path
from ctxspec.conformance.tools.matrix import build_matrix


class TestShownPath:
    """A file is named by its place in the package, in the cwd, or by its name."""

    def test_a_package_file_by_its_path_in_the_package(self) -> None:
        shipped = ROOT / "conformance" / "profiles" / "pi.yaml"
        assert shown_path(str(shipped)) == "conformance/profiles/pi.yaml"

    def test_a_file_under_the_cwd_relative_to_it(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.chdir(tmp_path)
        assert shown_path(str(tmp_path / "my" / "port.yaml")) == "my/port.yaml"

    def test_any_other_file_by_its_name(self, tmp_path: Path) -> None:
        assert shown_path(str(tmp_path / "elsewhere" / "port.yaml")) == "port.yaml"

    def test_what_is_no_absolute_path_as_it_is(self) -> None:
        assert shown_path("(none)") == "(none)"
        assert shown_path("rel/port.yaml") == "rel/port.yaml"
        assert shown_path(None) is None


def test_the_matrix_shows_an_old_results_file_without_its_path(tmp_path: Path) -> None:
    header = {"implementation": "x", "expectations": str(tmp_path / "exp" / "x.yaml")}
    matrix = build_matrix([{"header": header, "records": []}])
    assert matrix["implementations"][0]["expectations"] == "x.yaml"


def _machine_paths(tmp_path: Path) -> list[str]:
    """The paths no report may show: this run's dir, the home dir, the checkout."""
    paths = [str(tmp_path), str(tmp_path.resolve()), str(ROOT), str(ROOT.resolve())]
    home = str(Path.home())
    if home not in ("/", ""):
        paths.append(home + "/")
    return paths


@pytest.mark.slow
def test_no_report_carries_a_machine_path(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    shutil.copy(FAKE_IMPL, work / "fake.py")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    expectations = elsewhere / "exp.yaml"
    expectations.write_text("implementation: fake\ncases: {}\nproperties: {}\n", "utf-8")
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    conform = [
        sys.executable, "-m", "ctxspec", "conform",
        "--impl", "python fake.py drop-tail-char",
        "--expectations", str(expectations),
        "-k", "truncate or agent or tail-cut-inside",  # properties, skips, failing cases
        "--json", "out/r.json", "--md", "out/r.md", "--junit", "out/r.xml",
    ]  # fmt: skip
    run = subprocess.run(conform, cwd=work, env=env, capture_output=True, text=True,
                         timeout=600, check=False)  # fmt: skip
    assert run.returncode == 1, run.stdout + run.stderr
    matrix = [sys.executable, "-m", "ctxspec", "matrix", "--from", "out/r.json",
              "--out", "out/matrix"]  # fmt: skip
    drawn = subprocess.run(matrix, cwd=work, env=env, capture_output=True, text=True,
                           timeout=300, check=False)  # fmt: skip
    assert drawn.returncode in (0, 1), drawn.stdout + drawn.stderr
    header = json.loads((work / "out" / "r.json").read_text("utf-8"))["header"]
    assert header["expectations"] == "exp.yaml"
    assert header["profile"] == "conformance/profiles/pi.yaml"
    reports = {
        "terminal": run.stdout + run.stderr,
        **{name: (work / "out" / name).read_text("utf-8") for name in ("r.json", "r.md", "r.xml")},
        "index.html": (work / "out" / "matrix" / "index.html").read_text("utf-8"),
        "matrix.json": (work / "out" / "matrix" / "matrix.json").read_text("utf-8"),
    }
    assert "failed" in reports["r.md"] and "<skipped" in reports["r.xml"]
    for name, text in reports.items():
        for path in _machine_paths(tmp_path):
            assert path not in text, f"{name} shows {path}"
