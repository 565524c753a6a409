"""The version is written once, in pyproject.toml, and read from the package's metadata."""

from __future__ import annotations

import ast
import subprocess
import sys
from importlib.metadata import version

import pytest
from paths import ROOT

import ctxspec
from ctxspec.cli import main

FOLDERS = ("ctxspec", "reference", "fastengine", "conformance", "corpora", "benchmarks")


def test_the_version_is_the_metadatas() -> None:
    assert ctxspec.__version__ == version("ctxspec")


def test_version_option_prints_it(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out == f"ctxspec {version('ctxspec')}\n"


def test_no_module_writes_a_version() -> None:
    """No `__version__ = ...` in the packages: `ctxspec.__version__` is the one."""
    written = [
        str(path.relative_to(ROOT))
        for folder in FOLDERS
        for path in sorted((ROOT / folder).rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text("utf-8")))
        if isinstance(node, ast.Assign | ast.AnnAssign)
        and any(
            isinstance(target, ast.Name) and target.id == "__version__"
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        )
    ]
    assert written == []


@pytest.mark.parametrize("module", ["ctxspec", "ctxspec.conformance.cli"])
def test_each_spelling_runs_the_one_command_line(module: str) -> None:
    """`python -m ctxspec`, and the old `python -m ctxspec.conformance.cli`."""
    done = subprocess.run(
        [sys.executable, "-m", module, "--version"], capture_output=True, text=True, check=False
    )
    assert (done.returncode, done.stdout) == (0, f"ctxspec {version('ctxspec')}\n")
