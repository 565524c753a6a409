"""A log line on stdout where an answer is due, past a clean handshake: that case's
protocol violation quotes the line and says logs belong on stderr, as at start-up."""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from pathlib import Path

import pytest
from conform import conform

from ctxspec.conformance.errors import ProtocolViolation
from ctxspec.conformance.protocol import STDOUT_RULE, decode_answer_line, decode_line, quote_line
from ctxspec.conformance.transport.wire import WireImplementation

ARGS = {"content": "a\nb\nc", "maxLines": 2}
LOGGED = '"[debug] fake: third request"'
Fake = Callable[..., list[str]]
CASES = (  # one request each: the third one run meets the log line
    "exact-line-fit-not-truncated",
    "head-one-line-under-line-limit-not-truncated",
    "head-one-byte-under-budget-not-truncated",
    "bom-kept-in-untouched-content",
)


class TestDecoding:
    """What a line that is no answer reads as, whatever it is."""

    @pytest.mark.parametrize(
        ("line", "said"),
        [
            (b"debug: ready\n", 'not a JSON line: Expecting value: line 1 column 1 (char 0): "'),
            (b'"ready"\n', 'a message must be a JSON object, got "\\"ready\\""'),
            (b"\xff debug\n", "not a JSON line: 'utf-8' codec can't decode byte 0xff"),
            (
                b'{"level": "info"}\n',
                'a line on stdout that is no answer (a JSON object without an id): "{',
            ),
        ],
    )
    def test_each_says_where_logs_belong(self, line: bytes, said: str) -> None:
        with pytest.raises(ProtocolViolation) as caught:
            decode_answer_line(line)
        message = caught.value.message
        assert said in message
        assert message.endswith(f"; {STDOUT_RULE}")
        assert "b'" not in message  # quoted as JSON, not as a Python repr

    def test_an_answer_passes(self) -> None:
        assert decode_answer_line(b'{"id": 2, "result": 1}\n') == {"id": 2, "result": 1}

    def test_a_long_line_is_cut_head_and_tail(self) -> None:
        """Within the preview's size, head and tail quoted apart (no escape cut), its size."""
        line = b'HEAD"' + b"x" * 5000 + b'"TAIL\n'
        with pytest.raises(ProtocolViolation) as caught:
            decode_line(line)
        message = caught.value.message
        assert '"HEAD\\"x' in message and 'x\\"TAIL"' in message
        assert "… [3010 of 5010 characters not shown] …" in message
        assert len(message) < 2300

    def test_one_helper_quotes_every_line(self) -> None:
        assert quote_line(b"short\r\n") == '"short"'
        assert quote_line(b"abcdefghij", limit=4) == '"ab"… [6 of 10 characters not shown] …"ij"'


@pytest.mark.slow  # each starts the fake implementation as a process
class TestLogLineLater:
    """`stdout-log-later`: a debug line before the third answer after the hello."""

    def test_the_third_call_is_a_violation_naming_the_rule(self, fake: Fake) -> None:
        """Two answers read clean, the third quotes the log line; the next call restarts."""
        impl = WireImplementation(fake("stdout-log-later"), timeout=5.0, startup_timeout=10.0)
        try:
            impl.call("truncate.head", ARGS)
            impl.call("truncate.tail", ARGS)
            with pytest.raises(ProtocolViolation) as caught:
                impl.call("truncate.head", ARGS)
            message = caught.value.message
            assert message.startswith("not a JSON line: ")
            assert message.endswith(f": {LOGGED}; {STDOUT_RULE}")
            assert caught.value.request == {"op": "truncate.head", "args": ARGS}
            assert impl.call("truncate.head", ARGS).result["content"] == "a\nb"
            assert impl.restarts == 1
        finally:
            impl.close()

    def test_conform_reports_it_in_the_case(self, tmp_path: Path, fake: Fake) -> None:
        """In a whole run: the case is an error whose text and record carry the rule."""
        cases = [arg for case in CASES for arg in ("--case", case)]
        impl = shlex.join(fake("stdout-log-later"))
        code, output, data = conform(tmp_path, "--impl", impl, *cases, timeout=180)
        assert code == 1, output
        errors = [r for r in data["records"] if r["status"] == "error"]
        assert len(errors) == 1, output  # the third case; the fourth meets a new process
        assert all(STDOUT_RULE in json.dumps(r) for r in errors)
        assert LOGGED in output and STDOUT_RULE in output
        assert "Traceback" not in output
