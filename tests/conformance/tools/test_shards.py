"""Runs split over machines: the shards of `fuzz` and `sweep` (`--shard K/N`, merged with
`--merge`) and the matrix's jobs (merged with `--from`) equal one whole run, less
timings and shard bookkeeping; `impl list --json` names every shipped implementation."""

from __future__ import annotations

import importlib.util
import json
import re
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml
from paths import FAKE_IMPL, ROOT

from ctxspec.cli import main
from ctxspec.conformance.corpus.cases import load_cases
from ctxspec.conformance.runner.expectations import default_expectations_file
from ctxspec.conformance.runner.results import STATUSES, slug
from ctxspec.conformance.tools import same_verdict, sweep
from ctxspec.conformance.tools.matrix import build_matrix, render_badge, run_matrix, write_matrix
from ctxspec.conformance.tools.shards import shard_range

WRONG = shlex.join([sys.executable, str(FAKE_IMPL), "wrong"])  # truncatedBy "lines" always


def _json(path: Path) -> Any:
    return json.loads(path.read_text("utf-8"))


# --- the split ----------------------------------------------------------------------------


@pytest.mark.parametrize("total", [0, 1, 2, 5, 36, 72])
def test_the_shards_take_each_unit_once_in_ranges_of_near_equal_length(total: int) -> None:
    for count in range(1, 7):
        ranges = [shard_range(total, (index, count)) for index in range(1, count + 1)]
        assert [unit for each in ranges for unit in each] == list(range(total))
        assert max(map(len, ranges)) - min(map(len, ranges)) <= 1


@pytest.mark.parametrize("text", ["0/2", "3/2", "2", "a/2", "1/0", "-1/2", "1/2/3", ""])
@pytest.mark.parametrize("command", ["fuzz", "sweep"])
def test_a_bad_shard_is_one_usage_line(
    command: str, text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:
        main([command, "--impl", "reference", "--seed" if command == "fuzz" else "--seeds", "2",
              f"--shard={text}"])  # fmt: skip
    err = capsys.readouterr().err
    assert stop.value.code == 2
    assert err.count("\n") == 1 and "argument --shard: expected K/N with 1 <= K <= N" in err


# --- the matrix's jobs ----------------------------------------------------------------------


def test_impl_list_json_names_every_shipped_implementation(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["impl", "list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["shipped"]
    names = [impl["name"] for impl in listed]
    folder = Path(str(default_expectations_file("reference"))).parent
    in_files = [
        re.search(r"^implementation: (\S+)$", path.read_text("utf-8"), re.MULTILINE)
        for path in folder.glob("*.yaml")
    ]
    assert sorted(names) == sorted(match[1] for match in in_files if match)
    assert all(default_expectations_file(name) for name in names)
    assert [impl["slug"] for impl in listed] == [slug(name) for name in names]
    assert names[:2] == ["reference", "fastengine"] and names[2] == "pi@0.85.0"
    monkeypatch.chdir(ROOT)  # noxfile.py reads the rule by its path, as nox runs it
    spec = importlib.util.spec_from_file_location("noxfile_under_test", ROOT / "noxfile.py")
    assert spec is not None and spec.loader is not None
    noxfile = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(noxfile)
    assert names == noxfile.IMPLEMENTATIONS  # one conform session per matrix job


def test_the_matrix_workflow_fans_out_from_impl_list_and_merges_with_from() -> None:
    """The workflow cannot run here (actionlint checks its syntax): its contract can."""
    jobs = yaml.safe_load((ROOT / ".github" / "workflows" / "matrix.yml").read_text())["jobs"]

    def runs(job: str) -> str:
        return "\n".join(step.get("run", "") for step in jobs[job]["steps"])

    assert "ctxspec impl list --json" in runs("list")
    assert jobs["conform"]["needs"] == "list"
    assert jobs["conform"]["strategy"]["matrix"]["impl"] == (
        "${{ fromJSON(needs.list.outputs.impls) }}"
    )
    assert "ctxspec conform --impl" in runs("conform") and "--json" in runs("conform")
    assert "ctxspec matrix" in runs("merge") and "--from" in runs("merge")
    keys = [
        step["with"]["key"] for step in jobs["conform"]["steps"] if "cache@" in step.get("uses", "")
    ]
    assert any("locks" in key and "pins" in key for key in keys), keys


HEAD_CASES = [c for c in load_cases() if c.op == "truncate.head" and c.expect_error is None]


@pytest.mark.slow
def test_two_matrix_jobs_merged_with_from_are_one_run(tmp_path: Path) -> None:
    """Each job runs its own implementations; the last job merges their results files."""
    select = [arg for case in HEAD_CASES[:3] for arg in ("--case", case.id)]
    impls = ["reference", WRONG]
    whole = tmp_path / "whole"
    write_matrix(build_matrix(run_matrix(impls, whole, timeout=10, extra=select)), whole)
    jobs = []
    for index, impl in enumerate(impls):
        run_matrix([impl], tmp_path / f"job-{index}", timeout=10, extra=select)
        jobs.append(tmp_path / f"job-{index}" / "results" / f"{slug(impl)}.json")
    merged = tmp_path / "merged"
    sources = [arg for job in jobs for arg in ("--from", str(job))]
    assert main(["matrix", *sources, "--out", str(merged)]) == 0
    assert _json(merged / "matrix.json") == _json(whole / "matrix.json")
    assert (merged / "index.html").read_text() == (whole / "index.html").read_text()
    for job in jobs:
        one, other = (same_verdict.verdict(_json(p)) for p in (job, whole / "results" / job.name))
        assert same_verdict.differences(one, other) == []


# --- fuzz -------------------------------------------------------------------------------------

FUZZ = [
    "fuzz", "--impl", WRONG, "--against", "reference", "--op", "truncate.head",
    "--op", "format.size", "--op", "truncate.tail", "--examples", "12", "--seed", "3",
    "--seeds", "2", "--shrink-calls", "20", "-q",
]  # fmt: skip


@pytest.mark.slow
def test_two_fuzz_shards_merged_are_the_whole_run(tmp_path: Path) -> None:
    whole = tmp_path / "whole.json"
    assert main([*FUZZ, "--json", str(whole)]) == 1  # `wrong` diverges on truncate.*
    parts = [tmp_path / f"shard-{index}.json" for index in (2, 1)]
    for index, part in zip((2, 1), parts, strict=True):
        assert main([*FUZZ, "--shard", f"{index}/2", "--json", str(part)]) == 1
    units = [[op["unit"] for op in _json(part)["ops"]] for part in parts]
    assert units == [[3, 4, 5], [0, 1, 2]]  # seed 4's ops, then seed 3's
    merged = tmp_path / "merged.json"
    assert main(["fuzz", "--merge", *map(str, parts), "--json", str(merged)]) == 1
    data = _json(merged)
    assert data.pop("mergedFrom") == ["1/2", "2/2"]
    assert data == _json(whole)
    assert [(op["seed"], op["op"]) for op in data["ops"]] == [
        (seed, op) for seed in (3, 4) for op in ("truncate.head", "format.size", "truncate.tail")
    ]


def _report(shard: str, units: Sequence[int], **run: Any) -> dict[str, Any]:
    ops = [{"op": "format.size", "seed": 1, "unit": unit, "examples": 1, "diverging": 0,
            "divergences": [], "errors": {}, "errorSamples": [], "unsupported": 0,
            "refused": 0, "unsettled": 0, "skipped": ""} for unit in units]  # fmt: skip
    return {"impl": "a", "against": "b", "seed": 1, "seeds": 1, "examples": 1,
            "shrinkCalls": 0, "units": 4, "shard": shard, "ops": ops, **run}  # fmt: skip


@pytest.mark.parametrize(
    ("reports", "said"),
    [
        ([_report("1/2", [0, 1])], "missing ['2/2']"),
        ([_report("1/2", [0, 1]), _report("1/2", [0, 1])], "given twice ['1/2']"),
        ([_report("1/2", [0, 1]), _report("2/2", [2, 3], seed=2)], "different runs: seed"),
        ([_report("1/2", [0, 1]), _report("2/3", [2, 3])], "split the run in different ways"),
        ([_report("1/2", [0]), _report("2/2", [2, 3])], "miss units 1 (a shard stopped early?)"),
    ],
)
def test_fuzz_merge_refuses_reports_that_are_not_the_shards_of_one_run(
    reports: list[dict[str, Any]],
    said: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    paths = []
    for index, report in enumerate(reports):
        paths.append(tmp_path / f"{index}.json")
        paths[-1].write_text(json.dumps(report))
    assert main(["fuzz", "--merge", *map(str, paths)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "argument --merge" in err and said in err, err


def test_a_fuzz_shard_needs_a_seed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fuzz", "--impl", "reference", "--shard", "1/2"]) == 2
    assert "argument --shard: needs --seed" in capsys.readouterr().err


# --- sweep ------------------------------------------------------------------------------------


def _failure(seed: int, name: str, cases: Sequence[int]) -> dict[str, Any]:
    requests = [{"op": "truncate.head", "args": HEAD_CASES[i].args} for i in cases]
    return {"property": name, "seed": seed, "requests": requests}


# what each seed's run records (seeds 2 and 4 find nothing; seed 3 repeats a request)
RECORDED = {
    1: [_failure(1, "test_head_bytes", [0, 1])],
    3: [_failure(3, "test_head_lines", [1, 2]), _failure(3, "test_head_bytes", [3])],
}


def _run_seeds(
    impl_name: str, seeds: Sequence[int], record: Path, jobs: str | None, log: Any
) -> dict[int, list[str]]:
    """`sweep.run_seeds` without conform: each seed's failures appended as conform would."""
    with record.open("a", encoding="utf-8") as file:
        for seed in seeds:
            file.writelines(json.dumps(failure) + "\n" for failure in RECORDED.get(seed, []))
    return {seed: sorted({f["property"] for f in RECORDED.get(seed, [])}) for seed in seeds}


@pytest.mark.slow
def test_two_sweep_shards_merged_are_the_whole_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sweep, "run_seeds", _run_seeds)
    run = ["sweep", "--impl", WRONG, "--against", "reference", "--seeds", "4"]
    whole = tmp_path / "whole.json"
    status = main([*run, "--json", str(whole)])
    parts = [tmp_path / f"shard-{index}.json" for index in (1, 2)]
    for index, part in enumerate(parts, 1):
        main([*run, "--shard", f"{index}/2", "--json", str(part)])
    assert [sorted(_json(part)["failingBySeed"]) for part in parts] == [["1", "2"], ["3", "4"]]
    merged = tmp_path / "merged.json"
    assert main(["sweep", "--merge", *map(str, reversed(parts)), "--json", str(merged)]) == status
    assert _json(merged) == _json(whole)
    assert _json(whole)["failingExamples"] == 3 and _json(whole)["distinctRequests"] == 4
    assert "seeds 1..4 (shard 2/2)" in capsys.readouterr().out


def test_the_matrix_page_and_badges_show_every_status(tmp_path: Path) -> None:
    """A job's results may hold any status (the reference's `failed-as-pi` ones too)."""
    records = [
        {"id": f"c{i}", "kind": "case", "boundary": "b", "op": "o", "status": status,
         "message": "m"}
        for i, status in enumerate(STATUSES)
    ]  # fmt: skip
    matrix = build_matrix([{"header": {"implementation": "x"}, "records": records}])
    write_matrix(matrix, tmp_path)
    assert "1 as Pi" in (tmp_path / "index.html").read_text()
    (impl,) = matrix["implementations"]
    assert "3/6 ok" in render_badge(impl)  # passed, failed-as-pi, expected-failure of 6 judged
