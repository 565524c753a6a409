"""A failing property reads as protocol data: its example's requests as JSON, both answers
and every difference, a command that replays it and one that pins it as a case; never a
Python traceback, repr or pytest's wording (unless `--debug`); an answer of a shape the
property cannot read is a difference, never a `KeyError` inside the property."""

from __future__ import annotations

import argparse
import json
import re
import shlex
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from conform import conform
from paths import FAKE_IMPL, ROOT

from ctxspec.cli import UsageError, main
from ctxspec.conformance.ask import Outcome
from ctxspec.conformance.corpus.cases import load_cases
from ctxspec.conformance.engines.reference import handle
from ctxspec.conformance.judging.check import CaseMismatch, ResultMismatch, check_case
from ctxspec.conformance.judging.shapes import schema_differences
from ctxspec.conformance.runner.failing_example import (
    Exchange,
    ShapeMismatch,
    exchanges_of,
    json_text,
    reading_shapes,
    save_example,
    tell_property,
)
from ctxspec.conformance.runner.profiles import profile_for
from ctxspec.conformance.runner.recording import Recording, read_failures
from ctxspec.conformance.runner.replay import check_replay_options
from ctxspec.conformance.transport.base import Implementation, Reply

# what no report shows without --debug: Python's tracebacks and reprs, pytest's wording
PYTHON_WORDING = re.compile(
    r"Traceback|File \"|reproduce_failure|AssertionError|\{'|\['|\[b'|^E {3}|FAILED|XPASS"
    r"|KeyError|IndexError|TypeError|AttributeError|Skipped: |<implementation ",
    re.MULTILINE,
)
ARGS = {"content": "00", "maxLines": 1, "maxBytes": 2}
DESCRIBED = {"id": "test_x[truncate.tail]", "rule": "TRUNC-2", "level": "invariant",
             "boundary": "multibyte_cuts"}  # fmt: skip


def _drop_first(reply: Reply) -> Reply:
    result = dict(reply.result)
    result["content"] = result["content"][1:]
    return Reply(result=result)


class _Port(Implementation):
    """An implementation in this process: the reference, its answers changed by `alter`."""

    def __init__(self, alter: Any) -> None:
        self.name = "port"
        self.hello = {"ops": ["truncate.tail"]}
        self.alter = alter

    def call(self, op: str, args: Mapping[str, Any]) -> Reply:
        return self.alter(handle(op, args))


def _told(error: BaseException, exchanges: list[Exchange], file: str | None = "x.json") -> str:
    return tell_property(
        DESCRIBED, "Says what holds.", error, exchanges, impl="./port", file=file
    ).text


class TestJsonText:
    """Requests and answers are shown as JSON a reader in any language can take."""

    @pytest.mark.parametrize(
        "value", ["\ud83d", "\ufeff\u200b\x7f", "é🙂\n", {"a": [1.5, None, True]}, "\U000e0001"]
    )
    def test_round_trips_as_json(self, value: Any) -> None:
        assert json.loads(json_text(value)) == value

    def test_shows_invisible_characters_as_escapes(self) -> None:
        assert json_text("a\ufeffb\ud800") == '"a\\ufeffb\\ud800"'

    def test_keeps_letters_as_they_are(self) -> None:
        assert json_text("é🙂") == '"é🙂"'

    def test_a_long_value_keeps_head_and_tail(self) -> None:
        text = json_text("x" * 10_000, 200)
        assert len(text) < 300 and "chars not shown" in text


class TestTold:
    """A failing property's report, as a case's."""

    def _exchanges(self) -> list[Exchange]:
        recording = Recording(_Port(_drop_first))
        recording.call("truncate.tail", ARGS)
        return exchanges_of(recording)

    def test_shows_the_request_both_answers_and_the_difference(self) -> None:
        text = _told(AssertionError("assert 1 == 2\n +  where 1 = len('x')"), self._exchanges())
        assert (
            '{"op": "truncate.tail", "args": {"content": "00", "maxLines": 1, "maxBytes": 2}}'
            in text
        )
        assert 'reference:      {"result": {"content": "00",' in text
        assert 'implementation: {"result": {"content": "0",' in text
        assert '$.content: expected "00", actual "0"' in text
        assert "replay: ctxspec conform --impl ./port --replay x.json" in text
        assert "--write-case" in text
        assert not PYTHON_WORDING.search(text), text

    def test_names_the_rule_and_what_the_property_says(self) -> None:
        text = _told(AssertionError(), self._exchanges())
        assert text.startswith("property test_x[truncate.tail] [TRUNC-2, invariant]")
        assert "  rule: TRUNC-2 " in text
        assert "  why:  Says what holds." in text

    def test_an_assertion_message_is_kept_without_pytest_explanation(self) -> None:
        text = _told(AssertionError("the lines differ\nassert 'a' == 'b'"), self._exchanges())
        assert "check: the lines differ" in text
        assert "assert" not in text

    def test_an_answer_equal_to_the_reference_says_so(self) -> None:
        recording = Recording(_Port(lambda reply: reply))
        recording.call("truncate.tail", ARGS)
        text = _told(AssertionError(), exchanges_of(recording))
        assert "every answer is the reference's" in text

    def test_a_bug_of_ctxspec_is_named_without_its_traceback(self) -> None:
        text = _told(ZeroDivisionError("division by zero"), self._exchanges())
        assert "a bug of ctxspec" in text and "--debug" in text

    def test_findings_class_the_differences(self) -> None:
        told = tell_property(DESCRIBED, None, AssertionError(), self._exchanges(), impl="p",
                             file=None)  # fmt: skip
        assert told.findings is not None
        assert told.findings.classes == ("truncate.tail $.content differs",)
        assert told.example["exchanges"][0]["request"] == {"op": "truncate.tail", "args": ARGS}

    def test_the_saved_example_is_what_the_sweep_reads(self, tmp_path: Path) -> None:
        path = save_example(tmp_path, "test_x[truncate.tail]", None, self._exchanges())
        assert path.name == "test-x-truncate.tail.json"
        (failure,) = read_failures(path)
        assert failure["requests"] == [{"op": "truncate.tail", "args": ARGS}]


def _property(impl: Implementation, *, field: str) -> None:
    """A property that reads `field` of a truncation answer, as the suite's do."""
    result = impl.call("truncate.tail", ARGS).result
    assert result[field] == result[field]


@pytest.mark.parametrize(
    ("answer", "kind"),
    [
        ({}, "missing"),  # every field missing
        ({"content": 0}, "differs"),  # a wrong-typed field
        (["not", "an", "object"], "differs"),  # a list where an object was due
    ],
)
def test_an_unexpected_shape_is_a_difference(answer: Any, kind: str) -> None:
    test = reading_shapes(_property)
    impl = Recording(_Port(lambda _reply: Reply(result=answer)))
    with pytest.raises(ShapeMismatch) as raised:
        test(impl=impl, field="totalLines" if answer == {"content": 0} else "content")
    assert isinstance(raised.value, ResultMismatch)
    assert any(f.kind == kind for f in raised.value.findings.shown), raised.value.findings
    assert "KeyError" not in str(raised.value) and "TypeError" not in str(raised.value)


class TestSchemaShapes:
    """Where the reference answers no such op (agent.*), the op's result schema tells the
    shape: a golden case or a property meets a difference, never a crash of its check."""

    def test_each_departure_is_a_difference(self) -> None:
        found = schema_differences("agent.compaction", {"compact": "yes"})
        assert [(d.path, d.kind) for d in found] == [
            ("$.compact", "differs"),
            ("$.keep", "missing"),
        ]
        assert [(d.path, d.kind) for d in schema_differences("agent.instructions", [])] == [
            ("$", "differs")
        ]

    def test_an_exchange_without_reference_is_judged_by_the_schema(self) -> None:
        exchange = Exchange(op="agent.tool_output", args={"content": "x"},
                            answer=Outcome(reply=Reply(result={})), reference=None)  # fmt: skip
        verdict = exchange.verdict()
        assert verdict is not None and verdict[1].classes == (
            "agent.tool_output $.content missing",
        )

    def test_a_golden_agent_case_meets_a_difference(self) -> None:
        case = next(c for c in load_cases() if c.op == "agent.tool_output" and c.expect_holds)
        port = _Port(lambda _reply: Reply(result={}))
        port.hello = {"ops": ["agent.tool_output"]}
        profile = profile_for(
            "fake", str(ROOT / "tests" / "support" / "fake_agent" / "profile.yaml")
        )
        with pytest.raises(CaseMismatch) as raised:
            check_case(port, case, profile)
        assert "$.content: missing" in str(raised.value)


def test_a_property_bug_on_the_reference_answer_stays_a_bug() -> None:
    test = reading_shapes(_property)
    with pytest.raises(KeyError):
        test(impl=Recording(_Port(lambda reply: reply)), field="noSuchField")


class TestReplayOptions:
    """`--replay` asks saved requests alone; `--write-case` pins what it finds."""

    def _options(self, **given: Any) -> argparse.Namespace:
        defaults = {"replay": None, "write_case": None, "case": [], "k": None, "junit": None}
        return argparse.Namespace(**{**defaults, **given})

    def test_write_case_needs_replay(self) -> None:
        with pytest.raises(UsageError, match="--write-case"):
            check_replay_options(self._options(write_case="cases"))

    def test_replay_runs_no_suite(self) -> None:
        with pytest.raises(UsageError, match="--case"):
            check_replay_options(self._options(replay="x.json", case=["some-case"]))

    def test_the_reference_replays_green(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        recording = Recording(_Port(_drop_first))
        recording.call("truncate.tail", ARGS)
        path = save_example(tmp_path, "test_x", None, exchanges_of(recording))
        assert main(["conform", "--impl", "reference", "--replay", str(path)]) == 0
        assert "every answer is the reference's" in capsys.readouterr().out

    def test_a_file_without_requests_is_refused(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        empty = tmp_path / "empty.json"
        empty.write_text('{"property": "p", "requests": []}\n')
        assert main(["conform", "--replay", str(empty)]) == 2
        assert "holds no request" in capsys.readouterr().err


# --- whole runs ------------------------------------------------------------------------------

DROP = shlex.join([sys.executable, str(FAKE_IMPL), "drop-tail-char"])
TRUNCATION_PROPERTIES = ["-k", "truncate and not test_case", "--expectations", "none"]


def _all_text(tmp_path: Path, output: str) -> str:
    reports = [tmp_path / name for name in ("results.json", "r.md", "r.xml")]
    return output + "".join(path.read_text("utf-8") for path in reports if path.exists())


Run = tuple[Path, int, str, dict[str, Any]]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """One red run of the truncation properties (its dir, status, output and results)."""
    tmp_path = tmp_path_factory.mktemp("drop")
    args = ["--impl", DROP, *TRUNCATION_PROPERTIES, "--md", "r.md", "--junit", "r.xml"]
    status, output, data = conform(tmp_path, *args)
    return tmp_path, status, output, data


@pytest.mark.slow
class TestDroppedCharacter:
    """A port that drops a character from truncate.tail: a red run told as protocol data."""

    def test_the_run_is_red(self, run: Run) -> None:
        _, status, _, data = run
        assert status == 1
        failed = {r["id"] for r in data["records"] if r["status"] == "failed"}
        assert "test_truncate_matches_reference[truncate.tail]" in failed

    def test_output_holds_the_requests_answers_and_differences(self, run: Run) -> None:
        _, _, output, _ = run
        assert '{"op": "truncate.tail", "args": {"content": ' in output
        assert 'reference:      {"result": {' in output
        assert 'implementation: {"result": {' in output
        found = re.search(r'\$\.content: expected "(.*?)", actual "(.*?)"', output)
        assert found, output
        assert found[2] == found[1][1:]  # the port drops the first character

    def test_the_json_record_holds_the_example(self, run: Run) -> None:
        _, _, _, data = run
        for entry in (r for r in data["records"] if r["status"] == "failed"):
            assert entry["classes"] == ["truncate.tail $.content differs"], entry
            exchange = entry["example"]["exchanges"][0]
            assert exchange["request"]["op"] == "truncate.tail"
            assert set(exchange["reference"]) == set(exchange["implementation"]) == {"result"}
            assert entry["example"]["replay"] in entry["message"]

    def test_no_report_shows_python(self, run: Run) -> None:
        tmp_path, _, output, _ = run
        text = _all_text(tmp_path, output)
        assert not PYTHON_WORDING.search(text), PYTHON_WORDING.search(text)

    def test_the_replay_reproduces_and_the_pin_lints(self, run: Run) -> None:
        tmp_path, _, _, data = run
        (entry,) = [r for r in data["records"] if r["id"].startswith("test_truncate_matches")
                    and r["status"] == "failed"]  # fmt: skip
        command = shlex.split(entry["example"]["pin"])
        assert command[:2] == ["ctxspec", "conform"]
        replayed = subprocess.run(
            [sys.executable, "-m", "ctxspec", *command[1:]],
            cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert replayed.returncode == 1, replayed.stderr
        assert '$.content: expected "' in replayed.stdout
        assert not PYTHON_WORDING.search(replayed.stdout + replayed.stderr)
        cases = tmp_path / command[-1]
        assert list(cases.glob("*/*.yaml")), replayed.stdout
        lint = subprocess.run(
            [sys.executable, "-m", "ctxspec", "cases", "lint", "--root", str(cases)],
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert lint.returncode == 0, lint.stdout + lint.stderr

    def test_debug_keeps_the_traceback(self, tmp_path: Path) -> None:
        args = ["--impl", DROP, "-k", "test_truncate_matches_reference", "--debug"]
        status, output, _ = conform(tmp_path, *args)
        assert status == 1
        assert "test_truncation_properties.py:" in output  # the verdict draws nothing:
        assert "reproduce_failure" not in output  # no hypothesis blob to reproduce it by
        assert '{"op": "truncate.tail"' in output  # the example is told all the same

    def test_debug_exploring_keeps_hypothesis_report(self, tmp_path: Path) -> None:
        args = ["--impl", DROP, "-k", "test_truncate_matches_reference", "--debug"]
        status, output, _ = conform(tmp_path, *args, "--explore", "--seed", "1")
        assert status == 1
        assert "reproduce_failure" in output


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["empty-object", "wrong-field-type", "short-lists"])
def test_no_property_crashes_on_an_answer_of_another_shape(tmp_path: Path, mode: str) -> None:
    """Every op family's answers misshapen: each failing property that reads the fields of
    an answer tells differences (the differential ones compare whole answers, any shape)."""
    impl = shlex.join([sys.executable, str(FAKE_IMPL), mode])
    readers = "not test_case and not matches_reference"
    status, output, data = conform(tmp_path, "--impl", impl, "-k", readers)
    assert status == 1
    failed = [r for r in data["records"] if r["status"] == "failed"]
    assert failed
    for entry in failed:
        assert not PYTHON_WORDING.search(entry["message"]), entry["message"]
        assert "a bug of ctxspec" not in entry["message"], entry["message"]
        assert entry.get("differences"), entry["id"]
    assert not PYTHON_WORDING.search(output)


@pytest.mark.slow
def test_an_agent_answering_empty_objects_meets_differences(tmp_path: Path) -> None:
    """The agent ops (no reference answer): each case and property tells the schema's."""
    agent = ROOT / "tests" / "support" / "fake_agent"
    impl = shlex.join([sys.executable, str(agent / "agent.py"), "empty-object"])
    profile = str(agent / "profile.yaml")
    status, output, data = conform(tmp_path, "--impl", impl, "--agent-profile", profile,
                                   "--expectations", "none")  # fmt: skip
    assert status == 1
    failed = [r for r in data["records"] if r["status"] == "failed"]
    assert {r["kind"] for r in failed} == {"case", "property"}
    for entry in failed:
        assert "a bug of ctxspec" not in entry["message"], entry["message"]
        assert any(d["kind"] == "missing" for d in entry["differences"]), entry["id"]
    assert not PYTHON_WORDING.search(output)


def test_outcome_of_a_crash_is_told() -> None:
    """A request whose call raised is told with `noAnswer`."""
    exchange = Exchange(op="truncate.tail", args=ARGS, answer=Outcome(failure="crashed: 3"),
                        reference=None)  # fmt: skip
    assert exchange.to_json()["implementation"] == {"noAnswer": "crashed: 3"}
    assert exchange.verdict() is None
