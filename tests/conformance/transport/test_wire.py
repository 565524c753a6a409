"""The wire client against the scripted fake: every breakage becomes a typed error, fast."""

from __future__ import annotations

import sys
from collections.abc import Callable

import pytest

from ctxspec.conformance.errors import (
    Crashed,
    ProtocolViolation,
    StartupFailed,
    StopAfterTimeout,
    Timeout,
)
from ctxspec.conformance.transport.wire import WireImplementation

ARGS = {"content": "a\nb\nc", "maxLines": 2}
Fake = Callable[..., list[str]]


def wire(command: list[str], **options: float) -> WireImplementation:
    return WireImplementation(
        command,
        timeout=options.get("timeout", 5.0),
        startup_timeout=options.get("startup_timeout", 10.0),
    )


class TestWireImplementation:
    """One test per way an implementation can break the protocol."""

    def test_answers_like_the_reference(self, fake: Fake) -> None:
        """A well-behaved implementation's result comes back unchanged."""
        impl = wire(fake())
        try:
            assert impl.call("truncate.head", ARGS).result["content"] == "a\nb"
            assert "truncate.tail" in impl.ops
        finally:
            impl.close()

    def test_hang_is_a_timeout_then_a_restart(self, fake: Fake) -> None:
        """A request without an answer raises Timeout; the next test's call restarts."""
        impl = wire(fake("hang"), timeout=0.5)
        with pytest.raises(Timeout, match=r"within 0\.5 s"):
            impl.call("truncate.head", ARGS)
        with pytest.raises(StopAfterTimeout):  # the same test: no second wait
            impl.call("truncate.head", ARGS)
        impl.new_test()
        with pytest.raises(Timeout):
            impl.call("truncate.head", ARGS)
        assert impl.restarts == 1
        impl.close()

    def test_crash_carries_the_stderr_tail(self, fake: Fake) -> None:
        """A process that dies mid-request raises Crashed with its exit status and last words."""
        impl = wire(fake("crash"))
        with pytest.raises(Crashed) as caught:
            impl.call("truncate.head", ARGS)
        assert "status 3" in caught.value.message
        assert "about to crash on purpose" in caught.value.stderr_tail
        impl.close()

    def test_crashed_process_is_restarted(
        self, fake: Fake, tmp_path: object, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """After a crash the next call starts a fresh process and succeeds."""
        monkeypatch.setenv("FAKE_STATE", f"{tmp_path}/state")
        impl = wire(fake("crash-once"))
        with pytest.raises(Crashed):
            impl.call("truncate.head", ARGS)
        assert impl.call("truncate.head", ARGS).result["content"] == "a\nb"
        impl.close()

    def test_garbage_is_a_protocol_violation(self, fake: Fake) -> None:
        """A line that is not JSON names itself in the error."""
        impl = wire(fake("garbage"))
        with pytest.raises(ProtocolViolation, match="not a JSON line"):
            impl.call("truncate.head", ARGS)
        impl.close()

    def test_wrong_id_is_a_protocol_violation(self, fake: Fake) -> None:
        """An answer to a request that was never sent is refused."""
        impl = wire(fake("wrong-id"))
        with pytest.raises(ProtocolViolation, match="answers no pending request"):
            impl.call("truncate.head", ARGS)
        impl.close()

    def test_bad_hello_fails_startup(self, fake: Fake) -> None:
        """A handshake that is not JSON is a StartupFailed."""
        impl = wire(fake("bad-hello"))
        with pytest.raises(StartupFailed, match="handshake failed"):
            impl.call("truncate.head", ARGS)
        impl.close()

    def test_wrong_protocol_version_fails_startup(self, fake: Fake) -> None:
        """An implementation of another protocol version is refused at the handshake."""
        impl = wire(fake("old-protocol"))
        with pytest.raises(StartupFailed, match="speaks protocol 0"):
            impl.call("truncate.head", ARGS)
        impl.close()

    def test_gives_up_after_repeated_startup_failures(self, fake: Fake) -> None:
        """After three failed starts the client stops spawning and fails fast."""
        impl = wire(fake("bad-hello"))
        for _ in range(3):
            with pytest.raises(StartupFailed):
                impl.call("truncate.head", ARGS)
        with pytest.raises(StartupFailed, match="gave up after 3"):
            impl.call("truncate.head", ARGS)

    def test_missing_command_fails_startup(self) -> None:
        """A command that does not exist is named in the error."""
        impl = wire(["/nonexistent/ctxspec-impl"])
        with pytest.raises(StartupFailed, match="cannot run"):
            impl.call("truncate.head", ARGS)

    def test_chatty_stderr_does_not_block(self, fake: Fake) -> None:
        """Plenty of stderr output is drained and does not stall the answers."""
        impl = wire(fake("stderr"))
        for _ in range(20):
            assert impl.call("truncate.tail", ARGS).result["content"] == "b\nc"
        impl.close()

    def test_lone_surrogates_cross_the_wire(self) -> None:
        """A lone surrogate goes out and comes back intact (escaped JSON both ways)."""
        impl = wire([sys.executable, "-m", "ctxspec.conformance.engines.reference"])
        result = impl.call("truncate.head", {"content": "x\ud83d"}).result
        assert result["content"] == "x\ud83d"
        impl.close()
