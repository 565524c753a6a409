"""`ctxspec bench --impl`: the bench ops' shapes, and the checks that keep a figure honest.

Inputs are small (a 256 KiB log, a 120-entry session, as entries and as a Pi session
file for `bench.open`) so each test takes seconds; no
test asserts a time, only what the harness concluded about answers and clocks.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from paths import FAKE_BENCH_IMPL

from ctxspec.benchmarks import answers, measure, report
from ctxspec.benchmarks import run as bench_run
from ctxspec.benchmarks.requests import session_requests
from ctxspec.conformance import bench_requests
from ctxspec.conformance.engines import fastengine, reference
from ctxspec.conformance.engines.reference import handle
from ctxspec.conformance.protocol import validate_args, validate_result
from ctxspec.corpora.generators.bench_session import (
    make_session,
    write_session,
    write_session_file,
)
from ctxspec.corpora.generators.logs import cached_stream_log

FAKE = FAKE_BENCH_IMPL


def fake(mode: str) -> str:
    return f"{sys.executable} {FAKE} {mode}"


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    cache = tmp_path_factory.mktemp("bench")
    session = make_session(120)
    return {
        "log": cached_stream_log("mixed", 256 << 10, cache, seed=3),
        "invalid": cached_stream_log("invalid", 256 << 10, cache, seed=3),
        "session": session,
        "sessionPath": write_session(session, cache / "session.jsonl"),
        "cache": cache,
    }


def requests(inputs: dict[str, Any]) -> dict[str, bench_requests.Request]:
    out = {
        "stream": bench_requests.stream_request(inputs["log"]),
        "stream invalid": bench_requests.stream_request(inputs["invalid"]),
        "head": bench_requests.truncate_request(inputs["log"], "head"),
        "tail": bench_requests.truncate_request(inputs["log"], "tail"),
    }
    return out | session_requests(inputs["session"], inputs["cache"], 120)


def measure_side(inputs: dict[str, Any], label: str, side: str) -> measure.Measure | None:
    """One implementation's measure of one truncation side, alone in its group."""
    request = {side: bench_requests.truncate_request(inputs["log"], side)}
    return measure.measure_group([label], request, rounds=2, timeout=60).measures[side][label]


def run(inputs: dict[str, Any], *specs: str) -> measure.Group:
    return measure.measure_group(specs, requests(inputs), rounds=2, timeout=60)


ENGINES = pytest.mark.parametrize(
    "engine_handle", [reference.handle, fastengine.handle], ids=["reference", "fastengine"]
)


@ENGINES
def test_bench_answers_match_their_schemas(inputs: dict[str, Any], engine_handle: Any) -> None:
    for request in requests(inputs).values():
        assert validate_args(request.bench_op, request.bench_args) is None
        reply = engine_handle(request.bench_op, request.bench_args)
        assert reply.error is None, reply.error
        validate_result(request.bench_op, reply.result)
        assert 0 <= reply.result["elapsedNs"] <= reply.result["requestNs"]
        path = (
            reply.result["answer"].get("persistedPath")
            if request.bench_op == "bench.stream"
            else None
        )
        if path:
            assert Path(path).stat().st_size == inputs["log"].stat().st_size
            Path(path).unlink()


@ENGINES
def test_bench_answers_are_the_ordinary_ops_answers(
    inputs: dict[str, Any], engine_handle: Any
) -> None:
    """A bench answer (persisted file digested) equals the reference's ordinary op's result."""
    for name, request in requests(inputs).items():
        bench = engine_handle(request.bench_op, request.bench_args).result["answer"]
        if request.bench_op == "bench.stream":
            bench = answers.digest_persisted(bench)
        plain = handle(request.plain_op, json.loads(json.dumps(request.plain_args())))
        assert plain.error is None, (name, plain.error)
        assert answers.first_difference(bench, request.plain_answer(plain.result)) is None, name


@ENGINES
def test_every_request_reads_its_file_as_it_is(
    inputs: dict[str, Any], engine_handle: Any, tmp_path: Path
) -> None:
    """Every helper twice on one file: the same answers the second time, navigation's new
    entries included; a file rewritten is read again."""
    session = [(n, r) for n, r in requests(inputs).items() if r.bench_op == "bench.session"]

    def answer(request: bench_requests.Request, path: Path | None = None) -> Any:
        args = request.bench_args | ({"path": str(path)} if path else {})
        reply = engine_handle(request.bench_op, args)
        assert reply.error is None, reply.error
        return reply.result["answer"]

    first = {name: answer(request) for name, request in session}
    again = {name: answer(request) for name, request in session}
    assert again == first
    other = make_session(40)
    path = write_session(other, tmp_path / "session.jsonl")
    context = dict(session)["buildSessionContext"]
    shorter = answer(context, path)["messages"]
    path.write_text("")  # the same path, another size: parsed again
    assert answer(context, path)["messages"] == [] != shorter


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({"path": "/no/such/file", "chunkBytes": 10}, "path"),
        ({"path": "README.md", "chunkBytes": 0}, "chunkBytes"),
    ],
)
def test_bad_stream_arguments_are_typed_errors(args: dict[str, Any], field: str) -> None:
    reply = handle("bench.stream", args)
    assert reply.error is not None and reply.error.type == "invalid_input"
    assert reply.error.field == field


def test_an_unknown_helper_is_a_typed_error(inputs: dict[str, Any]) -> None:
    reply = handle("bench.session", {"path": str(inputs["sessionPath"]), "helper": "nope"})
    assert reply.error is not None and reply.error.type == "invalid_input"
    assert reply.error.field == "helper" and "navigation" in reply.error.message


def test_bench_open_refuses_what_pi_refuses(inputs: dict[str, Any], tmp_path: Path) -> None:
    """A file without a session header first, and a helper it does not run: typed errors."""
    headless = {"path": str(inputs["sessionPath"]), "helper": "buildSessionContext"}
    reply = handle("bench.open", headless)
    assert reply.error is not None and reply.error.type == "invalid_input"
    assert reply.error.field == "path" and "no session header" in reply.error.message
    opened = write_session_file(inputs["session"], inputs["cache"], 120)
    reply = handle("bench.open", {"path": str(opened), "helper": "findCutPoint"})
    assert reply.error is not None and reply.error.field == "helper"


def test_bench_open_is_the_leafs_context_of_the_file(inputs: dict[str, Any]) -> None:
    """Without a leafId, the file's last entry (the side branch); with one, that entry's."""
    opened = write_session_file(inputs["session"], inputs["cache"], 120)
    args = {"path": str(opened), "helper": "buildSessionContext"}
    last = handle("bench.open", args).result["answer"]["messages"]
    assert [m["content"] for m in last][-1] == "another way" and len(last) == 12
    leaf = inputs["session"]["leafId"]
    chain = handle("bench.open", {**args, "leafId": leaf}).result["answer"]["messages"]
    assert len(chain) == 120


def test_a_failed_navigation_has_no_bench_answer(inputs: dict[str, Any]) -> None:
    """`session.navigate`'s own failure is a typed error naming the op (an error figure)."""
    navigation = requests(inputs)["navigation"]
    failed = {"error": "no summary", "leafId": None, "appended": []}
    with pytest.raises(bench_requests.PlainAnswerError, match=r"^session\.navigate: no summary$"):
        navigation.plain_answer(failed)


def test_a_fast_wrong_answer_is_reported_wrong_not_fast(inputs: dict[str, Any]) -> None:
    label = fake("fast-wrong")
    group = run(inputs, "reference", label)
    for name, row in group.measures.items():
        reference, theirs = row["reference"], row[label]
        assert reference is not None and reference.verdict == "ok", name
        assert theirs is not None and theirs.via == "bench", name
        assert theirs.verdict == "wrong", name
        assert theirs.detail.startswith("differs from the reference at ")
    head = group.measures["head"][label]
    assert head is not None and head.detail.startswith("differs from the reference at $.totalLines")


def test_an_implementation_that_under_reports_is_caught(inputs: dict[str, Any]) -> None:
    theirs = measure_side(inputs, fake("under-reports"), "head")
    assert theirs is not None and theirs.verdict == "under-reports", theirs
    assert theirs.seconds == theirs.wall_seconds >= 0.3  # the wall time stands in


def test_an_implementation_that_over_reports_is_caught(inputs: dict[str, Any]) -> None:
    theirs = measure_side(inputs, fake("over-reports"), "tail")
    assert theirs is not None and theirs.verdict == "over-reports", theirs


def test_without_bench_ops_the_ordinary_ops_measure_with_transport(inputs: dict[str, Any]) -> None:
    label = fake("no-bench")
    group = run(inputs, label)
    for name, row in group.measures.items():
        theirs = row[label]
        assert theirs is not None and theirs.via == "transport", name
        assert theirs.verdict == "ok", (name, theirs.detail)
        assert theirs.seconds == theirs.wall_seconds
    peak = group.peaks[label]
    assert peak is not None and peak > 0


def test_an_implementation_before_bench_open_is_measured_end_to_end_by_transport(
    inputs: dict[str, Any],
) -> None:
    """Protocol 1.3: without `bench.open` in hello, its figures take the ordinary ops."""
    label = fake("no-open")
    group = run(inputs, label)
    for name, row in group.measures.items():
        theirs = row[label]
        assert theirs is not None and theirs.verdict == "ok", (name, theirs)
        assert theirs.via == ("transport" if name.startswith("open+") else "bench"), name


def test_the_fast_engine_is_raced_over_its_bench_ops(inputs: dict[str, Any]) -> None:
    """`--impl fastengine` is served as a process of its own, its answers the reference's."""
    group = run(inputs, "fastengine")
    for name, row in group.measures.items():
        theirs = row["fastengine"]
        assert theirs is not None and theirs.via == "bench", name
        assert theirs.verdict == "ok", (name, theirs.detail)
    assert group.hellos["fastengine"]["implementation"]["name"] == "ctxspec-fastengine"


def test_pi_bench_ops_agree_with_the_reference(inputs: dict[str, Any]) -> None:
    pi = pytest.importorskip("ctxspec.conformance.harnesses.pi")
    try:
        pi.ensure_installed(quiet=True)
    except pi.PiInstallError as error:
        pytest.skip(f"Pi 0.85.0 unavailable: {error}")
    group = run(inputs, "pi@0.85.0")
    for name, row in group.measures.items():
        theirs = row["pi@0.85.0"]
        assert theirs is not None and theirs.via == "bench", name
        assert theirs.verdict == "ok", (name, theirs.detail)
    assert group.hellos["pi@0.85.0"]["implementation"]["version"] == "0.85.0"


@pytest.mark.slow
def test_the_report_has_a_column_and_a_line_per_implementation(
    inputs: dict[str, Any], tmp_path: Path
) -> None:
    wrong, plain = fake("fast-wrong"), fake("no-bench")
    results = bench_run.run(
        ["reference", wrong, plain],
        sizes=["256KiB"],
        truncate_sizes=["256KiB"],
        entries=[60],
        flavours=["mixed"],
        rounds=1,
        cache=tmp_path / "cache",
        quiet=True,
    )
    assert results["implementations"] == ["reference", wrong, plain]
    text = report.write(results, tmp_path / "out", "now", "reference").read_text()
    for label in results["implementations"]:
        assert f"| {label.replace('|', chr(92) + '|')} |" in text
    assert "✗ wrong answer" in text and "†" in text
    assert f"- {wrong}, truncate 256KiB head: **wrong**" in text
    assert "## Ratios against reference" in text
    assert "## Token estimates against cl100k_base tokens" in text
    for plot in ("throughput.png", "ratio.png", "memory.png", "sessions.png"):
        assert (tmp_path / "out" / plot).stat().st_size > 0
    saved = json.loads((tmp_path / "out" / "results.json").read_text())
    assert saved["truncate"]["256KiB"]["measures"]["head"][wrong]["verdict"] == "wrong"
    estimates = saved["estimates"]["reference"]
    if "error" not in estimates:  # tiktoken (the bench group) installed
        assert estimates["prose"]["estimate"] > 0 and estimates["prose"]["actual"] > 0
        assert saved["estimates"][plain]["prose"] == estimates["prose"]


def test_each_row_is_labelled_by_the_implementation_it_timed(
    inputs: dict[str, Any], tmp_path: Path
) -> None:
    """The reference's row times the reference, the fast engine's the fast engine."""
    request = {"head": bench_requests.truncate_request(inputs["log"], "head")}
    group = measure.measure_group(["fastengine"], request, rounds=1, timeout=60)
    assert group.hellos["reference"]["implementation"]["name"] == "ctxspec-reference"
    assert group.hellos["fastengine"]["implementation"]["name"] == "ctxspec-fastengine"


def recording_takes(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The spec of every `Bench.take`, in order, as the runner makes them."""
    taken: list[str] = []
    original = measure.Bench.take

    def recording(self: measure.Bench, rounds: measure.Rounds, expected: Any = None) -> None:
        taken.append(self.spec)
        original(self, rounds, expected)

    monkeypatch.setattr(measure.Bench, "take", recording)
    return taken


def test_rounds_are_interleaved_the_reference_first(
    inputs: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each round asks every implementation once; the reference, named, opens the first
    round with the oracle's answer."""
    taken = recording_takes(monkeypatch)
    request = {"head": bench_requests.truncate_request(inputs["log"], "head")}
    group = measure.measure_group(["reference", "fastengine"], request, rounds=3, timeout=60)
    assert taken == [
        "reference",
        "fastengine",
        "fastengine",
        "reference",
        "reference",
        "fastengine",
    ]
    assert all(m is not None and m.verdict == "ok" for m in group.measures["head"].values())


def test_the_reference_not_named_answers_once_as_the_oracle_and_has_no_column(
    inputs: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    taken = recording_takes(monkeypatch)
    wrong = fake("fast-wrong")
    request = {"head": bench_requests.truncate_request(inputs["log"], "head")}
    group = measure.measure_group(["fastengine", wrong], request, rounds=3, timeout=60)
    assert taken[0] == "reference" and taken.count("reference") == 1
    assert taken.count("fastengine") == 3 and len(taken) == 7
    row = group.measures["head"]
    assert list(row) == ["fastengine", wrong] and set(group.peaks) == {"fastengine", wrong}
    theirs, engine = row[wrong], row["fastengine"]
    assert theirs is not None and theirs.verdict == "wrong"  # still checked by the oracle
    assert engine is not None and engine.verdict == "ok"
    assert group.hellos["reference"]["implementation"]["name"] == "ctxspec-reference"
