"""The wire's start-up checks and framing probes against the scripted fake."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from conform import conform

from ctxspec.conformance.errors import StartupFailed
from ctxspec.conformance.protocol import STDOUT_RULE
from ctxspec.conformance.runner.plugin import STARTUP_FAILED_STATUS
from ctxspec.conformance.transport.wire import WireImplementation

pytestmark = pytest.mark.slow  # each test starts the fake implementation as a process

ARGS = {"content": "a\nb\nc", "maxLines": 2}
Fake = Callable[..., list[str]]


def wire(command: list[str]) -> WireImplementation:
    return WireImplementation(command, timeout=5.0, startup_timeout=10.0)


class TestHelloOps:
    """A hello listing an op the suite does not know fails the start."""

    def test_typo_is_a_startup_failure_naming_the_op_meant(self, fake: Fake) -> None:
        """`truncate.tial` fails the handshake, and `truncate.tail` is named."""
        impl = wire(fake("typo-op"))
        with pytest.raises(StartupFailed) as caught:
            impl.call("truncate.head", ARGS)
        assert caught.value.message == (
            "handshake failed: protocol violation: hello lists an op the suite does not "
            'know: "truncate.tial" (did you mean "truncate.tail"?)'
        )

    def test_every_unknown_op_is_named(self, fake: Fake) -> None:
        """Three unknown ops: the one error names all three."""
        impl = wire(fake("typo-op", "extra-ops"))
        with pytest.raises(StartupFailed, match="hello lists 3 ops") as caught:
            impl.call("truncate.head", ARGS)
        for op in ("truncate.tial", "sesion.parse", "frobnicate.all"):
            assert f'"{op}"' in caught.value.message


class TestLogOnStdout:
    """A line on stdout before the hello's answer: the start fails, saying logs go to stderr."""

    @pytest.mark.parametrize(
        ("mode", "quoted"),
        [
            ("stdout-log", '"[debug] fake: listening on stdin"'),
            ("stdout-json-log", '"{\\"level\\": \\"info\\", \\"msg\\": \\"fake: ready\\"}"'),
        ],
    )
    def test_log_line_is_quoted_with_the_rule(self, fake: Fake, mode: str, quoted: str) -> None:
        """A text or JSON log line is quoted, and the rule says where logs belong."""
        impl = wire(fake(mode))
        with pytest.raises(StartupFailed) as caught:
            impl.call("truncate.head", ARGS)
        message = caught.value.message
        assert f"the first line on stdout is not the answer to hello: {quoted}" in message
        assert message.endswith(STDOUT_RULE)


class TestFraming:
    """What `ctxspec smoke` reads of the wire: the id sent, lines past an answer."""

    def test_request_ids_and_no_stray_output(self, fake: Fake) -> None:
        """The hello is request 1; each call's id is kept; a clean answer leaves nothing."""
        impl = wire(fake())
        try:
            impl.call("truncate.head", ARGS)
            assert impl.last_request_id == 2
            assert impl.stray_output(0.05) == b""
            impl.call("truncate.tail", ARGS)
            assert impl.last_request_id == 3
        finally:
            impl.close()

    def test_a_second_answer_line_is_stray_output(self, fake: Fake) -> None:
        """An answer written twice: the second line is taken as stray output."""
        impl = wire(fake("duplicate"))
        try:
            impl.call("truncate.head", ARGS)
            stray = impl.stray_output(1.0)
            assert stray.startswith(b'{"id": 2, "result": ')
            impl.call("truncate.tail", ARGS)  # read clean: the stray line was taken
        finally:
            impl.close()


class TestConformStops:
    """`ctxspec conform` stops at such a start: exit 6, one error, the cause in the results."""

    @pytest.mark.parametrize(
        ("mode", "said"),
        [
            ("typo-op", '"truncate.tial" (did you mean "truncate.tail"?)'),
            ("stdout-log", f'"[debug] fake: listening on stdin"; {STDOUT_RULE}'),
        ],
    )
    def test_exit_6_naming_the_cause(
        self, tmp_path: Path, fake: Fake, mode: str, said: str
    ) -> None:
        """The whole corpus selected, yet one error saying what to fix; no record."""
        code, output, data = conform(tmp_path, "--impl", shlex.join(fake(mode)), timeout=120)
        assert code == STARTUP_FAILED_STATUS, output
        assert output.count("did not start") == 1, output
        assert said in output
        assert "Traceback" not in output
        assert data["records"] == []
        assert said in data["header"]["startupFailed"]

    @pytest.mark.parametrize(
        ("mode", "cause"),
        [
            ("crash-at-start", "crashed: exited with status 1 while answering 'hello'"),
            ("typo-op", 'does not know: "truncate.tial" (did you mean "truncate.tail"?)'),
        ],
    )
    @pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["one process", "xdist"])
    def test_only_ctxspec_lines(
        self, tmp_path: Path, fake: Fake, mode: str, cause: str, workers: list[str]
    ) -> None:
        """No pytest vocabulary reaches a port author: the command, the cause and the stderr
        tail on stderr, nothing on stdout, exit 6, the cause in the JSON header."""
        command = shlex.join(fake(mode))
        results = tmp_path / "results.json"
        argv = ["conform", "--impl", command, *workers, "--json", str(results)]
        done = subprocess.run(
            [sys.executable, "-m", "ctxspec", *argv],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=120,
            check=False,
        )
        assert done.returncode == STARTUP_FAILED_STATUS, done.stdout + done.stderr
        assert done.stdout == ""
        for pytest_word in ("_pytest", "!!!!", "Exit:", "Traceback", "===", "no tests ran"):
            assert pytest_word not in done.stderr, done.stderr
        lines = done.stderr.splitlines()
        assert lines[:2] == [
            "ctxspec: the implementation under test did not start, so no case was run",
            f"  command: {command}",
        ]
        assert lines[2].startswith("  startup failed: handshake failed: ") and cause in lines[2]
        tail = ["--- stderr (tail) ---", "fake: cannot start on purpose"]
        assert lines[3:] == (tail if mode == "crash-at-start" else [])
        assert cause in json.loads(results.read_text())["header"]["startupFailed"]
