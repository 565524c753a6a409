"""One run of the Codex CLI, closed off: its own HOME, no telemetry, no route out, a deadline.

`codex(command, args, cwd=..., home=...)` starts `node <launcher> <command> -c ...
<args>` (the package's own entry point, which execs the binary) in `cwd` with:

- `HOME` = `home` and `CODEX_HOME` = `home/.codex` (Codex's default place under HOME),
  so the only user files it sees are the request's; nothing else of the caller's
  environment is passed but `PATH` (no API key, no `CODEX_*`, no proxy of the caller's);
- the telemetry switches of 0.171.0 off as `-c` overrides (`OFFLINE`), each checked to
  be a known key by passing it a wrong type and reading the binary's refusal:
  `analytics.enabled`, `feedback.enabled`, `check_for_update_on_startup`, and the three
  OpenTelemetry exporters (`otel.exporter`, `otel.trace_exporter`,
  `otel.metrics_exporter`, whose variants are `none | statsig | otlp-http | otlp-grpc`);
  and the features that reach for the plugin marketplace (`plugins`, `remote_plugin`,
  `plugin_sharing`, `apps`: with them on, `codex exec` ran `git ls-remote
  https://github.com/openai/plugins.git HEAD` and resolved api.github.com, seen with
  `strace -f -e trace=connect,sendto,execve`; with them off, its only connections were
  to the loopback);
- `TMPDIR` = `home`, so the sandbox's scratch folders stay in the request's directory (an
  empty `/tmp/codex-daemon-<uid>`, which its bubblewrap sandbox mounts over, is still
  made in `/tmp`: the adapter runs confined (`transport/confine.py`), so that is its
  private `/tmp` in the run, removed with it, where the kernel has namespaces);
- every HTTP proxy variable pointed at a closed loopback port, loopback excepted
  (`NO_PROXY`), so a request to any other host fails at once instead of leaving;
- stdin closed unless given (`codex exec` otherwise waits for more input), a hard deadline
  (`CTXSPEC_CODEX_TIMEOUT` seconds, default 20; a run takes about 1 s), after which its
  whole process group is killed: without a reachable model Codex retries for a long time.

Standard library only: it runs in the adapter's process (`pyrun.py`).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from ctxspec.conformance.harnesses.kit.cli import DeadlinePassed, deadline, run_cli

__all__ = [
    "OFFLINE",
    "CodexFailed",
    "Ran",
    "codex",
    "config_file",
    "toml_string",
    "utf8",
    "whole_text",
]

OFFLINE: Final = (
    "analytics.enabled=false",
    "feedback.enabled=false",
    "check_for_update_on_startup=false",
    'otel.exporter="none"',
    'otel.trace_exporter="none"',
    'otel.metrics_exporter="none"',
    "features.plugins=false",
    "features.remote_plugin=false",
    "features.plugin_sharing=false",
    "features.apps=false",
)
_NOISE: Final = ("WARNING: proceeding", "Reading additional input from stdin")
_DEAD_PROXY: Final = "http://127.0.0.1:9"  # the discard port: nothing listens on it


class CodexFailed(RuntimeError):
    """Codex exited with an error or ran past its deadline; the message has its stderr."""


@dataclass(frozen=True, slots=True)
class Ran:
    stdout: bytes
    stderr: str


def _env(home: Path) -> dict[str, str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "CODEX_HOME": str(home / ".codex"),
        "LANG": "C.UTF-8",
        "NO_COLOR": "1",
        "TMPDIR": str(home),  # its sandbox's scratch folders go here, not in the shared /tmp
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
    }
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        env[name] = env[name.lower()] = _DEAD_PROXY
    return env


_LONE: Final = re.compile("[\ud800-\udfff]")


def whole_text(text: str) -> str:
    """`text` with each lone surrogate as U+FFFD: what a program prints for a wire string
    that has one (UTF-8 has no form for it; Node writes a JavaScript string so)."""
    return _LONE.sub("\ufffd", text)


def utf8(text: str) -> bytes:
    """`text` as the bytes a program prints or a file holds (`whole_text`, in UTF-8)."""
    return whole_text(text).encode("utf-8")


def toml_string(text: str) -> str:
    """`text` as a TOML basic string (JSON's escapes are TOML's)."""
    return json.dumps(text)


def config_file(home: Path) -> Path:
    """`home/.codex/config.toml`, its folder made (Codex's user config file)."""
    folder = home / ".codex"
    if folder.exists() and not folder.is_dir():
        raise CodexFailed(f"{folder} is not a directory: Codex keeps its files there")
    folder.mkdir(parents=True, exist_ok=True)
    return folder / "config.toml"


def codex(
    command: Sequence[str],
    args: Sequence[str] = (),
    *,
    cwd: Path,
    home: Path,
    config: Sequence[str] = (),
    env: dict[str, str] | None = None,
    stdin: bytes | None = None,
    timeout: float | None = None,
) -> Ran:
    """Run `codex <command> -c ... <args>` with the `-c` overrides `OFFLINE` + `config` (see
    the module doc); `stdin` is its input (closed when None)."""
    node, launcher = os.environ.get("CTXSPEC_NODE"), os.environ.get("CTXSPEC_CODEX")
    if not node or not launcher:
        raise CodexFailed("CTXSPEC_NODE and CTXSPEC_CODEX are not set (start it by --impl codex)")
    overrides = [part for item in (*OFFLINE, *config) for part in ("-c", item)]
    argv = [node, launcher, *command, *overrides, *args]
    limit = deadline("CTXSPEC_CODEX_TIMEOUT", 20.0) if timeout is None else timeout
    try:
        done = run_cli(argv, cwd=cwd, env={**_env(home), **(env or {})}, stdin=stdin, limit=limit)
    except DeadlinePassed as passed:
        raise CodexFailed(
            f"codex {' '.join(command)} {passed}: {_tail(passed.stderr, passed.stdout)}"
        ) from None
    if done.returncode != 0:
        raise CodexFailed(
            f"codex {' '.join(command)} exited with status {done.returncode}: "
            f"{_tail(done.stderr, done.stdout)}"
        )
    return Ran(done.stdout, done.stderr.decode("utf-8", "replace"))


def _tail(stderr: bytes, stdout: bytes) -> str:
    """The end of stderr, and the error events of `--json` output (where exec says why)."""
    lines = stderr.decode("utf-8", "replace").splitlines()
    kept = [line for line in lines if not line.startswith(_NOISE)][-12:]
    events = stdout.decode("utf-8", "replace").splitlines()
    kept += [line[:1000] for line in events if '"type":"error"' in line or "failed" in line][-4:]
    return "\n".join(kept) or "(nothing on stderr)"
