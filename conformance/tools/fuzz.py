"""Differential fuzzing: `ctxspec fuzz --impl X --against Y`.

For each op both implementations list, hypothesis draws arguments from
`ctxspec.conformance.strategies.ops.OP_ARGS[op]`, both implementations answer, and any
difference is a *divergence*. It runs in two passes with the same seed:

1. **Batch.** The op's examples are drawn first, then sent as one batch to each
   implementation (the two batches run side by side, each over one process: Node's
   start-up is paid once per run, not per request).
2. **Check and shrink.** Hypothesis replays the same draws, reading the answers from the
   batch, and compares them inside the test function. A divergence raises an exception
   whose *type* names its class (the first differing path, indices elided, or the error
   types), so hypothesis shrinks each class to its own minimal example; the inputs the
   shrinker tries are asked live.

Answers compare as golden cases do: results with `compare.differences`, errors by
their type only (messages are not compared). An `unsupported` answer on either side is
no divergence, and neither is `invalid_input` where the `--against` side threw
(`internal`): a typed refusal is what the corpus's invariant cases ask where Pi crashes,
so those examples are counted apart (`refused`). A crash, a timeout or a protocol
violation (a line that is not JSON, a wrong id, or a result whose top-level JSON type
the op does not allow: `protocol.validate_shape`) is counted as an *error* of that side
and is no divergence; only a failed start-up stops the run (`StartupFailed`). As in the
golden checks, a result of the right top-level type is compared field by field: a field
missing or extra is a divergence (`$.firstLineExceedsLimit missing`), not an error.

Each minimal divergence becomes a case in the corpus format (`corpora/case.schema.json`)
with the `--against` answer as the expectation, written by `fuzz_cases`; the command is
`fuzz_cli`. What counts as the same answer is `ctxspec.conformance.judging.equivalence`'s. Draws,
batches and shrinking depend only on the seed (and on the answers): the same seed gives
the same report. A run may take a range of seeds: each op under each seed is one unit
(`fuzz_units`), fuzzed apart from the others, so `--shard K/N` runs the K-th range of
the units on one machine (`shards`) and the N reports merge into the whole run's.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Final

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed

from ctxspec.conformance.ask import Outcome, outcome
from ctxspec.conformance.errors import StartupFailed
from ctxspec.conformance.judging.compare import Difference, elide_indices, render, visible
from ctxspec.conformance.judging.equivalence import (
    MATCH_LINE,
    limit_lifted,
    result_differences,
    within_whole,
)
from ctxspec.conformance.runner.progress import Step
from ctxspec.conformance.runner.progress import progress as progress_bar
from ctxspec.conformance.strategies.ops import OP_ARGS
from ctxspec.conformance.tools.shards import WHOLE, Shard, shard_range
from ctxspec.conformance.transport.base import Implementation

__all__ = [
    "PLACEHOLDER",
    "Divergence",
    "Found",
    "OpReport",
    "compare",
    "fuzz",
    "fuzz_op",
    "fuzz_units",
    "request_key",
]

DEFAULT_SHRINK_CALLS: Final = 300  # new requests the shrinker may ask of each side, per op
PLACEHOLDER: Final = "FUZZ-PLACEHOLDER"  # in every generated why: the author states the rule
# times a diverging request is asked of the oracle again: an oracle that answers it in
# more than one way (ripgrep's file order under a match limit) is not held to one answer
ORACLE_RECHECKS: Final = 3


# --- asking and comparing ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Verdict:
    """How two outcomes compare: `signature` names the divergence class ("" if none)."""

    signature: str
    found: tuple[Difference, ...] = ()
    refused: bool = False  # `invalid_input` where the expected side threw


def compare(expected: Outcome, actual: Outcome, op: str = "") -> Verdict:
    """The divergence of `actual` from `expected`, or an empty signature when they agree
    (or cannot be compared: a failure or `unsupported` on either side). For `tool.grep`,
    the same output lines in another order agree (`_UNORDERED_LINES`). The signature
    names the first differing value, or if none, the first field missing or extra."""
    if expected.reply is None or actual.reply is None or expected.unsupported or actual.unsupported:
        return Verdict("")
    want, got = expected.reply, actual.reply
    if want.error is not None and got.error is not None:
        if want.error.type == got.error.type:
            return Verdict("")
        if (want.error.type, got.error.type) == ("internal", "invalid_input"):
            return Verdict("", refused=True)
        return Verdict(f"error {want.error.type} answered as error {got.error.type}")
    if want.error is not None:
        return Verdict(f"error {want.error.type} answered as a result")
    if got.error is not None:
        return Verdict(f"a result answered as error {got.error.type}")
    found = result_differences(op, want.result, got.result)
    if not found:
        return Verdict("")
    # a value that differs names the class before a field missing or extra: a port that
    # never sends one field would otherwise put every example in that one class
    first = next((d for d in found if d.kind == "differs"), found[0])
    return Verdict(difference_signature(first), tuple(found))


def difference_signature(difference: Difference) -> str:
    """One difference's class: its path (indices elided) and how it differs."""
    how = " missing" if difference.missing else " unexpected" if difference.extra else ""
    if isinstance(difference.expected, str) and isinstance(difference.actual, str):
        how = f": {_line_shape(difference.expected, difference.actual)}"
    return elide_indices(difference.path, "[]") + how


_WORD = re.compile(r"[^\W\d_]+")
_NUMBER = re.compile(r"\d+")
_SPACE = re.compile(r"[ \t]+")
_SHAPE_CHARS: Final = 48
_ENUM = re.compile(r"[A-Za-z_]{1,16}")


_MARKS: Final = (("\ufeff", "BOM"), ("\ufffd", "U+FFFD"), ("\r", "CR"))


def _skeleton(text: str) -> str:
    """Words `a`, numbers `0`, blanks one space; punctuation and invisible characters kept."""
    shape = _SPACE.sub(" ", _NUMBER.sub("0", _WORD.sub("a", text)))
    return visible(shape[:_SHAPE_CHARS] + ("…" if len(shape) > _SHAPE_CHARS else ""))


def _match_kind(line: str) -> str:
    marks = [name for char, name in _MARKS if char in line]
    return "a match line" + (f" with {', '.join(marks)}" if marks else "")


def _lines_class(a: str | None, b: str | None) -> str:
    """The class of two differing lines: grep match lines by kind alone (whichever file,
    number or text); else the skeletons of what differs once the common head and tail are
    cut, so the same wrong notice over any content is one class (`"..." vs ""`)."""
    if a is None or b is None or MATCH_LINE.match(a) or MATCH_LINE.match(b):

        def kind(line: str | None) -> str:
            if line is None:
                return "(no line)"
            return _match_kind(line) if MATCH_LINE.match(line) else _skeleton(line)

        return f"{kind(a)} vs {kind(b)}"
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    return f"{_skeleton(a[head : len(a) - tail])} vs {_skeleton(b[head : len(b) - tail])}"


def _line_shape(expected: str, actual: str) -> str:
    """The class of the first line where two texts differ: finer than the path (a missing
    notice, a BOM kept, matches where there are none, ...), blind to the content around."""
    if _ENUM.fullmatch(expected) and _ENUM.fullmatch(actual):  # `bytes` vs `lines`: as is
        return f"{visible(expected)} vs {visible(actual)}"
    want, got = expected.split("\n"), actual.split("\n")
    for index in range(max(len(want), len(got))):
        a = want[index] if index < len(want) else None
        b = got[index] if index < len(got) else None
        if a != b:
            return _lines_class(a, b)
    return "same lines"  # unreachable for different strings; kept total


class Divergence(AssertionError):
    """Raised inside the hypothesis test; one subclass per divergence class (signature)."""

    signature: str = ""

    def __init__(self, args: Mapping[str, Any], expected: Outcome, actual: Outcome) -> None:
        super().__init__(self.signature)
        self.args_ = dict(args)
        self.expected = expected
        self.actual = actual


_CLASSES: dict[str, type[Divergence]] = {}


def _divergence_class(signature: str) -> type[Divergence]:
    """The exception type of one divergence class: hypothesis shrinks each type apart."""
    if signature not in _CLASSES:
        name = "Divergence_" + hashlib.sha256(signature.encode()).hexdigest()[:10]
        _CLASSES[signature] = type(name, (Divergence,), {"signature": signature})
    return _CLASSES[signature]


# --- one op -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Found:
    """One minimal divergence: the shrunk arguments and both answers."""

    op: str
    signature: str
    args: dict[str, Any]
    expected: Outcome
    actual: Outcome

    @property
    def details(self) -> str:
        verdict = compare(self.expected, self.actual, self.op)
        if verdict.found:
            return render(list(verdict.found))
        return f"  expected {self.expected.describe()}\n  actual   {self.actual.describe()}"


@dataclass(slots=True)
class OpReport:
    """What fuzzing one op found."""

    op: str
    seed: int = 0  # the seed the op was fuzzed with
    unit: int = 0  # its place in the whole run (`shards`): the merged report's order
    examples: int = 0
    diverging: int = 0  # examples of the batch whose answers differ
    errors: Counter[str] = field(default_factory=Counter)  # side -> failed requests
    unsupported: int = 0
    refused: int = 0  # examples answered invalid_input where the against side threw
    unsettled: int = 0  # examples the against side answered in more than one way
    found: list[Found] = field(default_factory=list)  # distinct minimal divergences
    skipped: str = ""  # why the op was not fuzzed
    error_samples: list[str] = field(default_factory=list)

    def count(self, want: Outcome, got: Outcome, *, unsettled: bool = False) -> None:
        """Tally one example of the batch: errors per side, unsupported, refused, diverging,
        and whether the against side answered it in more than one way."""
        self.unsettled += unsettled
        for side, answered in (("impl", got), ("against", want)):
            if answered.failure is not None:
                self.errors[side] += 1
                if len(self.error_samples) < 5:
                    self.error_samples.append(f"{side}: {answered.failure[:300]}")
        self.unsupported += want.unsupported or got.unsupported
        verdict = compare(want, got, self.op)
        self.diverging += bool(verdict.signature)
        self.refused += verdict.refused

    def to_json(self) -> dict[str, Any]:
        return {
            "op": self.op,
            "seed": self.seed,
            "unit": self.unit,
            "examples": self.examples,
            "diverging": self.diverging,
            "divergences": [
                {
                    "signature": f.signature,
                    "args": f.args,
                    "expected": f.expected.describe(),
                    "actual": f.actual.describe(),
                }
                for f in self.found
            ],
            "errors": dict(self.errors),
            "errorSamples": self.error_samples,
            "unsupported": self.unsupported,
            "refused": self.refused,
            "unsettled": self.unsettled,
            "skipped": self.skipped,
        }


def request_key(args: Mapping[str, Any]) -> str:
    return json.dumps(args, sort_keys=True, ensure_ascii=True)


def _settings(examples: int, shrink: bool) -> settings:
    return settings(
        max_examples=examples,
        database=None,
        deadline=None,
        derandomize=False,
        phases=(Phase.generate, Phase.shrink) if shrink else (Phase.generate,),
        report_multiple_bugs=True,
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
    )


def _batch(
    impl: Implementation, op: str, batch: Sequence[dict[str, Any]], step: Step | None = None
) -> list[Outcome]:
    outcomes = []
    for args in batch:
        outcomes.append(outcome(impl, op, args))
        if step is not None:
            step()
    return outcomes


def _leaves(error: BaseException) -> Iterable[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            yield from _leaves(inner)
    else:
        yield error


def _settle(
    against: Implementation, op: str, args: Mapping[str, Any], want: Outcome, got: Outcome
) -> tuple[Outcome, bool]:
    """Ask a diverging request of the oracle again (`ORACLE_RECHECKS` times): the answer to
    hold the implementation to, and whether the oracle kept to one answer. An oracle that
    answers in more than one way is matched by any of its answers (ripgrep walks files in
    parallel: under a match limit, which file's lines come first is not fixed)."""
    seen = [want]
    for _ in range(ORACLE_RECHECKS):
        again = outcome(against, op, args)
        if not any(not compare(known, again, op).signature for known in seen):
            seen.append(again)
    agreeing = [known for known in seen if not compare(known, got, op).signature]
    if not agreeing and _one_of_the_limited_answers(against, op, args, want, got):
        return got, False
    return (agreeing[0] if agreeing else want), len(seen) == 1


def _one_of_the_limited_answers(
    against: Implementation, op: str, args: Mapping[str, Any], want: Outcome, got: Outcome
) -> bool:
    """Whether `got` is an answer the oracle's grep may give under its match limit: the
    oracle asked again with no limit shows each of its match lines (`equivalence`'s rule)."""
    lifted = limit_lifted(op, args, want.reply, got.reply)
    if lifted is None:
        return False
    return within_whole(got.reply, outcome(against, op, lifted).reply)


def fuzz_op(
    op: str,
    impl: Implementation,
    against: Implementation,
    *,
    examples: int,
    seed: int,
    shrink_calls: int = DEFAULT_SHRINK_CALLS,
    progress: Callable[[str], None] = lambda _: None,
    quiet: bool = True,
) -> OpReport:
    """Fuzz one op: a batch of `examples` draws, then hypothesis shrinks each divergence.

    The shrinker asks at most `shrink_calls` new requests of each side; past that, a new
    candidate counts as agreeing, so shrinking ends with the smallest divergence found so
    far (a bound in calls, not seconds, keeps the run deterministic). Unless `quiet`, a
    progress bar (`ctxspec.conformance.runner.progress`) counts the requests `impl` has answered."""
    report = OpReport(op, seed=seed)
    strategy = OP_ARGS[op]
    drawn: list[dict[str, Any]] = []

    @hypothesis_seed(seed)
    @_settings(examples, shrink=False)
    @given(strategy)
    def collect(args: dict[str, Any]) -> None:
        drawn.append(args)

    collect()
    unique = list({request_key(args): args for args in drawn}.values())
    report.examples = len(drawn)
    with (
        ThreadPoolExecutor(max_workers=2) as pool,
        progress_bar(len(unique), f"fuzz {op}", quiet=quiet) as step,
    ):
        theirs = pool.submit(_batch, against, op, unique)
        ours = _batch(impl, op, unique, step)
        answers = {
            request_key(args): (want, got)
            for args, want, got in zip(unique, theirs.result(), ours, strict=True)
        }
    rechecked = {  # each diverging request, asked of the oracle again
        key: _settle(against, op, args, *answers[key])
        for key, args in ((request_key(args), args) for args in unique)
        if compare(*answers[key], op).signature
    }
    for key, (want, _) in rechecked.items():
        answers[key] = (want, answers[key][1])
    for args in drawn:
        key = request_key(args)
        steady = key not in rechecked or rechecked[key][1]
        report.count(*answers[key], unsettled=not steady)
    if not report.diverging:
        return report

    @hypothesis_seed(seed)
    @_settings(examples, shrink=True)
    @given(strategy)
    def check(args: dict[str, Any]) -> None:
        key = request_key(args)
        if key not in answers:  # a shrink step: asked live, within the budget
            if live[0] >= shrink_calls:
                return
            live[0] += 1
            want, got = outcome(against, op, args), outcome(impl, op, args)
            if compare(want, got, op).signature:
                want = _settle(against, op, args, want, got)[0]
            answers[key] = (want, got)
        want, got = answers[key]
        verdict = compare(want, got, op)
        if verdict.signature:
            raise _divergence_class(verdict.signature)(args, want, got)

    live = [0]
    progress(f"{op}: {report.diverging} diverging examples; shrinking")
    try:
        check()
    except BaseException as error:  # hypothesis raises one failure, or a group of them
        leaves = list(_leaves(error))
        for leaf in leaves:
            if isinstance(leaf, KeyboardInterrupt | SystemExit | StartupFailed):
                raise leaf from None
        for leaf in leaves:  # hypothesis itself gave up (flaky replays, ...): said, not fatal
            if not isinstance(leaf, Divergence):
                report.errors["shrink"] += 1
                report.error_samples.append(f"shrink: {type(leaf).__name__}: {leaf}"[:300])
        seen: set[str] = set()
        for leaf in leaves:
            if isinstance(leaf, Divergence) and leaf.signature not in seen:
                seen.add(leaf.signature)
                found = Found(op, leaf.signature, leaf.args_, leaf.expected, leaf.actual)
                report.found.append(found)
    report.found.sort(key=lambda f: f.signature)
    return report


def fuzz_units(ops: Sequence[str] | None, seed: int, seeds: int = 1) -> list[tuple[int, str]]:
    """The run's units in order: each op (default: every op with a strategy) under each
    seed from `seed` on, seed by seed; `--shard` takes a range of them (`shards`)."""
    chosen = list(ops) if ops else sorted(OP_ARGS)
    return [(each, op) for each in range(seed, seed + seeds) for op in chosen]


def fuzz(
    impl: Implementation,
    against: Implementation,
    *,
    ops: Sequence[str] | None,
    examples: int,
    seed: int,
    seeds: int = 1,
    shard: Shard = WHOLE,
    shrink_calls: int = DEFAULT_SHRINK_CALLS,
    progress: Callable[[str], None] = lambda _: None,
    on_report: Callable[[list[OpReport]], None] = lambda _: None,
    quiet: bool = True,
) -> list[OpReport]:
    """Fuzz `ops` under `seeds` seeds from `seed` on (the units of `fuzz_units`; with
    `shard` K/N, its K-th range of them) and report each; `on_report` sees the reports
    so far after each (so a long run's findings are kept as it goes)."""
    units = fuzz_units(ops, seed, seeds)
    reports: list[OpReport] = []
    for unit in shard_range(len(units), shard):
        each, op = units[unit]
        if reports:
            on_report(reports)
        if op not in OP_ARGS:
            reports.append(OpReport(op, each, unit, skipped="no strategy for this op"))
            continue
        missing = [i.name for i in (impl, against) if op not in i.ops]
        if missing:
            skipped = f"not listed in the hello of {', '.join(missing)}"
            reports.append(OpReport(op, each, unit, skipped=skipped))
            continue
        report = fuzz_op(
            op,
            impl,
            against,
            examples=examples,
            seed=each,
            shrink_calls=shrink_calls,
            progress=progress,
            quiet=quiet,
        )
        report.unit = unit
        reports.append(report)
    on_report(reports)
    return reports
