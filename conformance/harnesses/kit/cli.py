"""One run of an agent's CLI, as every black-box harness starts it: a process group of its
own, stdin closed (or given), a hard deadline after which the whole group is killed, and
whatever it left running (a tool's shell) killed when it ends.

Standard library only: it runs in the adapter's process (`pyrun.py`).
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

from ctxspec.conformance.harnesses.kit import bench

__all__ = ["DeadlinePassed", "Finished", "deadline", "run_cli", "stderr_tail"]


@dataclass(frozen=True, slots=True)
class Finished:
    """A run that ended by itself: its exit status and both outputs."""

    returncode: int
    stdout: bytes
    stderr: bytes


class DeadlinePassed(Exception):
    """The run passed its deadline and was killed; what it had written by then."""

    def __init__(self, limit: float, stdout: bytes, stderr: bytes) -> None:
        super().__init__(f"ran past its {limit:g} s deadline")
        self.limit, self.stdout, self.stderr = limit, stdout, stderr


def deadline(variable: str, default: float) -> float:
    """Seconds a run may take: the environment's `variable`, else `default`."""
    try:
        return float(os.environ.get(variable, str(default)))
    except ValueError:
        return default


def stderr_tail(stderr: bytes, lines: int = 12) -> str:
    """The last lines of a run's stderr, for an error message."""
    kept = stderr.decode("utf-8", "replace").splitlines()[-lines:]
    return "\n".join(kept) or "(nothing on stderr)"


def run_cli(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    limit: float,
    stdin: bytes | None = None,
) -> Finished:
    """Run `argv` to its end or its deadline (`DeadlinePassed`); see the module doc. Inside a
    measured bench request its time and its process tree's peak go to the meter (`bench`)."""
    with bench.watch() as started:
        process = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        started(process.pid)
        try:
            stdout, stderr = process.communicate(stdin, timeout=limit)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            stdout, stderr = process.communicate()
            raise DeadlinePassed(limit, stdout, stderr) from None
        finally:
            with suppress(ProcessLookupError):  # what it left running (a tool's shell) goes too
                os.killpg(process.pid, signal.SIGKILL)
            if process.poll() is None:
                process.wait()
    return Finished(process.returncode, stdout, stderr)
