"""The instruction-count gate: a count 5% over its baseline fails `ctxspec bench --compare`,
the same count passes; a real Callgrind count of a small op agrees with itself."""

from __future__ import annotations

import json
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from ctxspec.benchmarks import compare, instructions, report, run
from ctxspec.benchmarks.command import INSTRUCTIONS_TOLERANCE

NAME = "sessions 1000: findCutPoint fastengine"
BASE = 17_000_000


def _bench(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    counted: dict[str, int],
    valgrind: bool = True,
    on: str = "here",
) -> int:
    """`ctxspec bench --compare` with the wall-time run and the counting faked: the
    fake counts `counted` whatever it is asked."""
    monkeypatch.setattr(instructions, "valgrind", lambda: "/usr/bin/valgrind" if valgrind else None)
    monkeypatch.setattr(instructions, "environment", lambda: "here")
    baseline = tmp_path / "baseline.json"
    body = {"note": "", "ratios": {}, "instructions": {NAME: BASE}, "instructionsOn": on}
    baseline.write_text(json.dumps(body))
    results: dict[str, Any] = {"stream": {}, "truncate": {}, "sessions": {}}
    monkeypatch.setattr(run, "run", lambda *args, **kwargs: results)
    monkeypatch.setattr(run, "count", lambda *args: dict(counted))
    monkeypatch.setattr(report, "write", lambda *args, **kwargs: tmp_path / "report.md")
    options = run.Options(
        impls=["reference", "fastengine"],
        sizes=[],
        batch=[],
        entries=[],
        flavours=[],
        rounds=1,
        timeout=1.0,
        ratio_to="reference",
        compare=True,
        baseline=baseline,
        tolerance=0.3,
        save_baseline=False,
        out=tmp_path,
        count=True,
        count_tolerance=INSTRUCTIONS_TOLERANCE,
        quiet=True,
    )
    return run.bench(options)


def test_a_count_five_percent_over_the_baseline_fails_the_gate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _bench(tmp_path, monkeypatch, {NAME: BASE * 105 // 100}) == 1
    err = capsys.readouterr().err
    assert "+5.00% **REGRESSION**" in err
    assert "instruction counts: 1 rose (tolerance 1.0%)" in err


def test_the_same_count_passes_and_a_fall_is_listed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _bench(tmp_path, monkeypatch, {NAME: BASE}) == 0
    assert "instruction counts: 0 rose" in capsys.readouterr().err
    assert _bench(tmp_path, monkeypatch, {NAME: BASE * 95 // 100, "new op": 5}) == 0
    err = capsys.readouterr().err
    assert "-5.00% (fell: --save-baseline to keep it)" in err
    assert "| new op | – | 5 | no baseline |" in err


def test_counts_taken_elsewhere_are_listed_not_gated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Another interpreter, libc or build counts otherwise: the gate says so, not fails."""
    assert _bench(tmp_path, monkeypatch, {NAME: BASE * 105 // 100}, on="there") == 0
    assert "not gated: the baseline's were counted on there, these on here" in (
        capsys.readouterr().err
    )


def test_without_valgrind_the_gate_refuses_before_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(run, "run", lambda *args, **kwargs: pytest.fail("measured"))
    assert _bench(tmp_path, monkeypatch, {}, valgrind=False) == 2
    assert "valgrind is not installed" in capsys.readouterr().err


def test_rises_within_the_tolerance_pass() -> None:
    baseline = {NAME: 1000}
    assert compare.rose({NAME: 1010}, baseline, 0.01) == []
    assert compare.rose({NAME: 1011}, baseline, 0.01) == [compare.Regression(NAME, 1000, 1011)]
    assert compare.rose({"other": 10**9}, baseline, 0.01) == []  # no baseline: listed


def test_a_baseline_keeps_its_counts_when_a_run_took_none(tmp_path: Path) -> None:
    path = tmp_path / "baseline.json"
    compare.save_baseline({"r": 1.0}, path, counts={NAME: BASE}, on="here")
    compare.save_baseline({"r": 2.0}, path)
    assert compare.load_counts(path) == {NAME: BASE}
    assert compare.counted_on(path) == "here"
    assert compare.load_baseline(path) == {"r": 2.0}


DUMP = """\
# callgrind format
events: Ir
summary: 1000
fn=(1) _int_realloc
5 10
cfn=(2) __memcpy_avx_unaligned_erms
calls=1 0
0 300
fn=(3) PyByteArray_Resize
cfn=(1)
calls=1 0
0 310
cfn=(2)
calls=2 0
0 50
"""


def test_reallocs_copies_are_not_counted(tmp_path: Path) -> None:
    """The copy glibc's realloc makes when a block cannot grow in place depends on the
    heap's history: it is taken off the count; other copies are counted."""
    dump = tmp_path / "callgrind.out.3"
    dump.write_text(DUMP)
    assert instructions._summary(dump) == 700


def test_a_stray_mark_refuses_the_count(tmp_path: Path) -> None:
    for n in range(1, 5):
        (tmp_path / f"callgrind.out.{n}").write_text(DUMP)
    job = instructions.Job("x", "bench.session", {})
    with pytest.raises(instructions.CountError, match="4 Callgrind dumps for 1 jobs"):
        instructions._read(tmp_path / "callgrind.out", [job])


@pytest.mark.parametrize(
    ("bodies", "said"),
    [
        (
            [b"ELF\0GNU C17 12.2.0 -mtune=generic -g -O3 -fwrapv\0rest"] * 5,
            "built by GNU C17 12.2.0 -mtune=generic -g -O3 -fwrapv",
        ),
        (
            [b"ELF\0GNU C17 12.2.0 -g -O3\0"] * 4 + [b"ELF\0no debug info\0"],
            "built, flags not recorded",
        ),
        ([b"ELF\0GNU C17 12.2.0 -g -O3\0"] * 4 + [None], "not built"),
    ],
)
def test_a_count_says_how_the_c_passes_were_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bodies: list[bytes | None], said: str
) -> None:
    """Counts of passes built with other flags are another baseline's: the flags are in
    the environment a baseline's counts are gated on."""
    specs = {}
    for name, body in zip(instructions.C_PASSES, bodies, strict=True):
        if body is not None:
            (tmp_path / f"{name}.so").write_bytes(body)
            specs[f"ctxspec.fastengine.{name}"] = SimpleNamespace(
                origin=str(tmp_path / f"{name}.so")
            )
    monkeypatch.setattr(instructions.importlib.util, "find_spec", specs.get)
    assert instructions.c_build() == said


@pytest.mark.slow  # two processes under Callgrind
@pytest.mark.skipif(
    instructions.valgrind() is None and not os.environ.get("CI"),  # CI installs it (.ci/run)
    reason="no valgrind to count instructions with (Debian: apt-get install valgrind)",
)
def test_two_real_counts_of_a_small_op_agree_within_the_tolerance(tmp_path: Path) -> None:
    work = [
        job
        for job in instructions.jobs("reference", tmp_path, size="4KiB", entries=(60,))
        if job.name.startswith("sessions 60: findCutPoint")
    ]
    with ThreadPoolExecutor(2) as pool:  # at once: each keeps the other's machine busy
        first, second = pool.map(lambda _: instructions.count("reference", work), range(2))
    assert first[work[0].name] > 100_000  # the helper's work, not the marks alone
    assert instructions.agreement([first, second]) < INSTRUCTIONS_TOLERANCE


@pytest.mark.parametrize(("on", "status"), [("here", 0), ("there", 1)])
def test_a_ratio_fall_is_listed_where_the_counts_gate_and_fails_elsewhere(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    on: str,
    status: int,
) -> None:
    """A wall-clock ratio that fell (machine noise or not) fails only where no count of
    this build gates: with the counts gated, it is listed."""
    fell = compare.Regression("sessions 100000: navigation fastengine / pi@0.85.0", 27.8, 10.6)
    monkeypatch.setattr(compare, "compare", lambda *args: [fell])
    assert _bench(tmp_path, monkeypatch, {NAME: BASE}, on=on) == status
    err = capsys.readouterr().err
    if status == 0:
        assert "1 ratios fell more than 30% (listed: the counts gate on this machine)" in err
        assert "navigation fastengine / pi@0.85.0 27.80 -> 10.60" in err
    else:
        assert "1 ratios fell more than 30% (gated)" in err
