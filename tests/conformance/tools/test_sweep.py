"""`ctxspec sweep`'s judgement of recorded requests: new classes, known ones, reference bugs."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ctxspec.conformance.engines.reference import ReferenceImplementation
from ctxspec.conformance.tools.sweep import loose, sweep_requests
from ctxspec.conformance.transport.base import Implementation, Reply


class Tweaked(ReferenceImplementation):
    """The reference, with its answers to one op changed by `tweak`."""

    def __init__(
        self, name: str, op: str, tweak: Callable[[Mapping[str, Any], dict[str, Any]], None]
    ) -> None:
        super().__init__()
        self.name = name
        self.op = op
        self.tweak = tweak

    def call(self, op: str, args: Mapping[str, Any]) -> Reply:
        reply = super().call(op, args)
        if op == self.op and reply.error is None:
            self.tweak(args, reply.result)
        return reply


def _no_marker(_args: Mapping[str, Any], result: dict[str, Any]) -> None:
    result["text"] = result["text"].removesuffix("... [truncated]")


def _bell(args: Mapping[str, Any], result: dict[str, Any]) -> None:
    """Wrong only where the content holds a BEL, which no case of the corpus has."""
    if "\x07" in args["content"]:
        result["outputLines"] += 1


LONG_LINE = {"op": "truncate.line", "args": {"line": "x" * 501}}
SHORT_CUT = {"op": "truncate.line", "args": {"line": "abc", "maxChars": 1}}
TAIL = {"op": "truncate.tail", "args": {"content": "a\x07", "maxBytes": 2}}


def test_a_class_no_case_shows_is_new_once_with_its_smallest_request() -> None:
    impl = Tweaked("tweaked", "truncate.tail", _bell)
    pinned = sweep_requests(
        [TAIL, {"op": "truncate.tail", "args": {"content": "a\x07\nb\x07", "maxBytes": 2}}],
        impl,
        ReferenceImplementation(),
        ReferenceImplementation(),
    )
    assert [(f.op, f.args) for f in pinned.new] == [(TAIL["op"], TAIL["args"])]
    assert pinned.requests == 2
    assert not pinned.reference_bugs


def test_a_class_a_case_already_shows_is_known() -> None:
    # dropping the marker fails the corpus's truncate.line cases the same way
    impl = Tweaked("tweaked", "truncate.line", _no_marker)
    pinned = sweep_requests(
        [LONG_LINE, SHORT_CUT], impl, ReferenceImplementation(), ReferenceImplementation()
    )
    assert not pinned.new
    assert pinned.known


def test_where_the_reference_differs_from_the_oracle_it_is_a_reference_bug() -> None:
    oracle = Tweaked("oracle", "truncate.tail", _bell)
    pinned = sweep_requests([TAIL], ReferenceImplementation(), oracle, ReferenceImplementation())
    assert [f.op for f in pinned.reference_bugs] == ["truncate.tail"]


def test_requests_of_ops_a_side_lacks_are_left_out() -> None:
    class NoLine(ReferenceImplementation):
        def __init__(self) -> None:
            super().__init__()
            self.hello = {
                **self.hello,
                "ops": [o for o in self.hello["ops"] if o != "truncate.line"],
            }

    impl: Implementation = NoLine()
    pinned = sweep_requests([LONG_LINE], impl, ReferenceImplementation(), ReferenceImplementation())
    assert pinned.requests == 0


def test_loose_signatures_ignore_which_characters() -> None:
    assert loose('$.text: "0" vs ""') == loose('$.text: "a" vs ""')
    assert loose('$.text: "\\ud800" vs ""') == loose('$.text: "\\ud83d" vs ""')
    assert loose('$.text: "\\ud800" vs ""') != loose('$.text: "\\udc00" vs ""')
