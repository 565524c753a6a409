"""The hello checks of `ctxspec.conformance.protocol`: known ops, and the handshake's first line."""

from __future__ import annotations

import json

import pytest

from ctxspec.conformance.errors import ProtocolViolation
from ctxspec.conformance.protocol import (
    OPS,
    STDOUT_RULE,
    decode_hello_line,
    quote_line,
    unknown_ops,
    validate_hello,
)

HELLO = {
    "protocol": 1,
    "implementation": {"name": "port", "version": "0", "language": "node"},
    "ops": ["truncate.head", "truncate.tail"],
}


class TestUnknownOps:
    """An op the suite does not know is named, with its nearest known op."""

    def test_known_ops_pass(self) -> None:
        """Every op of the schemas, `hello` included, is known."""
        assert unknown_ops(OPS) is None
        assert unknown_ops([]) is None

    def test_typo_names_the_nearest_op(self) -> None:
        """`truncate.tial` is named, with `truncate.tail` as the op meant."""
        assert unknown_ops(["truncate.head", "truncate.tial"]) == (
            'hello lists an op the suite does not know: "truncate.tial" '
            '(did you mean "truncate.tail"?)'
        )

    @pytest.mark.parametrize(
        ("typo", "meant"),
        [
            ("truncate_tail", "truncate.tail"),
            ("truncateTail", "truncate.tail"),
            ("TRUNCATE.TAIL", "truncate.tail"),
            ("sesion.parse", "session.parse"),
            ("compaction.prep", "compaction.prepare"),
        ],
    )
    def test_usual_typos(self, typo: str, meant: str) -> None:
        """Separators, case and a dropped letter still find the op meant."""
        assert f'"{typo}" (did you mean "{meant}"?)' in (unknown_ops([typo]) or "")

    def test_every_unknown_op_is_named(self) -> None:
        """Several unknown ops: all named, counted, each with its own hint (or none)."""
        message = unknown_ops(["truncate.tial", "frobnicate.all", "sesion.parse"]) or ""
        assert message.startswith("hello lists 3 ops the suite does not know: ")
        assert '"truncate.tial" (did you mean "truncate.tail"?)' in message
        assert '"sesion.parse" (did you mean "session.parse"?)' in message
        assert '"frobnicate.all", ' in message  # nothing close: no guess

    def test_validate_hello_refuses_an_unknown_op(self) -> None:
        """The handshake's check raises a ProtocolViolation naming the op."""
        validate_hello(HELLO)
        with pytest.raises(ProtocolViolation, match=r'"truncate\.tial"'):
            validate_hello({**HELLO, "ops": ["truncate.tial"]})


class TestFirstLine:
    """The first line on stdout must answer hello; a log line says where logs belong."""

    def test_an_answer_decodes(self) -> None:
        """A protocol line comes back as its message."""
        line = json.dumps({"id": 1, "result": HELLO}).encode() + b"\n"
        assert decode_hello_line(line)["result"] == HELLO

    @pytest.mark.parametrize(
        "line",
        [
            b"[debug] listening on stdin\n",
            b'{"level": "info", "msg": "ready"}\n',
            b'"starting"\n',
            b"\xff\xfe not utf-8\n",
        ],
    )
    def test_a_log_line_is_refused_with_the_rule(self, line: bytes) -> None:
        """Text, a JSON log object, a JSON string, bytes: quoted, with the stderr rule."""
        with pytest.raises(ProtocolViolation) as caught:
            decode_hello_line(line)
        message = caught.value.message
        assert "the first line on stdout is not the answer to hello" in message
        assert message.endswith(STDOUT_RULE)
        assert "b'" not in message  # quoted as JSON, not as a Python repr

    def test_the_line_is_quoted_cut(self) -> None:
        """A long line is quoted cut, head and tail, saying how long it was."""
        quoted = quote_line(b"x" * 500 + b"y\n", limit=120)
        left_out = "… [381 of 501 characters not shown] …"
        assert quoted == f'"{"x" * 60}"{left_out}"{"x" * 59}y"'
        assert quote_line(b"short\r\n") == '"short"'
