"""The one Python protocol loop and the launcher of PyPI ports, on a bare interpreter.

`tests/support/fake_port_adapter.py` runs as a port's adapter runs (`pyrun.py`), under
`python -I -S`: no site-packages and no PYTHONPATH, so ctxspec's loop and tree code
must import with the standard library alone, and nothing else of ctxspec may load.
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from paths import FAKE_PORT_ADAPTER

from ctxspec.conformance.harnesses.kit import jsonlines
from ctxspec.conformance.transport.pyrun import PYRUN
from ctxspec.conformance.transport.wire import WireImplementation

FAKE = FAKE_PORT_ADAPTER
OUT = {"w/a.txt": "a", "w/out": {"symlink": "../../../../../../../../etc"}}


@pytest.fixture(scope="module")
def port() -> Iterator[WireImplementation]:
    impl = WireImplementation([sys.executable, "-I", "-S", str(PYRUN), str(FAKE)], timeout=20)
    yield impl
    impl.close()


class TestLoopInAPortsVenv:
    def test_only_the_standard_library_modules_of_ctxspec_load(
        self, port: WireImplementation
    ) -> None:
        """The loop, the tree code and the error they share; no package __init__ runs."""
        reply = port.call("messages.convert", {"messages": []})
        assert reply.result[0]["content"].split() == [
            "ctxspec",
            "ctxspec.conformance",
            "ctxspec.conformance.harnesses",
            "ctxspec.conformance.harnesses.kit",
            "ctxspec.conformance.harnesses.kit.jsonlines",
            "ctxspec.conformance.harnesses.kit.tree",
            "ctxspec.reference",
            "ctxspec.reference.errors",
        ]

    def test_hello_lists_the_handlers(self, port: WireImplementation) -> None:
        port.call("tool.read", {"tree": {"a": "x"}, "cwd": "/", "path": "a"})
        assert port.hello["implementation"]["name"] == "fake-port"
        ops = ["tool.read", "messages.convert", "truncate.head", "format.size"]
        assert port.hello["ops"] == sorted([*ops, "skills.format", "tokens.estimate"])

    def test_an_escaping_tree_is_refused_before_the_handler(self, port: WireImplementation) -> None:
        """A link out of the tree is invalid_input naming `tree`, on any op, read or not."""
        for op in ("tool.read", "format.size"):
            reply = port.call(op, {"tree": OUT, "cwd": "/w", "path": "out/hostname", "bytes": 1})
            assert reply.error is not None, reply
            assert (reply.error.type, reply.error.field) == ("invalid_input", "tree")

    def test_dotdot_in_a_path_stops_at_the_root(self, port: WireImplementation) -> None:
        args = {"tree": {"w/a.txt": "a", "x.txt": "in"}, "cwd": "/w", "path": "/w/../../x.txt"}
        assert port.call("tool.read", args).result == {"isError": False, "text": "in"}

    @pytest.mark.parametrize(
        ("op", "kind", "text"),
        [
            ("truncate.head", "internal", "RuntimeError: the port's own bug"),
            ("format.size", "internal", "ValueError: Out of range float values"),
            ("skills.format", "invalid_input", "ValidationError: 1 validation error"),
            ("tokens.estimate", "unsupported", "the port has no such input"),
        ],
    )
    def test_errors_are_typed_and_the_loop_goes_on(
        self, port: WireImplementation, op: str, kind: str, text: str
    ) -> None:
        """A crash or a non-JSON answer is internal (traceback in detail), the port's refusal
        invalid_input without a field, an inexpressible input unsupported."""
        reply = port.call(op, {"content": "a", "bytes": 1, "skills": [], "message": {}})
        assert reply.error is not None, reply
        assert reply.error.type == kind and reply.error.message.startswith(text)
        assert reply.error.field is None
        assert port.call("tool.read", {"tree": {"a": "x"}, "cwd": "/", "path": "a"}).result


def _serve(lines: list[bytes]) -> list[Any]:
    out = io.BytesIO()
    jsonlines.serve(
        lambda request: {"id": request["id"], "result": 1}, io.BytesIO(b"".join(lines)), out
    )
    return [json.loads(line) for line in out.getvalue().splitlines()]


class TestLoop:
    def test_lines_that_are_no_request_are_skipped(self) -> None:
        """Not JSON, not an object, blank: named on stderr, no answer, the next one answered."""
        lines = [b"{nope\n", b"[1]\n", b"\n", b'{"id": 7, "op": "x"}\n']
        assert _serve(lines) == [{"id": 7, "result": 1}]

    def test_an_unknown_op_is_unsupported(self) -> None:
        answer = jsonlines.dispatch({}, {"implementation": {"name": "n"}})
        assert answer({"id": 1, "op": "tool.read"})["error"]["type"] == "unsupported"
        assert answer({"id": 2, "op": "hello"})["result"]["ops"] == []
