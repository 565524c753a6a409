"""The composite GitHub Action for port authors: it parses and does what its docs page says."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml
from paths import ROOT

PYPROJECT_VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def test_action_declares_the_inputs_the_docs_use() -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    inputs = set(action["inputs"])
    assert {"command", "expectations", "args"} <= inputs
    page = (ROOT / "docs" / "guide" / "ci.md").read_text()
    example = page.split("uses: <this repository>@")[1].split("```")[0]
    used = set(re.findall(r"^\s+([a-z-]+):", example.split("with:")[1], re.M))
    assert used and used <= inputs
    documented = set(re.findall(r"^\| `([a-z-]+)` \|", page, re.M))
    assert documented == inputs, "the page's table of inputs is the action's"
    steps = " ".join(str(step) for step in action["runs"]["steps"])
    for needed in ("ctxspec conform", "--junit", "--json", "ctxspec matrix", "upload-artifact"):
        assert needed in steps


def _install_step() -> dict[str, Any]:
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    (step,) = (s for s in action["runs"]["steps"] if s.get("name", "").startswith("Install"))
    return dict(step)


@pytest.mark.parametrize(
    ("version", "installed"),
    [
        ("", f"ctxspec=={PYPROJECT_VERSION}"),  # the action's own release
        ("0.0.9", "ctxspec==0.0.9"),
        ("checkout", str(ROOT)),
    ],
)
def test_action_installs_a_release_by_version(tmp_path: Path, version: str, installed: str) -> None:
    """The install step, run with `python` and `ctxspec` standing in: what `pip install` gets."""
    step = _install_step()
    assert step["env"]["CTXSPEC_VERSION"] == "${{ inputs.version }}"
    log = tmp_path / "pip.log"
    stub = tmp_path / "python"
    stub.write_text(
        f"#!/bin/sh\n"
        f'if [ "$1" = -m ]; then echo "$@" >> {shlex.quote(str(log))}; exit 0; fi\n'
        f'exec {shlex.quote(sys.executable)} "$@"\n'
    )
    (tmp_path / "ctxspec").write_text("#!/bin/sh\n")
    for script in (stub, tmp_path / "ctxspec"):
        script.chmod(0o755)
    env = {
        **os.environ,
        **step["env"],
        "CTXSPEC_VERSION": version,
        "GITHUB_ACTION_PATH": str(ROOT),
        "PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}",
    }
    subprocess.run(["bash", "-e", "-c", step["run"]], env=env, check=True, timeout=60)
    assert log.read_text().split() == ["-m", "pip", "install", "--quiet", installed]
