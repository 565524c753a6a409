"""Differential fuzzing: `ctxspec fuzz --impl X --against Y`.

For each op both implementations list, hypothesis draws arguments from
`conformance.strategies.ops.OP_ARGS[op]`, both implementations answer, and any
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
with the `--against` answer as the expectation: printed, and with `write_cases` appended
to `DIR/<boundary>/fuzz-<op>.yaml` with an id, the op's most used rule and a why marked
`FUZZ-PLACEHOLDER` for the author to edit. Draws, batches and shrinking depend only on
the seed (and on the answers): the same seed gives the same report.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import struct
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Final

import yaml
from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed

from conformance.cases import BOUNDARIES, expand
from conformance.cli_args import (
    UsageError,
    count,
    impl_spec,
    output_dir,
    output_file,
    positive_int,
    seconds,
)
from conformance.cli_args import seed as seed_type
from conformance.compare import Difference, differences, render, visible
from conformance.equivalence import (
    MATCH_LINE,
    Outcome,
    ask,
    one_of_the_limited_answers,
    result_differences,
)
from conformance.errors import StartupFailed
from conformance.strategies.ops import OP_ARGS
from conformance.transport.base import Implementation
from conformance.transport.resolve import (
    PI_NAME,
    InstallError,
    canonical_name,
    open_implementation,
    prepare,
)
from corpora import cases_root

__all__ = [
    "PLACEHOLDER",
    "Divergence",
    "Found",
    "OpReport",
    "case_yaml",
    "compare",
    "fuzz",
    "fuzz_op",
    "write_cases",
]

DEFAULT_SHRINK_CALLS: Final = 300  # new requests the shrinker may ask of each side, per op
PLACEHOLDER: Final = "FUZZ-PLACEHOLDER"  # in every generated why: the author states the rule
# times a diverging request is asked of the oracle again: an oracle that answers it in
# more than one way (ripgrep's file order under a match limit) is not held to one answer
ORACLE_RECHECKS: Final = 3


# --- asking and comparing ---------------------------------------------------------------


_INDEX = re.compile(r"\[\d+\]")


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
    return _INDEX.sub("[]", difference.path) + how


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
        for side, outcome in (("impl", got), ("against", want)):
            if outcome.failure is not None:
                self.errors[side] += 1
                if len(self.error_samples) < 5:
                    self.error_samples.append(f"{side}: {outcome.failure[:300]}")
        self.unsupported += want.unsupported or got.unsupported
        verdict = compare(want, got, self.op)
        self.diverging += bool(verdict.signature)
        self.refused += verdict.refused

    def to_json(self) -> dict[str, Any]:
        return {
            "op": self.op,
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


def _key(args: Mapping[str, Any]) -> str:
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


def _batch(impl: Implementation, op: str, batch: Sequence[dict[str, Any]]) -> list[Outcome]:
    return [ask(impl, op, args) for args in batch]


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
        again = ask(against, op, args)
        if not any(not compare(known, again, op).signature for known in seen):
            seen.append(again)
    agreeing = [known for known in seen if not compare(known, got, op).signature]
    if not agreeing and one_of_the_limited_answers(against, op, args, want, got):
        return got, False
    return (agreeing[0] if agreeing else want), len(seen) == 1


def fuzz_op(
    op: str,
    impl: Implementation,
    against: Implementation,
    *,
    examples: int,
    seed: int,
    shrink_calls: int = DEFAULT_SHRINK_CALLS,
    progress: Callable[[str], None] = lambda _: None,
) -> OpReport:
    """Fuzz one op: a batch of `examples` draws, then hypothesis shrinks each divergence.

    The shrinker asks at most `shrink_calls` new requests of each side; past that, a new
    candidate counts as agreeing, so shrinking ends with the smallest divergence found so
    far (a bound in calls, not seconds, keeps the run deterministic)."""
    report = OpReport(op)
    strategy = OP_ARGS[op]
    drawn: list[dict[str, Any]] = []

    @hypothesis_seed(seed)
    @_settings(examples, shrink=False)
    @given(strategy)
    def collect(args: dict[str, Any]) -> None:
        drawn.append(args)

    collect()
    unique = list({_key(args): args for args in drawn}.values())
    report.examples = len(drawn)
    progress(f"{op}: {len(unique)} distinct requests to each implementation")
    with ThreadPoolExecutor(max_workers=2) as pool:
        theirs = pool.submit(_batch, against, op, unique)
        ours = _batch(impl, op, unique)
        answers = {
            _key(args): (want, got)
            for args, want, got in zip(unique, theirs.result(), ours, strict=True)
        }
    rechecked = {  # each diverging request, asked of the oracle again
        key: _settle(against, op, args, *answers[key])
        for key, args in ((_key(args), args) for args in unique)
        if compare(*answers[key], op).signature
    }
    for key, (want, _) in rechecked.items():
        answers[key] = (want, answers[key][1])
    for args in drawn:
        key = _key(args)
        steady = key not in rechecked or rechecked[key][1]
        report.count(*answers[key], unsettled=not steady)
    if not report.diverging:
        return report

    @hypothesis_seed(seed)
    @_settings(examples, shrink=True)
    @given(strategy)
    def check(args: dict[str, Any]) -> None:
        key = _key(args)
        if key not in answers:  # a shrink step: asked live, within the budget
            if live[0] >= shrink_calls:
                return
            live[0] += 1
            want, got = ask(against, op, args), ask(impl, op, args)
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


def fuzz(
    impl: Implementation,
    against: Implementation,
    *,
    ops: Sequence[str] | None,
    examples: int,
    seed: int,
    shrink_calls: int = DEFAULT_SHRINK_CALLS,
    progress: Callable[[str], None] = lambda _: None,
    on_report: Callable[[list[OpReport]], None] = lambda _: None,
) -> list[OpReport]:
    """Fuzz `ops` (default: every op with a strategy) and report each; `on_report` sees
    the reports so far after each op (so a long run's findings are kept as it goes)."""
    chosen = list(ops) if ops else sorted(OP_ARGS)
    reports: list[OpReport] = []
    for op in chosen:
        if reports:
            on_report(reports)
        if op not in OP_ARGS:
            reports.append(OpReport(op, skipped="no strategy for this op"))
            continue
        missing = [i.name for i in (impl, against) if op not in i.ops]
        if missing:
            reports.append(OpReport(op, skipped=f"not listed in the hello of {', '.join(missing)}"))
            continue
        reports.append(
            fuzz_op(
                op,
                impl,
                against,
                examples=examples,
                seed=seed,
                shrink_calls=shrink_calls,
                progress=progress,
            )
        )
    on_report(reports)
    return reports


# --- cases ------------------------------------------------------------------------------


def _surrogates(text: str) -> bool:
    return any(0xD800 <= ord(char) <= 0xDFFF for char in text)


def _yaml_value(value: Any) -> Any:
    """`value` with strings YAML cannot hold (lone surrogates) as `$codeUnits` builders."""
    if isinstance(value, str) and _surrogates(value):
        data = value.encode("utf-16-le", "surrogatepass")
        return {"$codeUnits": list(struct.unpack(f"<{len(data) // 2}H", data))}
    if isinstance(value, list):
        return [_yaml_value(item) for item in value]
    if isinstance(value, dict):
        return {key: _yaml_value(item) for key, item in value.items()}
    return value


@dataclass(frozen=True, slots=True)
class CaseText:
    id: str
    boundary: str
    rule: str
    text: str  # one YAML list item (`- id: ...`), with comments above it


_CASE_START = re.compile(r"^(\s*)- id:")
_CASE_KEY = re.compile(r"^(\s*)(?:- )?(op|rule): ['\"]?([A-Za-z0-9_.-]+)")


@cache
def _corpus_homes() -> dict[str, tuple[str, str]]:
    """op -> (its boundary, its most used rule) in the shipped corpus. The case files are
    scanned, not loaded (loading expands and validates 600 cases): a top-level `op:` or
    `rule:` is a file's default, an indented one belongs to the case it is in."""
    boundaries: dict[str, Counter[str]] = {}
    rules: dict[str, Counter[str]] = {}
    for folder in cases_root().iterdir():
        if folder.name not in BOUNDARIES:
            continue
        for file in folder.iterdir():
            if not file.name.endswith(".yaml"):
                continue
            defaults: dict[str, str] = {}
            cases: list[dict[str, str]] = []
            for line in file.read_text("utf-8").splitlines():
                if _CASE_START.match(line):
                    cases.append({})
                elif match := _CASE_KEY.match(line):
                    (cases[-1] if match[1] and cases else defaults)[match[2]] = match[3]
            for case in cases:
                op, rule = (
                    case.get("op", defaults.get("op")),
                    case.get("rule", defaults.get("rule")),
                )
                if op and rule:
                    boundaries.setdefault(op, Counter())[folder.name] += 1
                    rules.setdefault(op, Counter())[rule] += 1
    return {op: (_most_used(boundaries[op]), _most_used(rules[op])) for op in boundaries}


def _most_used(counts: Counter[str]) -> str:
    """The most frequent key; of equals, the first in sorted order (not in file order)."""
    return min(counts.items(), key=lambda item: (-item[1], item[0]))[0]


def case_for(found: Found, impl_name: str, against_name: str) -> CaseText:
    """One minimal divergence as a case of the corpus format, expecting `against`'s answer."""
    boundary, rule = _corpus_homes().get(found.op, ("multibyte_cuts", "TRUNC-1"))
    digest = hashlib.sha256((found.op + _key(found.args)).encode()).hexdigest()[:8]
    case_id = f"fuzz-{re.sub(r'[^a-z0-9]+', '-', found.op)}-{digest}"
    expect = found.expected.expectation()
    case: dict[str, Any] = {
        "id": case_id,
        "why": f"{PLACEHOLDER}: {against_name} and {impl_name} differ at "
        f"{found.signature}; state the behaviour this case pins",
        "op": found.op,
        "rule": rule,
    }
    if expect.get("error") == "invalid_input":
        case["level"] = "invariant"
    case["args"] = _yaml_value(found.args)
    case["expect"] = _yaml_value(expect)
    body = yaml.safe_dump([case], allow_unicode=True, sort_keys=False, width=100)
    loaded = yaml.safe_load(body)[0]
    if differences(found.args, expand(loaded["args"])) or differences(
        expect, expand(loaded["expect"])
    ):  # never happens for JSON values; guard the promise that the case means what it says
        raise ValueError(f"case {case_id} does not survive a YAML round trip")
    notes = [f"# {against_name} vs {impl_name}: {found.signature}"]
    notes += [f"# {line}" for line in found.details.splitlines()[:12]]
    notes.append(f"# {impl_name} answered {found.actual.describe()}")
    return CaseText(case_id, boundary, rule, "\n".join(notes) + "\n" + body)


def case_yaml(found: Sequence[Found], impl_name: str, against_name: str) -> str:
    """A ready-to-paste case file (`behaviour`, `boundary`, `op`, `cases`) per op."""
    by_op: dict[str, list[CaseText]] = {}
    for item in found:
        by_op.setdefault(item.op, []).append(case_for(item, impl_name, against_name))
    return "\n".join(
        _file_head(op, texts[0].boundary) + "".join(t.text for t in texts)
        for op, texts in by_op.items()
    )


def _file_head(op: str, boundary: str) -> str:
    head = {
        "behaviour": f"{PLACEHOLDER}: minimal divergences of {op} found by ctxspec fuzz",
        "boundary": boundary,
        "op": op,
    }
    return "---\n" + yaml.safe_dump(head, sort_keys=False, width=100) + "cases:\n"


def write_cases(
    directory: Path, found: Sequence[Found], impl_name: str, against_name: str
) -> list[Path]:
    """Append each divergence to `directory/<boundary>/fuzz-<op>.yaml` (a corpus layout);
    a case whose id the file already holds is not repeated. Returns the files written."""
    written: list[Path] = []
    for item in found:
        case = case_for(item, impl_name, against_name)
        if case.boundary not in BOUNDARIES:
            raise ValueError(f"unknown boundary {case.boundary!r}")
        path = directory / case.boundary / f"fuzz-{re.sub(r'[^a-z0-9]+', '-', item.op)}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists():
            existing = yaml.safe_load(path.read_text("utf-8")) or {}
            if any(c.get("id") == case.id for c in existing.get("cases", [])):
                continue
            text = path.read_text("utf-8")
        else:
            text = _file_head(item.op, case.boundary).removeprefix("---\n")
        path.write_text(text + case.text, "utf-8")
        if path not in written:
            written.append(path)
    return written


# --- the summary ------------------------------------------------------------------------


def summary(reports: Sequence[OpReport], seed: int, impl_name: str, against_name: str) -> str:
    """The per-op table: examples, diverging examples, distinct minimal divergences, errors."""
    lines = [
        f"ctxspec fuzz: {impl_name} against {against_name}, seed {seed}",
        f"{'op':<26} {'examples':>8} {'diverging':>9} {'distinct':>8} "
        f"{'errors impl/against':>19} {'unsupported':>11} {'refused':>7} {'unsettled':>9}",
    ]
    for report in reports:
        if report.skipped:
            lines.append(f"{report.op:<26} skipped: {report.skipped}")
            continue
        errors = f"{report.errors['impl']}/{report.errors['against']}"
        lines.append(
            f"{report.op:<26} {report.examples:>8} {report.diverging:>9} {len(report.found):>8} "
            f"{errors:>19} {report.unsupported:>11} {report.refused:>7} {report.unsettled:>9}"
        )
        for item in report.found:
            lines.append(f"    - {item.signature}")
        for sample in report.error_samples[:2]:
            lines.append(f"    ! {sample}")
    return "\n".join(lines)


# --- the command ------------------------------------------------------------------------

EXIT_STATUS: Final = {
    0: "no divergence, no error",
    1: "divergences found",
    2: "bad usage, an unknown op, or an implementation that could not be installed",
    3: "no divergence, but requests that crashed, timed out or broke the protocol",
    6: "an implementation did not start",
}


def add_fuzz_command(commands: Any) -> None:
    """`ctxspec fuzz`, registered on the command line's subparsers."""
    statuses = "; ".join(f"{code} {meaning}" for code, meaning in EXIT_STATUS.items())
    parser = commands.add_parser(
        "fuzz",
        help="differential fuzzing of an implementation against another (Pi by default)",
        description=f"Exit status: {statuses}.",
    )
    parser.add_argument(
        "--impl", type=impl_spec, required=True, help="the implementation under test"
    )
    parser.add_argument(
        "--against", type=impl_spec, default=None, help="the oracle (default pi@0.85.0)"
    )
    parser.add_argument(
        "--op", action="append", default=[], help="only this op (repeatable; default all)"
    )
    parser.add_argument("--examples", type=positive_int, default=100, help="examples per op (100)")
    parser.add_argument("--seed", type=seed_type, default=None, help="seed (default: random)")
    parser.add_argument(
        "--shrink-calls",
        type=count,
        default=DEFAULT_SHRINK_CALLS,
        help=f"new requests the shrinker may send per op ({DEFAULT_SHRINK_CALLS})",
    )
    parser.add_argument(
        "--write-cases",
        type=output_dir,
        metavar="DIR",
        help="append minimal cases to DIR/<boundary>/fuzz-<op>.yaml",
    )
    parser.add_argument(
        "--json", type=output_file, metavar="FILE", help="write the per-op report as JSON"
    )
    parser.add_argument("--timeout", type=seconds, default=30.0, help="seconds per request")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    parser.set_defaults(run=main_fuzz)


def main_fuzz(options: Any) -> int:
    impl_name = canonical_name(options.impl)
    against_name = canonical_name(options.against or PI_NAME)
    unknown = [op for op in options.op if op not in OP_ARGS]
    if unknown:
        raise UsageError("--op", f"no strategy for {unknown}; ops: {', '.join(sorted(OP_ARGS))}")
    if options.examples < 1 or options.shrink_calls < 0:
        print("ctxspec fuzz: --examples must be >= 1 and --shrink-calls >= 0", file=sys.stderr)
        return 2
    seed = options.seed if options.seed is not None else secrets.randbelow(2**32)
    try:
        for name in (impl_name, against_name):
            prepare(name)
        impl = open_implementation(impl_name, timeout=options.timeout)
        against = open_implementation(against_name, timeout=options.timeout)
    except (InstallError, ValueError) as error:
        print(f"ctxspec fuzz: {error}", file=sys.stderr)
        return 2

    def progress(message: str) -> None:
        if not options.quiet:
            print(f"[fuzz] {message}", file=sys.stderr, flush=True)

    written: set[str] = set()

    def keep(reports: list[OpReport]) -> None:
        """After each op: its cases printed and written, the JSON report rewritten."""
        report = reports[-1]
        if report.found:
            print(case_yaml(report.found, impl_name, against_name), flush=True)
        if options.write_cases:
            for path in write_cases(
                Path(options.write_cases), report.found, impl_name, against_name
            ):
                written.add(str(path))
        if options.json:
            data = {
                "impl": impl_name,
                "against": against_name,
                "seed": seed,
                "examples": options.examples,
                "ops": [r.to_json() for r in reports],
            }
            Path(options.json).write_text(json.dumps(data, indent=1) + "\n", "utf-8")

    try:
        reports = fuzz(
            impl,
            against,
            ops=options.op or None,
            examples=options.examples,
            seed=seed,
            shrink_calls=options.shrink_calls,
            progress=progress,
            on_report=keep,
        )
    except StartupFailed as error:
        print(f"ctxspec fuzz: {error}", file=sys.stderr)
        return 6
    finally:
        impl.close()
        against.close()
    print(summary(reports, seed, impl_name, against_name))
    for path in sorted(written):
        print(f"cases appended to {path}")
    found = [item for report in reports for item in report.found]
    if found:
        return 1
    return 3 if any(report.errors for report in reports) else 0
