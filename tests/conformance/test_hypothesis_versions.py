"""The verdict needs no pinned hypothesis: under the oldest release ctxspec supports (the
floor of `hypothesis>=` in pyproject.toml) it is the same JSON as under the pinned one,
less timings; `--explore` and `ctxspec fuzz` draw under it too.

The older release is installed once, from the package index, into a folder of the
git-ignored cache (`.cache/hypothesis/<version>`), and put first on `PYTHONPATH`, so
the runs differ in their hypothesis alone."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import hypothesis
import pytest
from paths import ROOT

from ctxspec.conformance.tools.same_verdict import differences, verdict

pytestmark = pytest.mark.slow  # an install from the index, and three whole runs


def oldest_supported() -> str:
    """The floor of the install requirement on hypothesis (`hypothesis>=X`)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    floors = [
        found[1]
        for requirement in project["dependencies"]
        if (found := re.fullmatch(r"hypothesis\s*>=\s*([\d.]+)\s*(?:,.*)?", requirement))
    ]
    assert len(floors) == 1, f"one `hypothesis>=X` install requirement: {project['dependencies']}"
    return floors[0]


def installed(version: str) -> Path:
    """A folder holding hypothesis `version` (and what it needs), installed once: into a
    folder of this process's, renamed into place whole (two xdist workers may race)."""
    folder = ROOT / ".cache" / "hypothesis" / version
    if folder.is_dir():
        return folder
    partial = folder.with_name(f"{version}.{os.getpid()}.partial")
    pip = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*pip, "--target", str(partial), f"hypothesis=={version}"], check=True)
    try:
        partial.rename(folder)
    except OSError:  # another worker's install came first
        shutil.rmtree(partial, ignore_errors=True)
    return folder


@pytest.fixture(scope="module")
def older() -> dict[str, str]:
    """The environment of a run under the oldest supported hypothesis."""
    version = oldest_supported()
    if version == hypothesis.__version__:
        pytest.skip("the pinned hypothesis is the oldest supported: nothing to compare")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(installed(version)), *filter(None, [env.get("PYTHONPATH")])]
    )
    shown = subprocess.run(
        [sys.executable, "-c", "import hypothesis; print(hypothesis.__version__)"],
        env=env, capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    assert shown == version
    return env


def conform(tmp_path: Path, name: str, env: dict[str, str], *args: str) -> dict[str, Any]:
    results = tmp_path / f"{name}.json"
    completed = subprocess.run(
        [sys.executable, "-m", "ctxspec", "conform", "--json", str(results), *args],
        capture_output=True, text=True, timeout=900, cwd=tmp_path, env=env, check=False,
    )  # fmt: skip
    assert results.exists(), completed.stdout[-3000:] + completed.stderr[-3000:]
    assert completed.returncode == 0, completed.stdout[-3000:]
    data: dict[str, Any] = json.loads(results.read_text("utf-8"))
    return data


def test_the_verdict_is_the_same_under_the_oldest_supported_hypothesis(
    tmp_path: Path, older: dict[str, str]
) -> None:
    pinned = conform(tmp_path, "pinned", dict(os.environ))
    old = conform(tmp_path, "older", older)
    assert differences(verdict(pinned), verdict(old)) == []
    statuses = {r["status"] for r in pinned["records"] if r["kind"] == "property"}
    assert "passed" in statuses


def test_exploring_and_fuzzing_draw_under_the_oldest_supported_hypothesis(
    tmp_path: Path, older: dict[str, str]
) -> None:
    explored = conform(tmp_path, "x", older, "--explore", "--seed", "3", "-k", "test_format_size")
    assert explored["header"]["examples"]["policy"] == "explore"
    assert explored["header"]["examples"]["hypothesis"] == oldest_supported()
    fuzz = [sys.executable, "-m", "ctxspec", "fuzz", "--impl", "fastengine"]
    args = ["--against", "reference", "--op", "truncate.tail", "--examples", "20", "--seed", "1"]
    completed = subprocess.run(
        [*fuzz, *args, "-q"], capture_output=True, text=True, timeout=600, cwd=tmp_path,
        env=older, check=False,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stdout[-3000:] + completed.stderr[-3000:]
