"""Every agent confined: the hostile fake agent's escape attempts, each refused or cleaned up
and reported (the fault matrix's confinement rows, docs/guide/misbehaving.md)."""

from __future__ import annotations

import os
import secrets
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ctxspec.conformance.transport import confine
from ctxspec.conformance.transport.wire import WireImplementation

HOSTILE = Path(__file__).parents[2] / "support" / "hostile_agent.py"
needs_namespaces = pytest.mark.skipif(
    not confine.probe(), reason="this kernel gives no namespaces (the fallback is tested below)"
)


@pytest.fixture
def real_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The caller's HOME for this test, and a variable only the caller has."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("HOSTILE_SECRET", "the caller's")
    return home


@pytest.fixture
def mark() -> Iterator[str]:
    """The name the fake writes; whatever lands in the real /tmp under it is removed."""
    name = f"ctxspec-hostile-{secrets.token_hex(6)}"
    yield name
    Path("/tmp", name).unlink(missing_ok=True)


def run_hostile(real_home: Path, mark: str) -> dict[str, Any]:
    """One confined request to the hostile fake: its attempts' outcomes."""
    impl = WireImplementation(
        [sys.executable, str(HOSTILE), str(real_home), mark],
        name="hostile",
        env={},
        confined=True,
        timeout=20,
    )
    try:
        result: dict[str, Any] = impl.call("truncate.head", {}).result
    finally:
        impl.close()
    return result


def left_behind() -> list[str]:
    header = confine.header()
    assert header is not None
    return list(header["left"])


@needs_namespaces
class TestInNamespaces:
    """Where the kernel gives namespaces: refused, or kept in the run and removed."""

    def test_no_route_out(self, real_home: Path, mark: str) -> None:
        """A connection to any non-loopback address fails at once: no interface but lo."""
        outcome = run_hostile(real_home, mark)
        assert all("unreachable" in attempt for attempt in outcome["network"]), outcome
        assert outcome["proxied"] != "ok"

    def test_loopback_stays(self, real_home: Path, mark: str) -> None:
        """A server on 127.0.0.1 inside (a scripted model's) is reachable."""
        assert run_hostile(real_home, mark)["loopback"] == "ok"

    def test_real_home_is_read_only(self, real_home: Path, mark: str) -> None:
        """A write into the caller's HOME is refused (read-only); nothing lands there."""
        outcome = run_hostile(real_home, mark)
        assert outcome["unmount"] != "ok"  # no capability to undo the mount, even as root
        assert "Read-only file system" in outcome["home"]
        assert list(real_home.iterdir()) == []

    def test_system_tmp_is_private(self, real_home: Path, mark: str) -> None:
        """A file written to /tmp lands in the run, is removed with it, and is reported."""
        outcome = run_hostile(real_home, mark)
        assert outcome["tmp"] == "ok"
        assert not Path("/tmp", mark).exists()
        assert f"/tmp/{mark} (in its private /tmp, removed)" in left_behind()

    def test_runs_from_under_tmp(self, tmp_path: Path, real_home: Path, mark: str) -> None:
        """An agent installed under the system temp dir still runs: what it runs from
        stays visible (read-only) in its private /tmp."""
        copy = tmp_path / "installed" / "hostile_agent.py"
        copy.parent.mkdir()
        copy.write_bytes(HOSTILE.read_bytes())
        impl = WireImplementation(
            [sys.executable, str(copy), str(real_home), mark], env={}, confined=True
        )
        try:
            assert impl.call("truncate.head", {}).result["loopback"] == "ok"
        finally:
            impl.close()

    def test_header_says_isolated(self, real_home: Path, mark: str) -> None:
        run_hostile(real_home, mark)
        header = confine.header()
        assert header is not None and header["isolated"] and header["means"] == confine.ISOLATED


class TestEnvironment:
    """With or without namespaces: nothing of the caller's environment, a private HOME."""

    def test_env_is_explicit(self, real_home: Path, mark: str) -> None:
        outcome = run_hostile(real_home, mark)
        assert "HOSTILE_SECRET" not in outcome["env"]
        assert outcome["HOME"] != str(real_home)
        assert outcome["HOME"].startswith(outcome["TMPDIR"])
        assert os.path.basename(os.path.dirname(outcome["TMPDIR"])).startswith("ctxspec-run-")
        assert not os.path.exists(outcome["TMPDIR"])  # removed with the process

    def test_environment_keeps_the_declared(self) -> None:
        env = confine.environment({"NO_COLOR": "1", "HOME": "/elsewhere"}, "/h", "/t")
        assert env["NO_COLOR"] == "1" and env["HOME"] == "/h" and env["TMPDIR"] == "/t"
        assert env["LANG"] == "C.UTF-8" and env["XDG_CONFIG_HOME"] == "/h/.config"


class TestWithoutNamespaces:
    """A kernel without namespaces (stood in for): proxies closed, leftovers reported."""

    @pytest.fixture(autouse=True)
    def no_namespaces(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(confine, "probe", lambda: False)

    def test_proxied_request_refused(self, real_home: Path, mark: str) -> None:
        """A proxy-aware client's request goes to a closed loopback port and fails."""
        outcome = run_hostile(real_home, mark)
        assert "Connection refused" in outcome["proxied"], outcome
        assert "HTTPS_PROXY" in outcome["env"]

    def test_leftovers_reported(self, real_home: Path, mark: str) -> None:
        """What it wrote into the caller's HOME and /tmp is reported (not removed)."""
        run_hostile(real_home, mark)
        left = left_behind()
        assert f"{real_home}/{mark} (reported, not removed)" in left
        assert f"/tmp/{mark} (reported, not removed)" in left

    def test_header_says_not_isolated(self, real_home: Path, mark: str) -> None:
        run_hostile(real_home, mark)
        header = confine.header()
        assert header is not None and not header["isolated"]
        assert header["means"].startswith("not network-isolated")
