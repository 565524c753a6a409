"""An error names the request that broke and shows the offending answer at the report's bound.

A port that answers garbage, the wrong top-level type, or dies while answering gets an
*error*; its report and its JSON record carry the request that was pending (as JSON),
and a malformed answer line is shown up to about 2,000 characters, head and tail kept.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ctxspec.conformance.errors import Crashed, ProtocolViolation
from ctxspec.conformance.judging.check import answer
from ctxspec.conformance.protocol import PREVIEW_CHARS, decode_line
from ctxspec.conformance.runner.results import record
from ctxspec.conformance.transport.wire import WireImplementation

# a port that lists truncate.tail and breaks on it as its first argument says
FAKE = """
import json, sys
mode = sys.argv[1]
for line in sys.stdin:
    request = json.loads(line)
    if request["op"] == "hello":
        ops = ["truncate.tail"]
        result = {"protocol": 1, "implementation": {"name": "f", "version": "0",
                  "language": "python"}, "ops": ops}
        print(json.dumps({"id": request["id"], "result": result}), flush=True)
    elif mode == "garbage":
        print("HEAD" + "x" * 3000 + "TAIL", flush=True)
    elif mode == "wrong-type":
        print(json.dumps({"id": request["id"], "result": ["a"] * 1500}), flush=True)
    else:
        sys.exit(3)
"""
ARGS = {"content": "x\n\U0001f642\ud83d", "maxBytes": 5}
CASE = "tail-cut-inside-3-byte-sequence-after-byte-1"


@pytest.fixture
def port(tmp_path: Path) -> Path:
    script = tmp_path / "port.py"
    script.write_text(FAKE, "utf-8")
    return script


def _wire(port: Path, mode: str) -> WireImplementation:
    return WireImplementation([sys.executable, str(port), mode], timeout=10, startup_timeout=20)


class TestPreview:
    """How a line that is no protocol message is shown."""

    def test_a_long_line_keeps_its_head_and_tail(self) -> None:
        line = b"HEAD" + b"x" * 5000 + b"TAIL\n"
        with pytest.raises(ProtocolViolation) as caught:
            decode_line(line)
        message = caught.value.message
        assert '"HEAD' in message and 'TAIL"' in message
        assert "of 5008 characters not shown" in message
        assert len(message) < PREVIEW_CHARS + 300

    def test_a_short_line_is_shown_whole_and_quoted_as_json(self) -> None:
        with pytest.raises(ProtocolViolation) as caught:
            decode_line(b"debug: starting\n")
        assert ': "debug: starting"; ' in caught.value.message
        assert "b'" not in caught.value.message  # no Python bytes repr


@pytest.mark.slow  # each starts the fake port as a process
class TestPendingRequest:
    """The error carries the request it broke on, and its text shows it as JSON."""

    def test_garbage(self, port: Path) -> None:
        impl = _wire(port, "garbage")
        try:
            with pytest.raises(ProtocolViolation) as caught:
                impl.call("truncate.tail", ARGS)
        finally:
            impl.close()
        assert caught.value.request == {"op": "truncate.tail", "args": ARGS}
        text = str(caught.value)
        assert '\n  request: {"op": "truncate.tail", "args": {"content": "x\\n🙂\\ud83d"' in text
        assert "TAIL" in text  # the line's end is shown, past 219 characters

    def test_a_result_of_the_wrong_type(self, port: Path) -> None:
        impl = _wire(port, "wrong-type")
        try:
            with pytest.raises(ProtocolViolation, match="got array") as caught:
                answer(impl, "truncate.tail", ARGS)
        finally:
            impl.close()
        assert caught.value.request == {"op": "truncate.tail", "args": ARGS}
        assert "chars not shown" in caught.value.message  # 1,500 items: head and tail

    def test_a_crash(self, port: Path) -> None:
        impl = _wire(port, "crash")
        try:
            with pytest.raises(Crashed) as caught:
                impl.call("truncate.tail", ARGS)
        finally:
            impl.close()
        assert caught.value.request == {"op": "truncate.tail", "args": ARGS}


class TestRecord:
    """An error record keeps the request; other records do not."""

    def test_error_record_has_the_request(self) -> None:
        request = {"op": "truncate.tail", "args": {"content": "abc"}}
        entry = record({"id": "x"}, status="error", duration=0.1, request=request)
        assert entry["request"] == request
        failed = record({"id": "x"}, status="failed", duration=0.1, request=request)
        assert "request" not in failed

    def test_a_huge_request_is_shortened(self) -> None:
        request = {"op": "truncate.tail", "args": {"content": "a" * 100_000}}
        entry = record({"id": "x"}, status="error", duration=0.1, request=request)
        assert set(entry["request"]) == {"shortened"}
        assert len(entry["request"]["shortened"]) < 21_000


@pytest.mark.slow  # a whole conform run
def test_a_run_reports_the_request_in_text_and_json(port: Path, tmp_path: Path) -> None:
    results = tmp_path / "results.json"
    command = f"{sys.executable} {port} garbage"
    completed = subprocess.run(
        [sys.executable, "-m", "ctxspec", "conform", "--impl", command,
         "--case", CASE, "--json", str(results)],
        capture_output=True, text=True, timeout=300, cwd=tmp_path, check=False,
    )  # fmt: skip
    assert completed.returncode == 1, completed.stdout + completed.stderr
    data: dict[str, Any] = json.loads(results.read_text("utf-8"))
    (entry,) = data["records"]
    assert entry["status"] == "error"
    assert entry["request"]["op"] == "truncate.tail"
    assert entry["request"]["args"]["maxBytes"] == 5
    assert '  request: {"op": "truncate.tail", "args": {' in completed.stdout
    assert "TAIL" in completed.stdout
