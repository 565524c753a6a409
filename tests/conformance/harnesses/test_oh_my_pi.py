"""The fork oh-my-pi 18.3.4 as an implementation: its install, hello, a call."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from ctxspec.conformance.harnesses import oh_my_pi
from ctxspec.conformance.transport.base import Implementation
from ctxspec.conformance.transport.cache import cache_root
from ctxspec.conformance.transport.named import InstallError
from ctxspec.conformance.transport.wire import WireImplementation

VERSION = "18.3.4"


@pytest.fixture(scope="module")
def impl() -> Iterator[Implementation]:
    """One adapter process for the module (the first use installs the fork from npm)."""
    launch = oh_my_pi.install(VERSION, quiet=True)
    implementation = WireImplementation(
        launch.argv, name=launch.name, env=dict(os.environ, **launch.env)
    )
    yield implementation
    implementation.close()


class TestOhMyPi:
    """Install, handshake and answers of the fork's adapter."""

    def test_the_lock_pins_the_fork_and_bun(self) -> None:
        """The committed manifest asks for the exact fork and Bun; the lock has their hashes."""
        files = oh_my_pi.package_files()
        manifest = json.loads(files["package.json"])
        assert manifest["dependencies"]["@oh-my-pi/pi-coding-agent"] == VERSION
        assert manifest["dependencies"]["bun"] == "1.4.2"
        packages = json.loads(files["package-lock.json"])["packages"]
        for name in ("@oh-my-pi/pi-coding-agent", "bun", "@oven/bun-linux-x64"):
            assert packages[f"node_modules/{name}"]["integrity"].startswith("sha512-")

    def test_another_version_is_refused(self) -> None:
        """Only the locked version installs; the error names it."""
        with pytest.raises(InstallError, match=VERSION):
            oh_my_pi.install("18.2.3", quiet=True)

    def test_install_is_cached(self) -> None:
        """A second install returns the same Bun, adapter and package from the cache."""
        first = oh_my_pi.install(VERSION, quiet=True)
        second = oh_my_pi.install(VERSION, quiet=True)
        assert first == second
        bun, script, package = (Path(arg) for arg in first.argv)
        root = cache_root() / "impls" / f"oh-my-pi-{VERSION}"
        assert bun == root / "node_modules" / "@oven" / "bun-linux-x64" / "bin" / "bun"
        assert script == oh_my_pi.ADAPTER
        assert json.loads((package / "package.json").read_text())["version"] == VERSION
        assert Path(first.env["HOME"]).is_relative_to(root)

    def test_hello_lists_the_ops(self, impl: Implementation) -> None:
        """hello names the fork on Bun and lists only the ops whose modules load."""
        impl.call("format.size", {"bytes": 1})  # starts it
        hello = impl.hello
        assert hello["implementation"]["name"] == "oh-my-pi"
        assert hello["implementation"]["version"] == VERSION
        assert hello["implementation"]["language"].startswith("bun ")
        ops = set(hello["ops"])
        assert {"truncate.head", "truncate.tail", "session.context", "compaction.prepare"} <= ops
        assert not ops & {"stream.tail", "tool.read", "prompt.build", "session.parse"}

    def test_one_call_answers(self, impl: Implementation) -> None:
        """truncate.tail answers with the fork's result in Pi's shape (its 3000-line default)."""
        reply = impl.call("truncate.tail", {"content": "a\nb\nc", "maxBytes": 3})
        assert reply.error is None
        assert reply.result == {
            "content": "b\nc",
            "truncated": True,
            "truncatedBy": "bytes",
            "totalLines": 3,
            "totalBytes": 5,
            "outputLines": 2,
            "outputBytes": 3,
            "lastLinePartial": False,
            "firstLineExceedsLimit": False,
            "maxLines": 3000,
            "maxBytes": 3,
        }

    def test_jsonl_is_unsupported(self, impl: Implementation) -> None:
        """A session given as a file's text needs the fork's loader, absent here: unsupported."""
        reply = impl.call("session.context", {"jsonl": ""})
        assert reply.error is not None
        assert reply.error.type == "unsupported"
