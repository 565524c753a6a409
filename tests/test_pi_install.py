"""Installing the real Pi: once from the lock, then from the cache without the network."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from conformance.adapters import open_implementation
from conformance.adapters import pi as pi_adapter
from conformance.adapters.pi import PiInstallError, cache_root, ensure_installed
from conformance.adapters.wire import WireImplementation

PACKAGE_DIR = Path(__file__).resolve().parent.parent / "conformance" / "adapters" / "pi"


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
            "format.size",
            "truncate.head",
            "truncate.line",
            "truncate.tail",
        ]
        assert impl.call("format.size", {"bytes": 3}).result == "3B"
        assert impl.call("tool.read", {"path": "x"}).error.type == "unsupported"  # type: ignore[union-attr]
    finally:
        impl.close()
