"""`ctxspec fuzz`: it finds a planted divergence, shrinks it, writes a case that loads and
means what it says; the reference agrees with itself over the wire; a seed fixes the run;
a broken implementation is counted, not fatal."""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from paths import FAKE_IMPL

from ctxspec.cli import main
from ctxspec.conformance import ask
from ctxspec.conformance.corpus.cases import expand, lint, load_cases, load_cases_from
from ctxspec.conformance.engines.reference import ReferenceImplementation
from ctxspec.conformance.judging import equivalence
from ctxspec.conformance.judging.check import check_case
from ctxspec.conformance.protocol import OPS, OpError, validate_args
from ctxspec.conformance.strategies.ops import OP_ARGS
from ctxspec.conformance.tools import fuzz, fuzz_cases
from ctxspec.conformance.transport.base import Implementation, Reply
from ctxspec.conformance.transport.wire import WireImplementation
from ctxspec.corpora import cases_root

FAKE = str(FAKE_IMPL)


class Planted(Implementation):
    """The reference, except that `truncate.line` of a line holding "é" says the line was
    not cut, and `format.size` of 2048 or more bytes answers an error."""

    name = "planted"

    def __init__(self) -> None:
        self.inner = ReferenceImplementation()
        self.hello = self.inner.hello

    def call(self, op: str, args: Mapping[str, Any]) -> Reply:
        reply = self.inner.call(op, args)
        if op == "truncate.line" and "é" in args["line"]:
            return Reply(result={**reply.result, "wasTruncated": not reply.result["wasTruncated"]})
        if op == "format.size" and args["bytes"] >= 2048:
            return Reply(error=OpError("internal", "planted"))
        return reply


def _fuzz(op: str, impl: Implementation, seed: int = 7, examples: int = 60) -> fuzz.OpReport:
    return fuzz.fuzz_op(op, impl, ReferenceImplementation(), examples=examples, seed=seed)


def test_every_protocol_op_has_a_strategy() -> None:
    # agent.* answers differ by each agent's declared terms: the universal checks judge
    # them (suite/test_agent_properties.py), never a differential run against the reference
    fuzzed = {op for op in OPS if op != "hello" and not op.startswith(("bench.", "agent."))}
    missing = fuzzed - set(OP_ARGS)
    assert not missing, f"ops without a fuzz strategy: {sorted(missing)}"


@pytest.mark.parametrize("op", sorted(OP_ARGS))
def test_strategies_draw_valid_arguments(op: str) -> None:
    if op not in OPS:
        pytest.skip(f"{op} has no schema in this checkout")

    @settings(
        max_examples=15,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(OP_ARGS[op])
    def valid(args: dict[str, Any]) -> None:
        assert validate_args(op, args) is None

    valid()


def test_planted_divergence_is_found_and_shrunk() -> None:
    report = _fuzz("truncate.line", Planted())
    assert report.diverging > 0
    assert [found.signature for found in report.found] == ["$.wasTruncated"]
    (found,) = report.found
    assert found.args == {"line": "é"}  # the shrinker's minimum: one character, no limit
    assert found.expected.reply is not None and found.expected.reply.result["wasTruncated"] is False


def test_an_error_against_a_result_is_its_own_class() -> None:
    report = _fuzz("format.size", Planted())
    signatures = {found.signature for found in report.found}
    assert signatures == {"a result answered as error internal"}
    (found,) = report.found
    assert list(found.args) == ["bytes"] and found.args["bytes"] >= 2048


class Wavering(Implementation):
    """The reference, except that `format.size` of an odd count answers two ways in turn
    (as Pi's grep does, where ripgrep's parallel walk decides which file comes first);
    with `off`, an implementation that answers odd counts in a third way."""

    name = "wavering"

    def __init__(self, *, off: bool = False) -> None:
        self.inner = ReferenceImplementation()
        self.hello = self.inner.hello
        self.off = off
        self.calls = 0

    def call(self, op: str, args: Mapping[str, Any]) -> Reply:
        reply = self.inner.call(op, args)
        if op != "format.size" or args["bytes"] % 2 == 0:
            return reply
        self.calls += 1
        if self.off:
            return Reply(result=f"{reply.result}?")
        return Reply(result=f"{reply.result}!") if self.calls % 2 else reply


def test_an_oracle_answering_two_ways_is_matched_by_either() -> None:
    report = fuzz.fuzz_op("format.size", ReferenceImplementation(), Wavering(), examples=60, seed=7)
    assert report.diverging == 0 and not report.found
    assert report.unsettled > 0  # said, not hidden


def test_an_answer_the_wavering_oracle_never_gives_still_diverges() -> None:
    report = fuzz.fuzz_op("format.size", Wavering(off=True), Wavering(), examples=60, seed=7)
    assert report.diverging > 0 and report.found
    for found in report.found:
        assert found.actual.reply is not None and found.actual.reply.result.endswith("?")


def test_written_case_loads_lints_and_pins_the_oracle(tmp_path: Path) -> None:
    report = _fuzz("truncate.line", Planted())
    fuzz_cases.write_cases(tmp_path, report.found, "planted", "reference")
    fuzz_cases.write_cases(tmp_path, report.found, "planted", "reference")  # appended once only
    cases = load_cases_from(tmp_path)
    assert len(cases) == 1
    (case,) = cases
    assert case.id.startswith("fuzz-truncate-line-") and fuzz.PLACEHOLDER in case.why
    # the file is the corpus's behaviour file for the op, not named after how it was found
    homes = {case.source.split("#")[0] for case in load_cases() if case.op == "truncate.line"}
    assert case.source.split("#")[0] in homes and "fuzz" not in case.source
    assert lint(cases) == []
    check_case(ReferenceImplementation(), case)  # the oracle's answer is the expectation
    with pytest.raises(AssertionError):
        check_case(Planted(), case)


@pytest.mark.slow
def test_written_case_joins_the_corpus_file_of_its_op(tmp_path: Path) -> None:
    """Written into a copy of the corpus itself, the case is appended to the behaviour file
    holding the op's cases (an indented list there), and the corpus still loads."""
    shutil.copytree(str(cases_root()), tmp_path, dirs_exist_ok=True)
    report = _fuzz("truncate.line", Planted())
    (path,) = fuzz_cases.write_cases(tmp_path, report.found, "planted", "reference")
    assert path.parent.name == "multibyte_cuts" and path.name != "truncate-line.yaml"
    assert "  - id:" in path.read_text("utf-8")  # this file indents its list
    cases = load_cases_from(tmp_path)
    (new,) = [case for case in cases if fuzz.PLACEHOLDER in case.why]
    assert new.source.startswith(f"multibyte_cuts/{path.name}#")
    assert len(cases) == len(load_cases()) + 1


def test_case_yaml_keeps_lone_surrogates_and_odd_strings() -> None:
    args = {"line": "\ud83d a\ufeff\r\nyes", "maxChars": 1}
    oracle = ReferenceImplementation()
    expected = ask.outcome(oracle, "truncate.line", args)
    actual = ask.Outcome(reply=Reply(result={"text": "", "wasTruncated": False}))
    found = fuzz.Found("truncate.line", "$.text", args, expected, actual)
    text = fuzz_cases.case_yaml([found], "x", "reference")
    data = yaml.safe_load(text)
    assert data["op"] == "truncate.line" and data["boundary"] == "multibyte_cuts"
    (case,) = data["cases"]
    assert case["args"]["line"] == {
        "$codeUnits": [0xD83D, 0x20, 0x61, 0xFEFF, 13, 10, 121, 101, 115]
    }
    assert expand(case["args"]) == args
    assert expand(case["expect"]["result"]) == expected.reply.result  # type: ignore[union-attr]


def test_reference_agrees_with_itself_over_the_wire() -> None:
    wire = WireImplementation([sys.executable, "-m", "ctxspec.conformance.engines.reference"])
    try:
        reports = fuzz.fuzz(wire, ReferenceImplementation(), ops=None, examples=4, seed=3)
    finally:
        wire.close()
    assert {r.op for r in reports} == set(OP_ARGS)
    for report in reports:
        assert not report.skipped, report.op
        assert report.examples > 0, report.op
        assert (report.diverging, report.found, dict(report.errors)) == (0, [], {}), report.op


def test_same_seed_same_report_other_seed_other_draws() -> None:
    first = [_fuzz(op, Planted(), seed=11).to_json() for op in ("truncate.line", "format.size")]
    again = [_fuzz(op, Planted(), seed=11).to_json() for op in ("truncate.line", "format.size")]
    assert first == again
    drawn: dict[int, list[str]] = {}
    for seed in (1, 2):
        recorder = Recorder()
        fuzz.fuzz_op("tool.grep", recorder, Recorder(), examples=5, seed=seed)
        drawn[seed] = recorder.requests
    assert drawn[1] != drawn[2]


class Recorder(Implementation):
    """Answers every request with the same result and records what it was asked."""

    name = "recorder"

    def __init__(self) -> None:
        self.hello = {"ops": sorted(OP_ARGS)}
        self.requests: list[str] = []

    def call(self, op: str, args: Mapping[str, Any]) -> Reply:
        self.requests.append(json.dumps(args, sort_keys=True))
        return Reply(result={"isError": False, "text": ""})


def test_cli_reports_a_crashing_implementation_and_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report.json"
    impl = f"{sys.executable} {FAKE} crash"
    args = ["--op", "format.size", "--examples", "2", "--seed", "5", "--json", str(out), "-q"]
    code = main(["fuzz", "--impl", impl, "--against", "reference", *args])
    assert code == 3  # no divergence, but errors
    (op,) = json.loads(out.read_text())["ops"]
    assert op["errors"] == {"impl": op["examples"]} and op["divergences"] == []
    assert "crashed" in op["errorSamples"][0]
    assert "format.size" in capsys.readouterr().out


def test_cli_finds_a_wrong_wire_implementation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    impl = f"{sys.executable} {FAKE} wrong"
    args = ["--op", "truncate.head", "--examples", "40", "--seed", "2", "-q"]
    code = main(
        ["fuzz", "--impl", impl, "--against", "reference", *args, "--write-cases", str(tmp_path)]
    )
    printed = capsys.readouterr().out
    assert code == 1
    assert "$.truncatedBy" in printed and "- id: fuzz-truncate-head-" in printed
    cases = load_cases_from(tmp_path)
    assert cases and lint(cases) == []
    assert main(["cases", "lint", "--root", str(tmp_path)]) == 0


def test_cli_exit_status_for_a_dead_start_and_bad_usage(capsys: pytest.CaptureFixture[str]) -> None:
    dead = f"{sys.executable} -c 'import sys; sys.exit(1)'"
    args = ["fuzz", "--impl", dead, "--against", "reference", "--op", "format.size", "-q"]
    assert main([*args, "--examples", "2"]) == 6
    assert main(["fuzz", "--impl", "reference", "--op", "no.such.op"]) == 2
    assert "no strategy" in capsys.readouterr().err


def _result(value: Any) -> ask.Outcome:
    return ask.Outcome(reply=Reply(result=value))


def test_divergence_classes() -> None:
    def signature(want: Any, got: Any, op: str = "tool.grep") -> str:
        return fuzz.compare(_result(want), _result(got), op).signature

    grep = {"isError": False}
    assert signature({**grep, "text": "a:1: x\nb:2: y"}, {**grep, "text": "b:2: y\na:1: x"}) == ""
    assert signature({**grep, "text": "a:1: x"}, {**grep, "text": "a:1: \ufeffx"}) == (
        "$.text: a match line vs a match line with BOM"
    )
    assert signature({**grep, "text": "No matches found"}, {**grep, "text": "a:1: x"}) == (
        '$.text: "a a a" vs a match line'
    )
    assert signature({"truncatedBy": "bytes"}, {"truncatedBy": "lines"}) == (
        '$.truncatedBy: "bytes" vs "lines"'
    )
    assert signature({"a": [1, {"b": 2}]}, {"a": [1, {"b": 3}]}) == "$.a[].b"
    assert signature({"a": 1}, {}) == "$.a missing"
    unsupported = ask.Outcome(reply=Reply(error=OpError("unsupported", "no")))
    crashed = ask.Outcome(failure="crashed: gone")
    assert fuzz.compare(_result(1), unsupported).signature == ""
    assert fuzz.compare(crashed, _result(1)).signature == ""
    internal = ask.Outcome(reply=Reply(error=OpError("internal", "boom")))
    assert fuzz.compare(_result(1), internal).signature == "a result answered as error internal"
    # a typed refusal where the oracle threw is counted apart, never the other way round
    refusal = ask.Outcome(reply=Reply(error=OpError("invalid_input", "bad")))
    assert fuzz.compare(internal, refusal) == fuzz.Verdict("", refused=True)
    assert fuzz.compare(refusal, internal).signature == (
        "error invalid_input answered as error internal"
    )


class Reshaped(Implementation):
    """The reference, its truncation results passed through `change`."""

    name = "reshaped"

    def __init__(self, change: Any) -> None:
        self.inner = ReferenceImplementation()
        self.hello = self.inner.hello
        self.change = change

    def call(self, op: str, args: Mapping[str, Any]) -> Reply:
        return Reply(result=self.change(self.inner.call(op, args).result))


def test_a_missing_field_diverges_and_a_wrong_top_level_type_is_an_error() -> None:
    """A result lacking a field is compared (a divergence naming it), not an error of its
    side; a result of the wrong top-level type breaks the protocol (an error)."""
    args = {"content": "aé\nb", "maxLines": 1, "maxBytes": 100}
    want = ask.outcome(ReferenceImplementation(), "truncate.tail", args)

    def drop(result: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in result.items() if k != "firstLineExceedsLimit"}

    got = ask.outcome(Reshaped(drop), "truncate.tail", args)
    assert got.failure is None
    verdict = fuzz.compare(want, got, "truncate.tail")
    assert verdict.signature == "$.firstLineExceedsLimit missing"
    # a value that differs names the class before the field that is missing
    wrong = ask.outcome(Reshaped(lambda r: {**drop(r), "totalLines": 9}), "truncate.tail", args)
    assert fuzz.compare(want, wrong, "truncate.tail").signature == "$.totalLines"
    listed = ask.outcome(Reshaped(lambda r: [r]), "truncate.tail", args)
    assert listed.reply is None and listed.failure is not None
    assert listed.failure.startswith("protocol violation: truncate.tail result must be object")


class WholeGrep(Implementation):
    """An oracle whose grep, asked with no effective limit, shows three files' matches."""

    name = "whole-grep"
    hello = ReferenceImplementation().hello

    def call(self, op: str, args: Mapping[str, Any]) -> Reply:
        assert op == "tool.grep" and args["limit"] == 10**6
        return Reply(result={"isError": False, "text": "a.txt:1: x\nb.txt:1: y\nc.txt:1: z"})


def _limited(text: str) -> ask.Outcome:
    notice = "\n\n[1 matches limit reached. Use limit=2 for more, or refine pattern]"
    result = {"isError": False, "text": text + notice, "details": {"matchLimitReached": 1}}
    return ask.Outcome(reply=Reply(result=result))


@pytest.mark.parametrize(
    ("shown", "matches"),
    [("b.txt:1: y", True), ("c.txt:1: z", True), ("d.txt:1: w", False), ("b.txt:2: y", False)],
)
def test_a_grep_answer_under_the_match_limit_is_one_of_many(shown: str, matches: bool) -> None:
    """Pi stops ripgrep at the limit while its threads race: any `limit` of the oracle's
    whole set of match lines, with the same notices, is an answer it may give."""
    args = {"tree": {}, "pattern": ".", "limit": 1}
    want, got = _limited("a.txt:1: x"), _limited(shown)
    lifted = equivalence.limit_lifted("tool.grep", args, want.reply, got.reply)
    assert lifted == {**args, "limit": equivalence.UNLIMITED_GREP}
    whole = WholeGrep().call("tool.grep", lifted)
    assert equivalence.within_whole(got.reply, whole) is matches
