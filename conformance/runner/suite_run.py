"""`run_suite(impl, ...) -> Results`: the one way to run `ctxspec conform` as a child.

The tools that need whole runs (`matrix`, `changelog`, `expectations write`, `sweep`)
start `ctxspec conform --impl IMPL --json FILE` through this function and read the
record it writes (`ctxspec.conformance.runner.results` says what a record holds). The child is
`ctxspec conform` itself, never an implementation: the implementation's process is
started inside it, by `ctxspec.conformance.transport`. A run in a child keeps each run's
pytest session, its implementation processes and its memory apart, as CI runs them.

`Results.data` is the results file's content, or None when the run wrote none (the
implementation could not be installed or started, or the command line was refused):
`Results.output` then holds the tail of what the child printed, when it was captured.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

__all__ = ["OUTPUT_TAIL", "Results", "run_suite"]

OUTPUT_TAIL: Final = 4000  # characters of a child's output kept for a run that wrote no results


@dataclass(frozen=True, slots=True)
class Results:
    """One `ctxspec conform` run: its results file's data (None if it wrote none), its
    exit status (0 all as expected, 1 something failed, 2 and up: the run broke) and
    the tail of its output (empty when the output was not captured)."""

    impl: str
    data: Mapping[str, Any] | None
    status: int
    output: str = ""

    @property
    def records(self) -> list[dict[str, Any]]:
        return list((self.data or {}).get("records", ()))

    @property
    def header(self) -> Mapping[str, Any]:
        header: Mapping[str, Any] = (self.data or {}).get("header", {})
        return header

    @property
    def completed(self) -> bool:
        """The run wrote its results and ended as a verdict (status 0 or 1), not broken."""
        return self.data is not None and self.status in (0, 1)

    def problem(self) -> str:
        """Why this run gave no verdict, for an error message."""
        tail = self.output.strip()
        return tail or f"`ctxspec conform --impl {self.impl}` exited with status {self.status}"


def run_suite(
    impl: str,
    *,
    cases: Sequence[str] = (),
    jobs: str | None = None,
    expectations: str | None = None,
    options: Sequence[str] = (),
    pytest_args: Sequence[str] = (),
    json_path: Path | None = None,
    capture: bool = True,
) -> Results:
    """Run the suite against `impl` in a child `ctxspec conform` and read its results.

    `cases` selects case ids (`--case`), `jobs` is `-n`, `expectations` is
    `--expectations` (`"none"`: every record as it came out), `options` more `conform`
    options (`--timeout 5`, `--profile sweep`, ...) and `pytest_args` what goes after
    `--`. The results file is written to `json_path` (kept) or to a temp file (removed).
    With `capture` the child's output is kept for `Results.output` (its tail) instead of
    shown. Never raises for a run that fails or breaks: `Results.status` says how it ended.
    """
    with tempfile.TemporaryDirectory(prefix="ctxspec-run-") as scratch:
        target = json_path if json_path is not None else Path(scratch) / "results.json"
        target.unlink(missing_ok=True)
        command = [sys.executable, "-m", "ctxspec", "conform", "--impl", impl]
        command += ["--json", str(target)]
        command += ["--expectations", expectations] if expectations is not None else []
        command += ["-n", jobs] if jobs else []
        command += [arg for case_id in cases for arg in ("--case", case_id)]
        command += [*options, *(["--", *pytest_args] if pytest_args else [])]
        completed = subprocess.run(command, capture_output=capture, text=True, check=False)
        data = json.loads(target.read_text("utf-8")) if target.is_file() else None
    output = ((completed.stdout or "") + (completed.stderr or ""))[-OUTPUT_TAIL:]
    return Results(impl=impl, data=data, status=completed.returncode, output=output)
