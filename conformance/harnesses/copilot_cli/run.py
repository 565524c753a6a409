"""One run of Copilot CLI, closed off: BYOK against the scripted model, offline, a deadline.

`copilot(prompt, model, cwd=..., home=..., tmp=...)` starts the platform binary
(`@github/copilot-linux-x64/copilot`; the `@github/copilot` loader only starts it) as
`copilot -p <prompt> --allow-all-tools --no-auto-update` in `cwd` with:

- `HOME` = `home` and `COPILOT_HOME` = `home/.copilot` (its config, session state, logs
  and the user's `copilot-instructions.md`); `TMPDIR` = `tmp`, where it saves a large
  tool output (Node's `os.tmpdir()`); nothing else of the caller's environment but `PATH`;
- BYOK, as `copilot help environment` documents it: `COPILOT_PROVIDER_BASE_URL` = the
  scripted model (`kit/model.py`, the Chat Completions dialect), a dummy
  `COPILOT_PROVIDER_API_KEY`, `COPILOT_MODEL` = `gpt-4.1`, and `COPILOT_OFFLINE=true`
  ("skips all network access: GitHub authentication, telemetry, web tools, GitHub MCP
  server, and auto-update"); no GitHub login;
- `COPILOT_PKG_CACHE_HOME` = the install's one unpacked package (see the package doc), so
  a fresh HOME does not unpack 235 MB again; `COPILOT_AUTO_UPDATE=false`;
- every HTTP proxy variable pointed at a closed loopback port, loopback excepted, so a
  request to any other host fails at once instead of leaving;
- stdin closed, a hard deadline (`CTXSPEC_COPILOT_TIMEOUT` seconds, default 60; a run
  takes about 2 s), after which its whole process group is killed.

Standard library only: it runs in the adapter's process (`pyrun.py`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from ctxspec.conformance.harnesses.kit.cli import DeadlinePassed, deadline, run_cli, stderr_tail
from ctxspec.conformance.harnesses.kit.model import ModelServer
from ctxspec.conformance.harnesses.kit.model_script import Script
from ctxspec.conformance.harnesses.kit.model_wire import CHAT

__all__ = ["MODEL", "CopilotFailed", "copilot", "message_text", "run_env", "scripted", "utf8"]

MODEL: Final = "gpt-4.1"
_DEAD_PROXY: Final = "http://127.0.0.1:9"  # the discard port: nothing listens on it
_LONE: Final = re.compile("[\ud800-\udfff]")


class CopilotFailed(RuntimeError):
    """Copilot CLI exited with an error or ran past its deadline; the message has its stderr."""


def scripted(script: Script) -> ModelServer:
    """The scripted model Copilot CLI asks: the Chat Completions dialect only."""
    return ModelServer(script, dialects=(CHAT,))


def utf8(text: str) -> bytes:
    """`text` as the bytes a file holds: each lone surrogate as U+FFFD (UTF-8 has no form
    for one, and no program prints one)."""
    return _LONE.sub("\ufffd", text).encode("utf-8")


def message_text(content: Any) -> str:
    """A Chat Completions message's content as text (its text parts joined)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def run_env(home: Path, tmp: Path, model: ModelServer, extra: Mapping[str, str]) -> dict[str, str]:
    """The environment of a run (the module doc), `extra` on top."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "COPILOT_HOME": str(home / ".copilot"),
        "TMPDIR": str(tmp),
        "LANG": "C.UTF-8",
        "NO_COLOR": "1",
        "COPILOT_OFFLINE": "true",
        "COPILOT_PROVIDER_BASE_URL": model.base_url,
        "COPILOT_PROVIDER_API_KEY": "ctxspec-mock",
        "COPILOT_MODEL": MODEL,
        "COPILOT_AUTO_UPDATE": "false",
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
    }
    cache = os.environ.get("CTXSPEC_COPILOT_PKG_CACHE")
    if cache:
        env["COPILOT_PKG_CACHE_HOME"] = cache
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        env[name] = env[name.lower()] = _DEAD_PROXY
    env.update(extra)
    return env


def copilot(
    prompt: str,
    model: ModelServer,
    *,
    cwd: Path,
    home: Path,
    tmp: Path,
    env: Mapping[str, str] | None = None,
    options: Sequence[str] = (),
) -> str:
    """Run `copilot -p <prompt> --allow-all-tools` (and `options`) against `model`
    (serving), `env` on top of the module doc's; its stdout."""
    binary = os.environ.get("CTXSPEC_COPILOT")
    if not binary:
        raise CopilotFailed("CTXSPEC_COPILOT is not set (start it by --impl copilot-cli)")
    home.mkdir(parents=True, exist_ok=True)
    tmp.mkdir(parents=True, exist_ok=True)
    argv = [binary, "-p", prompt, "--allow-all-tools", "--no-auto-update", *options]
    limit = deadline("CTXSPEC_COPILOT_TIMEOUT", 60.0)
    try:
        done = run_cli(argv, cwd=cwd, env=run_env(home, tmp, model, env or {}), limit=limit)
    except DeadlinePassed as passed:
        raise CopilotFailed(f"copilot {passed}: {stderr_tail(passed.stderr)}") from None
    model.check()  # an unscripted request names itself first
    if done.returncode != 0:
        raise CopilotFailed(
            f"copilot exited with status {done.returncode}: {stderr_tail(done.stderr)}"
        )
    return done.stdout.decode("utf-8", "replace")
