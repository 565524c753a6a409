"""`ctxspec conform` run as a user runs it: a child process in a scratch directory."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any


def conform(tmp_path: Path, *args: str, timeout: float = 300) -> tuple[int, str, dict[str, Any]]:
    """Run the CLI in a child process in `tmp_path`; its status, output and JSON results."""
    results = tmp_path / "results.json"
    completed = subprocess.run(
        [sys.executable, "-m", "ctxspec", "conform", "--json", str(results), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=tmp_path,
        check=False,
    )
    data = json.loads(results.read_text()) if results.exists() else {}
    return completed.returncode, completed.stdout + completed.stderr, data


def statuses(data: dict[str, Any]) -> dict[str, str]:
    """Each record's status by its id."""
    return {record["id"]: record["status"] for record in data["records"]}
