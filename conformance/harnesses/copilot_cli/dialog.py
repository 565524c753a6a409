"""Copilot CLI's trusted-folders dialog, driven through a pseudo-terminal.

An interactive `copilot` (no `-p`) asks, before anything else, "Do you trust the files in
this folder?" (1. Yes, 2. Yes, and remember this folder for future sessions, 3. No (Esc)).
`trust_dialog(answer)` starts it in a pseudo-terminal (Python's `pty`), in a project that
holds an `AGENTS.md` and a `.github/hooks/*.json` whose `sessionStart` and
`userPromptSubmitted` hooks each leave a file, with the environment of every run
(`run.py`: BYOK against the scripted model, offline, a private HOME and TMPDIR), and
reports what happened before the answer and after it:

- before: whether the dialog came, which hooks ran, how many model requests were made;
- after `no` (Esc): whether Copilot ended, which hooks ran, the requests;
- after `yes` or `remember`: a prompt is typed and sent; which hooks ran, whether the
  project's `AGENTS.md` reached the first request, and the folders config.json records.

`python -m ctxspec.conformance.harnesses.copilot_cli.dialog ANSWER` prints the report as
one JSON line (the tests run it confined, `transport/confine.py`, as every agent run is).
Standard library only, with the harness's `run.py`.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import select
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import time
from contextlib import suppress
from pathlib import Path
from typing import Any, Final

from ctxspec.conformance.harnesses.copilot_cli.instructions import TRUSTED, system_text
from ctxspec.conformance.harnesses.copilot_cli.run import run_env, scripted
from ctxspec.conformance.harnesses.kit.model_script import Text, Turn, Usage

__all__ = ["ANSWERS", "QUESTION", "trust_dialog"]

QUESTION: Final = "Do you trust the files in this folder?"
ANSWERS: Final = {"no": ("\x1b",), "yes": ("\r",), "remember": ("2", "\r")}
PROJECT_TEXT: Final = "PROJECT AGENTS ctxspec rules"
_HOOKS: Final = ("sessionStart", "userPromptSubmitted")
_ROWS, _COLUMNS = 40, 120


def _project(root: Path) -> Path:
    project = root / "proj"
    (project / ".github" / "hooks").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True, capture_output=True)
    (project / "AGENTS.md").write_text(PROJECT_TEXT + "\n")
    hooks = {
        name: [{"type": "command", "bash": f"touch {root}/ran-{name}", "timeoutSec": 10}]
        for name in _HOOKS
    }
    (project / ".github" / "hooks" / "ctxspec.json").write_text(
        json.dumps({"version": 1, "hooks": hooks})
    )
    return project


def _ran(root: Path) -> list[str]:
    return sorted(path.name.removeprefix("ran-") for path in root.glob("ran-*"))


class _Screen:
    """What the pseudo-terminal showed, read as it comes."""

    def __init__(self, fd: int) -> None:
        self.fd, self.text = fd, ""

    def read(self, seconds: float, until: str | None = None) -> bool:
        """Read for `seconds`, or until `until` was shown; whether the other side is open."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if until is not None and until in self.text:
                return True
            ready, _, _ = select.select([self.fd], [], [], 0.1)
            if not ready:
                continue
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:  # the other side closed: Copilot ended
                return False
            if not chunk:
                return False
            self.text += chunk.decode("utf-8", "replace")
        return True


def trust_dialog(answer: str, *, deadline: float = 40.0) -> dict[str, Any]:
    """Start an interactive Copilot in a fresh project, give `answer` to its trust
    dialog (`no`, `yes`, `remember`), and report what ran and reached the model."""
    keys = ANSWERS[answer]
    binary = os.environ.get("CTXSPEC_COPILOT")
    if not binary:
        raise RuntimeError("CTXSPEC_COPILOT is not set (start it by --impl copilot-cli)")
    report: dict[str, Any] = {"answer": answer}
    with tempfile.TemporaryDirectory(prefix="ctxspec-copilot-dialog-") as temp:
        root = Path(os.path.realpath(temp))
        project, home, tmp = _project(root), root / "home", root / "tmp"
        home.mkdir()
        tmp.mkdir()
        reply = Turn((Text("done"),), Usage(input_tokens=1))
        with scripted(lambda _request: reply) as model:
            env = run_env(home, tmp, model, {"TERM": "xterm-256color"})
            master, slave = pty.openpty()
            fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", _ROWS, _COLUMNS, 0, 0))
            process = subprocess.Popen(
                [binary, "--no-auto-update"],
                cwd=project,
                env=env,
                stdin=slave,
                stdout=slave,
                stderr=slave,
                start_new_session=True,
            )
            os.close(slave)
            screen = _Screen(master)
            try:
                screen.read(deadline, until=QUESTION)
                report["dialog"] = QUESTION in screen.text
                report["before"] = {"hooks": _ran(root), "requests": len(model.requests)}
                for key in keys:
                    os.write(master, key.encode())
                    screen.read(1.0)
                open_ = screen.read(3.0)
                report["ended"] = not open_ or process.poll() is not None
                if not report["ended"]:
                    os.write(master, b"ctxspec")
                    screen.read(1.0)
                    os.write(master, b"\r")
                    end = time.monotonic() + deadline
                    while not model.requests and time.monotonic() < end:
                        screen.read(0.5)
                    screen.read(2.0)  # the hooks of that prompt
                first = model.bodies[0] if model.bodies else None
                report["after"] = {
                    "hooks": _ran(root),
                    "requests": len(model.requests),
                    "project_instructions": PROJECT_TEXT in system_text(first),
                }
            finally:
                with suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait()
                os.close(master)
        try:
            config = json.loads(
                "\n".join(
                    line
                    for line in (home / ".copilot" / "config.json").read_text().splitlines()
                    if not line.lstrip().startswith("//")
                )
            )
        except (OSError, ValueError):
            config = {}
        trusted = config.get(TRUSTED) if isinstance(config, dict) else None
        report["trusted_folders"] = [
            os.path.relpath(folder, root) for folder in trusted or [] if isinstance(folder, str)
        ]
    return report


if __name__ == "__main__":
    print(json.dumps(trust_dialog(sys.argv[1] if len(sys.argv) > 1 else "no")))
