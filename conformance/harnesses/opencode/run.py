"""One run of opencode, closed off: its own HOME, the scripted model, no route out, a deadline.

`opencode_run(model, prompt, cwd=..., home=..., config=...)` starts the platform binary
(`opencode-linux-x64/bin/opencode`; the `opencode-ai` package's `bin/opencode.exe` is a
placeholder its postinstall script replaces, and scripts are not run) as
`opencode run --auto [options] <prompt>` in `cwd` (a prompt of None is given on stdin
alone, which opencode takes as it is: an argument holding a space comes quoted) with:

- `HOME` = `home`, so its config (`~/.config/opencode`), data (`~/.local/share/opencode`:
  sessions, saved tool outputs) and the global instruction files are the request's; nothing
  else of the caller's environment is passed but `PATH`;
- its configuration in `OPENCODE_CONFIG_CONTENT` (JSON), not in a file, so a tree's own
  `~/.config/opencode/opencode.json` is not overwritten: one provider `mock`
  (`npm: "@ai-sdk/openai-compatible"`, bundled in the binary: nothing is fetched) whose
  `options.baseURL` is the scripted model's (`kit/model.py`, Chat Completions dialect), one
  model `mock/ctxspec` with `limit: {context, output}`, and `config`'s keys on top;
- `OPENCODE_DISABLE_MODELS_FETCH`, `OPENCODE_DISABLE_AUTOUPDATE`,
  `OPENCODE_DISABLE_LSP_DOWNLOAD`, `OPENCODE_DISABLE_SHARE` = 1 (models.dev, the update
  check, language-server downloads and session sharing off);
- every HTTP proxy variable pointed at a closed loopback port, loopback excepted, so a
  request to any other host fails at once instead of leaving;
- stdin closed (or holding the given bytes), a hard deadline (`CTXSPEC_OPENCODE_TIMEOUT`
  seconds, default 60; a run takes about 6 s), after which its whole process group is
  killed.

Standard library only: it runs in the adapter's process (`pyrun.py`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from ctxspec.conformance.harnesses.kit.cli import DeadlinePassed, deadline, run_cli, stderr_tail
from ctxspec.conformance.harnesses.kit.model import ModelServer
from ctxspec.conformance.harnesses.kit.model_script import Request, Script
from ctxspec.conformance.harnesses.kit.model_wire import CHAT

__all__ = [
    "MODEL",
    "OpencodeFailed",
    "is_title",
    "opencode_run",
    "scripted",
    "system_text",
]

MODEL: Final = "ctxspec"
PROVIDER: Final = "mock"
SWITCHES: Final = (
    "OPENCODE_DISABLE_MODELS_FETCH",
    "OPENCODE_DISABLE_AUTOUPDATE",
    "OPENCODE_DISABLE_LSP_DOWNLOAD",
    "OPENCODE_DISABLE_SHARE",
)
_DEAD_PROXY: Final = "http://127.0.0.1:9"  # the discard port: nothing listens on it
_TITLE: Final = "You are a title generator"


class OpencodeFailed(RuntimeError):
    """opencode exited with an error or ran past its deadline; the message has its stderr."""


def scripted(script: Script) -> ModelServer:
    """The scripted model opencode asks: the Chat Completions dialect only."""
    return ModelServer(script, dialects=(CHAT,))


def is_title(request: Request) -> bool:
    """Whether `request` is opencode's title request (made before the main loop, no tools)."""
    return _TITLE in system_text(request.body)


def system_text(body: Any) -> str:
    """The system messages of a Chat Completions body, joined by blank lines."""
    if not isinstance(body, dict):
        return ""
    return "\n\n".join(
        _text(message.get("content"))
        for message in body.get("messages") or []
        if isinstance(message, dict) and message.get("role") == "system"
    )


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def _config(model: ModelServer, context: int, output: int, extra: Mapping[str, Any]) -> str:
    provider = {
        "npm": "@ai-sdk/openai-compatible",
        "name": "ctxspec mock",
        "options": {"baseURL": model.base_url, "apiKey": "ctxspec-mock"},
        "models": {MODEL: {"name": MODEL, "limit": {"context": context, "output": output}}},
    }
    config = {"provider": {PROVIDER: provider}, "model": f"{PROVIDER}/{MODEL}", **extra}
    return json.dumps(config)


def _env(home: Path, config: str) -> dict[str, str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "NO_COLOR": "1",
        "TMPDIR": str(home),
        "OPENCODE_CONFIG_CONTENT": config,
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
    }
    env.update(dict.fromkeys(SWITCHES, "1"))
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        env[name] = env[name.lower()] = _DEAD_PROXY
    return env


def opencode_run(
    model: ModelServer,
    prompt: str | None,
    *,
    cwd: Path,
    home: Path,
    context: int = 256_000,
    output: int = 4_000,
    config: Mapping[str, Any] | None = None,
    options: Sequence[str] = (),
    stdin: bytes | None = None,
) -> bytes:
    """`opencode run --auto [options] <prompt>` against `model` (serving); its stdout.

    `stdin`: bytes on its standard input (else closed); a prompt of None is not given as an
    argument, so opencode takes the message from stdin alone."""
    binary = os.environ.get("CTXSPEC_OPENCODE")
    if not binary:
        raise OpencodeFailed("CTXSPEC_OPENCODE is not set (start it by --impl opencode)")
    home.mkdir(parents=True, exist_ok=True)
    env = _env(home, _config(model, context, output, config or {}))
    argv = [binary, "run", "--auto", *options, *([] if prompt is None else [prompt])]
    try:
        done = run_cli(
            argv, cwd=cwd, env=env, stdin=stdin, limit=deadline("CTXSPEC_OPENCODE_TIMEOUT", 60.0)
        )
    except DeadlinePassed as passed:
        raise OpencodeFailed(f"opencode run {passed}: {stderr_tail(passed.stderr)}") from None
    model.check()  # an unscripted request names itself first
    if done.returncode != 0:
        raise OpencodeFailed(
            f"opencode run exited with status {done.returncode}: {stderr_tail(done.stderr)}"
        )
    return done.stdout
