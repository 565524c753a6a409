"""`same_verdict`: clocks and record order are not the verdict; a status or a path is."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ctxspec.conformance.tools.same_verdict import main, verdict


def _document(*, started: float, durations: tuple[float, float], status: str) -> dict[str, Any]:
    records = [
        {"id": "b-case", "kind": "case", "status": "passed", "duration": durations[0]},
        {"id": "a-case", "kind": "case", "status": status, "duration": durations[1]},
    ]
    header = {"startedAt": started, "expectations": "/src/one/conformance/expectations/x.yaml"}
    return {"header": header, "classes": [], "records": records}


def _write(path: Path, document: dict[str, Any]) -> str:
    path.write_text(json.dumps(document))
    return str(path)


def test_clocks_and_order_are_not_the_verdict(tmp_path: Path) -> None:
    first = _document(started=1.0, durations=(0.1, 0.2), status="passed")
    second = _document(started=2.0, durations=(0.3, 0.4), status="passed")
    second["records"].reverse()
    assert main([_write(tmp_path / "a", first), _write(tmp_path / "b", second)]) == 0


def test_a_status_is(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = _document(started=1.0, durations=(0.1, 0.2), status="passed")
    second = _document(started=1.0, durations=(0.1, 0.2), status="failed")
    assert main([_write(tmp_path / "a", first), _write(tmp_path / "b", second)]) == 1
    assert "case a-case: status differ" in capsys.readouterr().out


def test_a_checkout_path_is_unless_named(tmp_path: Path) -> None:
    first = _document(started=1.0, durations=(0.1, 0.2), status="passed")
    second = json.loads(json.dumps(first).replace("/src/one/", "/src/two/"))
    a, b = _write(tmp_path / "a", first), _write(tmp_path / "b", second)
    assert main([a, b]) == 1
    assert main([a, b, "--checkout", "/src/one", "--checkout", "/src/two/"]) == 0


def test_an_unreadable_file_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a").write_text("{not json")
    assert main([str(tmp_path / "a"), str(tmp_path / "a")]) == 2
    assert "cannot read a results file" in capsys.readouterr().err


def test_how_the_machine_confined_the_agents_is_no_part_of_the_verdict() -> None:
    """A kernel without namespaces cannot isolate an agent: the run says so in its header,
    and what its agents left behind may differ from run to run; the verdict is the same."""
    records = [{"kind": "case", "id": "a", "status": "passed", "duration": 0.1}]
    isolated = {"header": {"confinement": {"isolated": True, "left": []}}, "records": records}
    open_ = {"header": {"confinement": {"isolated": False, "left": ["/tmp/x"]}}, "records": records}
    assert verdict(isolated) == verdict(open_)
