"""Installing the real Pi: once from the lock, then from the cache without the network."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

import pytest
from paths import ROOT

from ctxspec.conformance.errors import EnvironmentMissing
from ctxspec.conformance.harnesses import pi as pi_adapter
from ctxspec.conformance.harnesses.pi import PiInstallError, cache_root, ensure_installed
from ctxspec.conformance.transport import ripgrep
from ctxspec.conformance.transport.resolve import open_implementation
from ctxspec.conformance.transport.wire import WireImplementation

PACKAGE_DIR = ROOT / "conformance" / "harnesses" / "pi"


class TestPiInstall:
    """The pinned install and its cache."""

    @pytest.mark.parametrize("version", pi_adapter.locked_versions())
    def test_lock_pins_every_package_with_an_integrity_hash(self, version: str) -> None:
        """Each committed lock names exact versions of Pi and hashes for every package."""
        lock = json.loads((PACKAGE_DIR / "locks" / version / "package-lock.json").read_text())
        packages = {k: v for k, v in lock["packages"].items() if k}
        name = f"node_modules/{pi_adapter.package_name(version)}"
        assert packages[name]["version"] == version
        assert all("integrity" in meta for meta in packages.values() if not meta.get("link"))

    def test_second_use_needs_no_npm(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Once installed, the cache is used as it is: npm is not even looked up."""
        ensure_installed(quiet=True)
        monkeypatch.setenv("PATH", "/nonexistent")
        install = ensure_installed(quiet=True)
        assert install.package_dir.joinpath("package.json").exists()
        assert install.node.exists()

    def test_missing_npm_is_named(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        """An empty cache without npm on PATH says that npm is what is missing."""
        monkeypatch.setenv("CTXSPEC_CACHE", str(tmp_path))
        monkeypatch.setenv("PATH", "/nonexistent")
        with pytest.raises(PiInstallError, match="npm is not on PATH"):
            ensure_installed(quiet=True)

    def test_adapter_speaks_the_protocol(self) -> None:
        """The Pi adapter says hello as pi 0.85.0 on Node 22 and answers a call."""
        impl = open_implementation("pi@0.85.0")
        try:
            hello = impl.hello
            assert hello["implementation"]["name"] == "pi"
            assert hello["implementation"]["version"] == "0.85.0"
            assert hello["implementation"]["language"].startswith("node 22.")
            reply = impl.call("format.size", {"bytes": 1280})
            assert reply.result == "1.3KB"
        finally:
            impl.close()


def test_cache_location_follows_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """CTXSPEC_CACHE wins over XDG_CACHE_HOME, which wins over ~/.cache."""
    monkeypatch.delenv("CTXSPEC_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", "/x")
    assert cache_root() == Path("/x/ctxspec")
    monkeypatch.setenv("CTXSPEC_CACHE", "/y")
    assert cache_root() == Path("/y")
    assert os.environ["CTXSPEC_CACHE"] == "/y"


def test_ops_of_modules_a_release_lacks_are_unsupported(tmp_path: Path) -> None:
    """A release without some of Pi's modules: the adapter lists only the ops it can answer."""
    node = ensure_installed(quiet=True).node
    package = tmp_path / "pi-coding-agent"
    (package / "dist" / "core" / "tools").mkdir(parents=True)
    (package / "package.json").write_text('{"name": "stub", "version": "0.1.0", "type": "module"}')
    (package / "dist" / "core" / "tools" / "truncate.js").write_text(
        "export const formatSize = (n) => `${n}B`;\n"
        "export const truncateHead = () => ({});\n"
        "export const truncateTail = () => ({});\n"
        "export const truncateLine = () => ({});\n"
    )
    adapter = PACKAGE_DIR / "adapter.mjs"
    impl = WireImplementation([str(node), str(adapter), str(package)], name="stub")
    try:
        assert sorted(impl.hello["ops"]) == [
            "bench.truncate",  # needs truncate.js alone
            "format.size",
            "truncate.head",
            "truncate.line",
            "truncate.tail",
        ]
        assert impl.call("format.size", {"bytes": 3}).result == "3B"
        assert impl.call("tool.read", {"path": "x"}).error.type == "unsupported"  # type: ignore[union-attr]
    finally:
        impl.close()


class TestRipgrep:
    """Pi's grep gets the `rg` of the ripgrep wheel; where there is none, it is named."""

    @pytest.fixture
    def no_rg(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        """A machine without ripgrep: no wheel, nothing in the scripts dir, none on PATH."""

        def absent(name: str) -> None:
            raise metadata.PackageNotFoundError(name)

        monkeypatch.setattr(ripgrep.metadata, "files", absent)
        monkeypatch.setattr(ripgrep.sysconfig, "get_path", lambda _: str(tmp_path))
        monkeypatch.setenv("PATH", str(tmp_path))

    def test_the_wheel_is_found_without_an_activated_venv(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """With nothing on PATH (a venv used unactivated), rg comes from the wheel's files."""
        monkeypatch.setenv("PATH", "/nonexistent")
        found = pi_adapter.ripgrep_dir()
        assert found is not None
        wheel = [f for f in metadata.files("ripgrep") or () if f.name == "rg"]
        assert found == Path(str(wheel[0].locate())).resolve().parent
        version = subprocess.run(
            [str(found / "rg"), "--version"], capture_output=True, text=True, check=True
        )
        assert version.stdout.startswith("ripgrep 14.1.0")

    def test_the_wheel_leads_pis_path(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """The launch puts rg's directory first on Pi's PATH and marks nothing unavailable."""
        monkeypatch.setenv("PATH", "/nonexistent")
        launch = pi_adapter.install("0.85.0", quiet=True)
        assert launch.env["PATH"].split(os.pathsep)[0] == str(pi_adapter.ripgrep_dir())
        assert launch.unavailable == {}

    @pytest.mark.usefixtures("no_rg")
    def test_without_ripgrep_grep_is_unavailable(self) -> None:
        """No rg anywhere: tool.grep is marked unavailable with a message naming ripgrep."""
        assert pi_adapter.ripgrep_dir() is None
        launch = pi_adapter.install("0.85.0", quiet=True)
        assert set(launch.unavailable) == {"tool.grep"}
        assert "ripgrep (rg) is not installed" in launch.unavailable["tool.grep"]
        assert "pip install ripgrep==14.1.0" in launch.unavailable["tool.grep"]

    def test_an_unavailable_op_raises_without_a_request(
        self, fake: Callable[..., list[str]]
    ) -> None:
        """The runner answers an unavailable op itself (a request would crash this fake)."""
        impl = WireImplementation(fake("crash"), unavailable={"truncate.head": "no widget here"})
        with pytest.raises(EnvironmentMissing, match=r"truncate.head cannot run here: no widget"):
            impl.call("truncate.head", {"content": "x"})
        assert impl.restarts == 0
        impl.close()

    @pytest.mark.slow
    def test_missing_ripgrep_makes_grep_cases_errors_not_failures(self, tmp_path: Path) -> None:
        """`ctxspec conform --impl pi@0.85.0` on a machine without rg: grep cases are errors."""
        results = tmp_path / "results.json"
        cases = ["grep-missing-path-rejected", "grep-glob-matches-file-names"]
        args = ["conform", "--impl", "pi@0.85.0", "--json", str(results)]
        args += [arg for case in cases for arg in ("--case", case)]
        # the patch imports the suite before pytest starts, which pytest warns about
        args += ["--", "-W", "ignore::pytest.PytestAssertRewriteWarning"]
        script = (
            "import sys; from ctxspec.conformance.transport import npm_harness; "
            "npm_harness.ripgrep_dir = lambda: None; "
            "from ctxspec.cli import main; sys.exit(main(sys.argv[1:]))"
        )
        completed = subprocess.run(
            [sys.executable, "-c", script, *args],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=tmp_path,
            check=False,
        )
        output = completed.stdout + completed.stderr
        assert completed.returncode == 1, output
        records = json.loads(results.read_text())["records"]
        assert {r["id"]: r["status"] for r in records} == dict.fromkeys(cases, "error")
        assert all("ripgrep (rg) is not installed" in r["message"] for r in records)
        assert "missing from the environment: tool.grep cannot run here" in output
