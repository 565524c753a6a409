"""One run of Claude Code, closed off: its own HOME, the scripted model, no route out, a deadline.

`claude_run(model, prompt, cwd=..., home=..., settings=...)` starts the platform
executable (`@anthropic-ai/claude-code-linux-x64/claude`; the launcher package's
`bin/claude.exe` is a placeholder its postinstall script replaces, and scripts are not
run) as `claude -p <prompt> --output-format json --allowedTools Bash` in `cwd` with:

- `HOME` = `home` (and `TMPDIR` in it), so its state (`~/.claude.json`, `~/.claude/`:
  sessions, saved tool outputs, the global `CLAUDE.md`) is the request's; of the caller's
  environment only `PATH` is passed (the adapter itself runs confined:
  `transport/confine.py`);
- `~/.claude.json` pre-seeded (`hasCompletedOnboarding`, the key approved) unless the
  tree has one, so nothing asks the way onboarding does;
- `ANTHROPIC_BASE_URL` = the scripted model's origin (`kit/model.py`, Anthropic Messages
  dialect; Claude Code asks `POST /v1/messages?beta=true`, streamed), a dummy
  `ANTHROPIC_API_KEY`, and `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC`,
  `DISABLE_AUTOUPDATER`, `DISABLE_TELEMETRY`, `DISABLE_ERROR_REPORTING` = 1;
- `--settings <json>` where the request sets one (`bashOutputMaxChars`);
- every HTTP proxy variable pointed at a closed loopback port, loopback excepted;
- stdin closed, a hard deadline (`CTXSPEC_CLAUDE_TIMEOUT` seconds, default 60; a run
  takes 1 to 3 s), after which its whole process group is killed.

Standard library only: it runs in the adapter's process (`pyrun.py`).
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import signal
import struct
import subprocess
import termios
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from ctxspec.conformance.harnesses.kit import bench
from ctxspec.conformance.harnesses.kit.cli import DeadlinePassed, deadline, run_cli, stderr_tail
from ctxspec.conformance.harnesses.kit.model import ModelServer
from ctxspec.conformance.harnesses.kit.model_script import Script
from ctxspec.conformance.harnesses.kit.model_wire import MESSAGES

__all__ = [
    "API_KEY",
    "ClaudeFailed",
    "Dialog",
    "claude_dialog",
    "claude_run",
    "message_text",
    "scripted",
    "seed_state",
]

API_KEY: Final = "sk-ctxspec-mock"
SWITCHES: Final = (
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC",
    "DISABLE_AUTOUPDATER",
    "DISABLE_TELEMETRY",
    "DISABLE_ERROR_REPORTING",
)
STATE: Final = ".claude.json"  # in HOME: onboarding, approved keys, trust per directory
_DEAD_PROXY: Final = "http://127.0.0.1:9"  # the discard port: nothing listens on it


class ClaudeFailed(RuntimeError):
    """Claude Code exited with an error or ran past its deadline; the message has its output."""


def scripted(script: Script) -> ModelServer:
    """The scripted model Claude Code asks: the Anthropic Messages dialect only."""
    return ModelServer(script, dialects=(MESSAGES,))


def seed_state(home: Path, projects: Mapping[str, Any] | None = None) -> None:
    """`~/.claude.json` with onboarding done and the mock key approved (not over a tree's)."""
    path = home / STATE
    if path.exists():
        return
    state: dict[str, Any] = {
        "hasCompletedOnboarding": True,
        "customApiKeyResponses": {"approved": [API_KEY[-20:]], "rejected": []},
    }
    if projects:
        state["projects"] = dict(projects)
    home.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(state))


def message_text(content: Any) -> str:
    """The text of a message's (or a tool result's) content: a string or its text blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(block.get("text", ""))
            for block in content
            if isinstance(block, dict) and block.get("type") == "text"
        )
    return ""


def _timeout() -> float:
    return deadline("CTXSPEC_CLAUDE_TIMEOUT", 60.0)


def _env(model: ModelServer, home: Path) -> dict[str, str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "NO_COLOR": "1",
        "TMPDIR": str(home / "tmp"),
        "ANTHROPIC_BASE_URL": model.url,
        "ANTHROPIC_API_KEY": API_KEY,
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
    }
    env.update(dict.fromkeys(SWITCHES, "1"))
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        env[name] = env[name.lower()] = _DEAD_PROXY
    return env


def claude_run(
    model: ModelServer,
    prompt: str,
    *,
    cwd: Path,
    home: Path,
    settings: Mapping[str, Any] | None = None,
    options: Sequence[str] = (),
) -> dict[str, Any]:
    """`claude -p <prompt> --output-format json` against `model` (serving); its result."""
    binary = os.environ.get("CTXSPEC_CLAUDE")
    if not binary:
        raise ClaudeFailed("CTXSPEC_CLAUDE is not set (start it by --impl claude-code)")
    seed_state(home)
    (home / "tmp").mkdir(parents=True, exist_ok=True)
    command = [binary, "-p", prompt, "--output-format", "json", "--allowedTools", "Bash"]
    if settings:
        command += ["--settings", json.dumps(dict(settings))]
    command += list(options)
    try:
        done = run_cli(command, cwd=cwd, env=_env(model, home), limit=_timeout())
    except DeadlinePassed as passed:
        raise ClaudeFailed(f"claude -p {passed}: {stderr_tail(passed.stderr)}") from None
    stdout, stderr = done.stdout, done.stderr
    model.check()  # an unscripted request names itself first
    try:
        result = json.loads(stdout)
    except ValueError:
        result = None
    if done.returncode != 0 or not isinstance(result, dict) or result.get("is_error"):
        shown = stdout.decode("utf-8", "replace")[-600:] or stderr_tail(stderr)
        raise ClaudeFailed(f"claude -p exited with status {done.returncode}: {shown}")
    return result


# The workspace trust dialog, driven in a pseudo-terminal

_ASKS: Final = "Yes, I trust this folder"  # the dialog's second choice
_REFUSED: Final = "didn't start because this folder isn't trusted"
_ESCAPES: Final = re.compile(
    r"\x1b(\[[0-9;?<>=]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-B]|[78=>])"
)
_SIZE: Final = struct.pack("HHHH", 40, 120, 0, 0)  # rows, columns: the dialog fits


@dataclass(frozen=True, slots=True)
class Dialog:
    """What an interactive start showed: whether the trust dialog asked, how many model
    requests came before it was answered, and the screen's text (escapes taken out)."""

    asked: bool
    requests_before: int
    screen: str


def _screen(raw: bytes | bytearray) -> str:
    return re.sub(r"\s+", " ", _ESCAPES.sub(" ", raw.decode("utf-8", "replace")))


def _read_until(fd: int, raw: bytearray, done: Callable[[], object], limit: float) -> None:
    end = time.monotonic() + limit
    while time.monotonic() < end and not done():
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                return
            if not chunk:
                return
            raw.extend(chunk)


def claude_dialog(model: ModelServer, prompt: str, *, cwd: Path, home: Path) -> Dialog:
    """`claude <prompt>` started interactively in a pseudo-terminal (120 x 40) in `cwd`:
    if the workspace trust dialog asks, it is refused (Esc: "No, exit"), and the process
    is ended once it says it did not start (or at the deadline). Nothing is answered yes."""
    binary = os.environ.get("CTXSPEC_CLAUDE")
    if not binary:
        raise ClaudeFailed("CTXSPEC_CLAUDE is not set (start it by --impl claude-code)")
    seed_state(home)
    (home / "tmp").mkdir(parents=True, exist_ok=True)
    env = _env(model, home)
    env.pop("NO_COLOR")
    env["TERM"] = "xterm-256color"
    with bench.watch() as started:  # a bench op times this run as it times run_cli's
        leader, follower = pty.openpty()
        fcntl.ioctl(follower, termios.TIOCSWINSZ, _SIZE)
        process = subprocess.Popen(
            [binary, prompt], cwd=cwd, env=env, stdin=follower, stdout=follower,
            stderr=follower, start_new_session=True,
        )  # fmt: skip
        started(process.pid)
        os.close(follower)
        raw = bytearray()
        limit = _timeout()
        try:
            _read_until(leader, raw, lambda: _ASKS in _screen(raw) or model.requests, limit)
            asked = _ASKS in _screen(raw)
            before = len(model.requests)
            if asked:  # Esc until it says it did not start (a key pressed while it still
                # sets the terminal up is lost)
                end = time.monotonic() + limit
                while _REFUSED not in _screen(raw) and time.monotonic() < end:
                    os.write(leader, b"\x1b")
                    _read_until(leader, raw, lambda: _REFUSED in _screen(raw), 1.0)
            else:  # no dialog: the session runs; wait for its first request to be answered
                _read_until(leader, raw, lambda: bool(model.requests), limit)
                _read_until(leader, raw, lambda: False, 1.0)
        finally:
            with suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            os.close(leader)
    model.check()
    return Dialog(asked=asked, requests_before=before, screen=_screen(bytes(raw)))
