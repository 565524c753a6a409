"""A property's minimal failing example, told as protocol data, the way a case is told.

When a property fails, the `Recording` around the implementation holds the requests and
answers of its failing example: in a verdict, the first (smallest) of its shipped
examples that fails (`fixed_examples`); exploring, the minimal one hypothesis has just
rerun.
This module asks the reference the same requests and tells the example as a golden
case's failure is told, for a reader in any language: the property's rule and
statement, then each request as the JSON the implementation received, the reference's
answer, the implementation's answer and every difference (`compare.render`), then the
command that replays the example and the one that pins it as a case. No Python
traceback, repr or pytest wording; `conform --debug` appends pytest's own report.

- `Exchange`: one request, the implementation's answer and the reference's; judged
  against the reference's answer, or where the reference answers no such op (`agent.*`)
  against the op's result schema (`ctxspec.conformance.judging.shapes`).
- `exchanges_of(recording)`: the recorded example, each request asked of the reference.
- `reading_shapes(test)`: a property test whose `KeyError`, `IndexError`, `TypeError` or
  `AttributeError` on an answer of an unexpected shape is that answer's differences
  (`ShapeMismatch`), not a crash inside the property.
- `tell_property(...)`: the report of a failing property (`Told`: text, record, findings).
- `json_text(value)`: JSON with invisible characters and lone surrogates escaped.
- `save_example(...)`: the replay file, one line in `recording`'s format.
"""

from __future__ import annotations

import functools
import json
import re
import shlex
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, TypeVar

from ctxspec.conformance.ask import Outcome, outcome
from ctxspec.conformance.corpus.cases import rule_index
from ctxspec.conformance.engines.reference import in_process
from ctxspec.conformance.errors import AdapterError, CorpusError, StopAfterTimeout
from ctxspec.conformance.judging.check import ReferenceMismatch, ResultMismatch, reference_verdict
from ctxspec.conformance.judging.compare import render, shorten
from ctxspec.conformance.judging.shapes import schema_differences
from ctxspec.conformance.runner.recording import Recording
from ctxspec.conformance.runner.results import Findings, slug
from ctxspec.conformance.transport.base import Implementation

__all__ = [
    "EXAMPLES_DIR",
    "Exchange",
    "ShapeMismatch",
    "Told",
    "exchanges_of",
    "json_text",
    "pin_command",
    "reading_shapes",
    "replay_command",
    "save_example",
    "tell_exchanges",
    "tell_property",
]

EXAMPLES_DIR: Final = Path(".ctxspec", "examples")  # under the run's cwd: replay files
PIN_DIR: Final = Path(".ctxspec", "cases")  # where the printed pin command writes a case
_SHOWN_CHARS: Final = 4000  # a request or answer in the text keeps its head and tail
_KEPT_CHARS: Final = 20000  # an answer in the record kept whole up to this size
_SHAPE_ERRORS: Final = (KeyError, IndexError, TypeError, AttributeError)
SCHEMA_DEPARTS: Final = "departs from the op's result schema (the reference answers no such op):"
_Test = TypeVar("_Test", bound=Callable[..., Any])


# --- JSON as a reader sees it --------------------------------------------------------------

_INVISIBLE: Final = frozenset({"Cc", "Cf", "Zl", "Zp", "Zs", "Co", "Cn", "Cs"})
# what may need an escape: anything but printable ASCII (checked one character at a time)
_INVISIBLE_RUN: Final = re.compile(r"[^\x20-\x7e]+")


def _escape(char: str) -> str:
    if char == " " or (unicodedata.category(char) not in _INVISIBLE and char != "\ufffd"):
        return char
    units = char.encode("utf-16-le", "surrogatepass")
    return "".join(
        f"\\u{int.from_bytes(units[i : i + 2], 'little'):04x}" for i in range(0, len(units), 2)
    )


def json_text(value: Any, limit: int | None = None) -> str:
    """`value` as one line of JSON, readable: non-ASCII letters as they are; control,
    invisible, replacement and private characters and lone surrogates as `\\uXXXX` (still
    JSON, as JavaScript's `JSON.stringify` escapes lone surrogates). Longer than `limit`
    chars: its head and tail, saying how much was left out.

    >>> print(json_text({"a": "é\\ufeff\\ud83d", "b": [1, None, True]}))
    {"a": "é\\ufeff\\ud83d", "b": [1, null, true]}
    """
    text = json.dumps(value, ensure_ascii=False)
    if limit is not None:  # cut first: an answer of many MB is escaped a few kB at a time
        text = shorten(text, limit)
    return _INVISIBLE_RUN.sub(lambda m: "".join(map(_escape, m[0])), text)


def _wire(outcome: Outcome | None) -> Any:
    """An answer as the protocol carries it: `{"result": …}` or `{"error": …}`; an answer
    that never came as `{"noAnswer": why}`; None where the reference answers no such op."""
    if outcome is None:
        return None
    if outcome.reply is None:
        return {"noAnswer": outcome.failure}
    if outcome.reply.error is not None:
        return {"error": outcome.reply.error.to_wire()}
    return {"result": outcome.reply.result}


# --- the example -----------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Exchange:
    """One request of an example, the implementation's answer and the reference's."""

    op: str
    args: Mapping[str, Any]
    answer: Outcome
    reference: Outcome | None  # None: the reference does not answer this op (agent.*)

    @property
    def request(self) -> dict[str, Any]:
        return {"op": self.op, "args": self.args}

    @property
    def answered(self) -> bool:
        """Whether the implementation answered within the protocol (a result or an error)."""
        return self.answer.reply is not None

    @functools.cached_property
    def judged(self) -> tuple[str, Findings] | None:
        return self._judge()

    def verdict(self) -> tuple[str, Findings] | None:
        """How the answer departs from the reference's (text, findings), or None: the same
        answer, no answer from either side, or no reference answer to compare with. (Judged
        once: an answer of many MB is compared once.)"""
        return self.judged

    def _judge(self) -> tuple[str, Findings] | None:
        reply = self.answer.reply
        if self.reference is None and reply is not None and reply.error is None:
            found = schema_differences(self.op, reply.result)  # no reference: the schema
            if found:
                return f"{SCHEMA_DEPARTS}\n{render(found)}", Findings.of(self.op, found)
        if self.reference is None or self.reference.reply is None or reply is None:
            return None
        return reference_verdict(self.op, self.reference.reply, reply)

    def to_json(self) -> dict[str, Any]:
        return {
            "request": self.request,
            "reference": _kept(_wire(self.reference)),
            "implementation": _kept(_wire(self.answer)),
        }


def _kept(value: Any) -> Any:
    """A value for the record: whole, or past `_KEPT_CHARS` its text cut (`shortened`)."""
    if len(json.dumps(value, ensure_ascii=False)) <= _KEPT_CHARS:
        return value
    return {"shortened": json_text(value, _KEPT_CHARS)}


def reference_answer(reference: Implementation, op: str, args: Mapping[str, Any]) -> Outcome | None:
    """The reference's answer to one request; None for an op it does not answer."""
    answered = outcome(reference, op, args)
    return None if answered.unsupported else answered


@functools.cache
def _reference() -> Implementation:
    return in_process()


def exchanges_of(recording: Recording, reference: Implementation | None = None) -> list[Exchange]:
    """The recorded example: each request, its answer, and the reference's answer to it
    (by default the reference in this process). A last request without an answer (its
    call raised) is kept with `noAnswer`."""
    reference = reference or _reference()
    exchanges = []
    for at, request in enumerate(recording.requests):
        answer = (
            recording.answers[at]
            if at < len(recording.answers)
            else Outcome(failure="the request ended the example before any answer")
        )
        op, args = request["op"], request["args"]
        exchanges.append(
            Exchange(
                op=op, args=args, answer=answer, reference=reference_answer(reference, op, args)
            )
        )
    return exchanges


# --- an answer of an unexpected shape is a difference ---------------------------------------


class ShapeMismatch(ResultMismatch):
    """A property could not read an answer: its shape departs from the reference's."""


def _shape_findings(exchanges: Sequence[Exchange]) -> tuple[str, Findings] | None:
    found = [(e, v) for e in exchanges if (v := e.verdict()) is not None]
    if not found:
        return None
    text = "\n".join(f"{e.op} {v[0]}" for e, v in found)
    return text, _merged([v[1] for _, v in found])


def reading_shapes(test: _Test) -> _Test:
    """`test` (a hypothesis inner test, given the implementation as `impl`) in which a
    `KeyError`, `IndexError`, `TypeError` or `AttributeError` raised while the example's
    answers depart from the reference's is a `ShapeMismatch` naming those differences: a
    missing field, a list where an object was due, a shorter list. With the answers equal
    to the reference's, the error is the property's own, and goes on as it was."""

    @functools.wraps(test)
    def run(*args: Any, **kwargs: Any) -> Any:
        __tracebackhide__ = True
        try:
            return test(*args, **kwargs)
        except _SHAPE_ERRORS as error:
            impl = kwargs.get("impl")
            if not isinstance(impl, Recording):
                raise
            judged = _shape_findings(exchanges_of(impl))
            if judged is None:
                raise
            text, findings = judged
            message = f"an answer of a shape the property cannot read:\n{text}"
            raise ShapeMismatch(message, findings) from error

    return run  # type: ignore[return-value]


# --- the report ------------------------------------------------------------------------------


def replay_command(impl: str, file: str) -> str:
    return f"ctxspec conform --impl {shlex.quote(impl)} --replay {shlex.quote(file)}"


def pin_command(impl: str, file: str, folder: str = str(PIN_DIR)) -> str:
    return f"{replay_command(impl, file)} --write-case {shlex.quote(folder)}"


def _indented(text: str, pad: str) -> str:
    return "\n".join(pad + line if line else line for line in text.splitlines())


def tell_exchanges(exchanges: Sequence[Exchange]) -> list[str]:
    """Each request as JSON, both answers as JSON and every difference, as text lines."""
    lines = []
    count = len(exchanges)
    for at, exchange in enumerate(exchanges, 1):
        lines.append(f"  request {at} of {count}: {json_text(exchange.request, _SHOWN_CHARS)}")
        reference = _wire(exchange.reference)
        shown = (
            "(this op has no reference answer)"
            if reference is None
            else json_text(reference, _SHOWN_CHARS)
        )
        lines.append(f"    reference:      {shown}")
        lines.append(f"    implementation: {json_text(_wire(exchange.answer), _SHOWN_CHARS)}")
        verdict = exchange.verdict()
        if verdict is not None:
            text = verdict[0].removeprefix("differs from the reference:\n")
            lines.append(_indented(text.replace(SCHEMA_DEPARTS, f"  {SCHEMA_DEPARTS}"), "  "))
    return lines


def _reason(error: BaseException) -> str | None:
    """What the property's own check says failed, without Python's wording, or None.

    A `ResultMismatch` is told by its message; an assertion by the message it was given
    (pytest's rewritten explanation, `assert …` and what follows, is Python and is left
    out); an unexpected exception is ctxspec's own bug, named as such."""
    leaves = _leaves(error)
    reasons = []
    for leaf in leaves:
        if isinstance(leaf, ReferenceMismatch | ShapeMismatch):
            reasons.append(str(leaf).split("\n", 1)[0].rstrip(":"))  # the rest: per request
        elif isinstance(leaf, ResultMismatch):
            reasons.append(str(leaf))
        elif isinstance(leaf, AssertionError):
            text = str(leaf)
            stated = "" if text.startswith("assert ") else text.split("\nassert ", 1)[0]
            if stated.strip():
                reasons.append(stated.strip())
        elif isinstance(leaf, AdapterError):  # its request is the example's: not twice
            stderr = f"\n--- stderr (tail) ---\n{leaf.stderr_tail}" if leaf.stderr_tail else ""
            reasons.append(f"{leaf.kind}: {leaf.message}{stderr}")
        elif isinstance(leaf, StopAfterTimeout):
            reasons.append(str(leaf))
        elif isinstance(leaf, CorpusError):  # the suite's own data (stale examples)
            reasons.append(f"the suite's data: {leaf}")
        else:
            kind = type(leaf).__name__
            reasons.append(
                f"ctxspec's own check broke on this example ({kind}, a bug of ctxspec: "
                "`--debug` shows where)"
            )
    if len(leaves) > 1:
        reasons.insert(0, f"the property failed in {len(leaves)} distinct ways; the example "
                       "below is the last one's")  # fmt: skip
    return "\n".join(reasons) or None


def _leaves(error: BaseException) -> list[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in _leaves(inner)]
    return [error]


def _merged(all_findings: Sequence[Findings]) -> Findings:
    if len(all_findings) == 1:
        return all_findings[0]
    ops = {f.op for f in all_findings}
    return Findings(
        op=ops.pop() if len(ops) == 1 else "*",
        shown=tuple(s for f in all_findings for s in f.shown),
        total=sum(f.total for f in all_findings),
        classes=tuple(sorted({key for f in all_findings for key in f.classes})),
    )


def _statement(doc: str | None) -> str:
    """A property's docstring's first paragraph, on one line."""
    first = (doc or "").strip().split("\n\n", 1)[0]
    return " ".join(first.split())


@dataclass(frozen=True, slots=True, kw_only=True)
class Told:
    """A failing property, told: the report's text, the record's `example` and the findings
    of its answers' differences from the reference (None when they have none)."""

    text: str
    example: dict[str, Any]
    findings: Findings | None


def tell_property(
    described: Mapping[str, Any],
    doc: str | None,
    error: BaseException,
    exchanges: Sequence[Exchange],
    *,
    impl: str,
    file: str | None,
) -> Told:
    """The report of a failing property, as a case's: its rule and statement, what its
    check says, its example's requests, both answers and the differences, and (with
    `file`, the saved example) the commands that replay it and pin it as a case."""
    rule = str(described.get("rule"))
    lines = [
        f"property {described['id']} [{rule}, {described.get('level')}] "
        f"({described.get('boundary')})",
        f"  rule: {rule} {rule_index().get(rule, '')}".rstrip(),
        f"  why:  {_statement(doc)}",
    ]
    verdicts = [v for e in exchanges if (v := e.verdict()) is not None]
    reason = _reason(error)
    if reason:
        lines.append(_indented(f"check: {reason}", "  "))
    if exchanges:
        lines.append(f"  minimal failing example, {len(exchanges)} request(s):")
        lines += tell_exchanges(exchanges)
        broken = any(isinstance(leaf, AdapterError | StopAfterTimeout) for leaf in _leaves(error))
        answered = all(e.answered and e.reference is not None for e in exchanges)
        if not verdicts and answered and not broken:
            lines.append(
                "  every answer is the reference's: the reference breaks this property too"
            )
    example: dict[str, Any] = {"exchanges": [e.to_json() for e in exchanges]}
    if file is not None and exchanges:
        replay = replay_command(impl, file)
        lines.append(f"  replay: {replay}")
        example.update(file=file, replay=replay)
        if any(e.reference is not None and e.verdict() for e in exchanges):  # to pin
            pin = pin_command(impl, file)
            lines.append(f"  pin:    {pin}")
            example["pin"] = pin
    findings = _merged([v[1] for v in verdicts]) if verdicts else None
    return Told(text="\n".join(lines), example=example, findings=findings)


def save_example(folder: Path, prop: str, seed: object, exchanges: Sequence[Exchange]) -> Path:
    """Write the example's requests as one line of `recording`'s format (what `--replay`
    and `ctxspec sweep --replay --record` read) to `folder/<property>.json`."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{slug(prop)}.json"
    line = {"property": prop, "seed": seed, "requests": [e.request for e in exchanges]}
    path.write_text(json.dumps(line, ensure_ascii=True) + "\n", "utf-8")
    return path
