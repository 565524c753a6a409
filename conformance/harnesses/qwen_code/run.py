"""One run of the Qwen Code CLI, closed off: its own HOME, no telemetry, no route out, a deadline.

`qwen(prompt, model, cwd=..., home=...)` starts `<node> <cli.js> "<prompt>" --approval-mode
yolo` (the bundle's own entry point on the lock's Node 22) in `cwd` with:

- `HOME` = `home`, where `home/.qwen/settings.json` says `security.auth.selectedType =
  "openai"` (the OpenAI-compatible provider, its key and model from the environment),
  usage statistics and telemetry off and no update check (merged over a settings.json
  the request's tree holds); nothing else of the caller's
  environment is passed but `PATH`;
- `OPENAI_BASE_URL` = the scripted model (`kit/model.py`, Chat Completions dialect),
  `OPENAI_API_KEY` a dummy, `OPENAI_MODEL` = `qwen3-coder-plus` (the model its window and
  compression threshold are looked up for);
- every HTTP proxy variable pointed at a closed loopback port, loopback excepted
  (`NO_PROXY`), so a request to any other host fails at once instead of leaving;
- stdin closed, a hard deadline (`CTXSPEC_QWEN_TIMEOUT` seconds, default 40; a run takes
  about 3 s), after which its whole process group is killed.

Standard library only: it runs in the adapter's process (`pyrun.py`).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from ctxspec.conformance.harnesses.kit.cli import DeadlinePassed, deadline, run_cli, stderr_tail
from ctxspec.conformance.harnesses.kit.model import ModelServer
from ctxspec.conformance.harnesses.kit.model_script import Script
from ctxspec.conformance.harnesses.kit.model_wire import CHAT

__all__ = ["MODEL", "QwenFailed", "Ran", "qwen", "qwen_dir", "scripted", "settings_file", "utf8"]

MODEL: Final = "qwen3-coder-plus"
SETTINGS: Final[dict[str, Any]] = {
    "security": {"auth": {"selectedType": "openai"}},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
}
_DEAD_PROXY: Final = "http://127.0.0.1:9"  # the discard port: nothing listens on it


class QwenFailed(RuntimeError):
    """Qwen Code exited with an error or ran past its deadline; the message has its stderr."""


@dataclass(frozen=True, slots=True)
class Ran:
    stdout: str
    stderr: str


def scripted(script: Script) -> ModelServer:
    """The scripted model Qwen Code asks: the Chat Completions dialect only."""
    return ModelServer(script, dialects=(CHAT,))


_LONE: Final = re.compile("[\ud800-\udfff]")


def utf8(text: str) -> bytes:
    """`text` as the bytes a file holds: each lone surrogate as U+FFFD (UTF-8 has no form
    for one; Node writes a JavaScript string so)."""
    return _LONE.sub("\ufffd", text).encode("utf-8")


def qwen_dir(home: Path) -> Path:
    """`home/.qwen`, made (where Qwen Code keeps the user's files)."""
    folder = home / ".qwen"
    if folder.exists() and not folder.is_dir():
        raise QwenFailed(f"{folder} is not a directory: Qwen Code keeps its files there")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _merged(base: Any, over: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base) if isinstance(base, dict) else {}
    for key, value in over.items():
        merged[key] = _merged(merged.get(key), value) if isinstance(value, dict) else value
    return merged


def settings_file(home: Path, extra: dict[str, Any] | None = None) -> Path:
    """`home/.qwen/settings.json`, `SETTINGS` and `extra` merged over what it holds (a
    file that is no JSON object is replaced)."""
    path = qwen_dir(home) / "settings.json"
    try:
        before = json.loads(path.read_text()) if path.is_file() else {}
    except (OSError, ValueError):
        before = {}
    path.write_text(json.dumps(_merged(_merged(before, SETTINGS), extra or {}), indent=2) + "\n")
    return path


def _env(home: Path, model: ModelServer) -> dict[str, str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "NO_COLOR": "1",
        "TMPDIR": str(home),
        "OPENAI_BASE_URL": model.base_url,
        "OPENAI_API_KEY": "ctxspec-mock",
        "OPENAI_MODEL": MODEL,
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
    }
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        env[name] = env[name.lower()] = _DEAD_PROXY
    return env


def qwen(
    prompt: str,
    model: ModelServer,
    *,
    cwd: Path,
    home: Path,
    settings: dict[str, Any] | None = None,
    options: Sequence[str] = (),
) -> Ran:
    """Run `qwen "<prompt>" --approval-mode yolo <options>` against `model` (serving),
    `settings` merged into the user's settings.json; see the module doc."""
    node, cli = os.environ.get("CTXSPEC_QWEN_NODE"), os.environ.get("CTXSPEC_QWEN")
    if not node or not cli:
        raise QwenFailed("CTXSPEC_QWEN_NODE and CTXSPEC_QWEN are not set (start it by --impl)")
    settings_file(home, settings)
    argv = [node, cli, prompt, "--approval-mode", "yolo", *options]
    limit = deadline("CTXSPEC_QWEN_TIMEOUT", 40.0)
    try:
        done = run_cli(argv, cwd=cwd, env=_env(home, model), limit=limit)
    except DeadlinePassed as passed:
        raise QwenFailed(f"qwen {passed}: {stderr_tail(passed.stderr)}") from None
    if done.returncode != 0:
        raise QwenFailed(f"qwen exited with status {done.returncode}: {stderr_tail(done.stderr)}")
    return Ran(done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace"))
