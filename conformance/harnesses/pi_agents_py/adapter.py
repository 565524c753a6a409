"""Protocol v1 for the PyPI port `pi-agents-py` (module `pi_agents`, "Python clone of pi-mono").

Run by the port's own venv python through `pyrun.py` (see `pi_agents_py.install`), so it
imports the standard library, the port, and of ctxspec only the protocol loop
(`jsonlines`) and the tree code (`tree`: a case's tree is checked and laid out as for
every adapter, so nothing in a case reaches outside its temp directory). Each
handler converts the wire arguments (Pi's camelCase JSON) into the port's arguments,
calls the port's public API, and converts the answer back (snake_case dataclasses to
Pi's camelCase objects). It never fixes behaviour: what the port answers differently
from Pi is a finding for `expectations/pi-agents-py-0.58.3.yaml`.

Listed ops, with the port function each stands on:

    truncate.head         coding_agent.tools.truncate.truncate_head(content, max_lines, max_bytes)
    truncate.tail         coding_agent.tools.truncate.truncate_tail(content, max_lines, max_bytes)
    truncate.line         coding_agent.tools.truncate.truncate_line(line, max_chars)
    format.size           coding_agent.tools.truncate.format_size(bytes)
    tool.read             create_read_tool(cwd).execute(...) on the laid-out tree
    tool.bash             create_bash_tool(cwd).execute(...) on `cat <fixture>; exit N`
    tool.grep             create_grep_tool(cwd).execute(...) on the laid-out tree
    tokens.estimate       coding_agent.compaction.estimate_message_tokens(message)
    compaction.should     coding_agent.compaction.should_compact(tokens, window, settings)
    compaction.serialize  coding_agent.compaction.serialize_conversation(messages)
    messages.convert      agent.Agent's default convert_to_llm (the port has no other)
    skills.load           coding_agent.skills.load_skills(skill_paths, project_dir)
    skills.format         coding_agent.skills.format_skills_for_prompt(skills)

Messages travel as the wire's dicts: the port's `AgentMessage` is `Message | dict`, and
every function above reads dicts and its dataclasses alike.

A tool's `execute()` returns an `AgentToolResult` (content, details) and has no error
flag: as the port's agent loop (`_execute_tool`) does, a result is `isError: false` and
an exception raised by `execute()` is `isError: true` with `str(exception)` as the text.

Not listed, because the port has no counterpart: `stream.tail` (no accumulator),
`context.estimate` (no usage split: `ContextUsageEstimate` is declared, never computed),
`compaction.cut_point`, `compaction.prepare`, `compaction.compact`,
`compaction.failure`, every session and branch op (no session tree, no summaries),
`session.run`, `context.discover`, `trust.resolve`, `resources.load` and `prompt.build`
(no context files, no trust, no resource loader, no system-prompt builder).
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import hashlib
import importlib
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, Final

from ctxspec.conformance.harnesses.kit.jsonlines import (
    Args,
    InvalidInput,
    Unsupported,
    dispatch,
    serve,
)
from ctxspec.conformance.harnesses.kit.tree import laid_out, real_argument, real_path, virtualize

NAME: Final = "pi-agents-py"

# The port's modules, imported by name: they exist only in the port's venv.
_truncate: Any = importlib.import_module("pi_agents.coding_agent.tools.truncate")
_read_tool: Any = importlib.import_module("pi_agents.coding_agent.tools.read_tool")
_bash_tool: Any = importlib.import_module("pi_agents.coding_agent.tools.bash_tool")
_grep_tool: Any = importlib.import_module("pi_agents.coding_agent.tools.grep_tool")
_compaction: Any = importlib.import_module("pi_agents.coding_agent.compaction")
_skills: Any = importlib.import_module("pi_agents.coding_agent.skills")
_config: Any = importlib.import_module("pi_agents.coding_agent.config")
_agent: Any = importlib.import_module("pi_agents.agent.agent")


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _plain(value: Any) -> Any:
    """A port dataclass as Pi's JSON object (snake_case fields in camelCase)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {_camel(f.name): _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _limits(args: Args, names: Mapping[str, str]) -> dict[str, Any]:
    """The limits given (absent or null means the port's own default: no keyword)."""
    return {port: args[wire] for wire, port in names.items() if args.get(wire) is not None}


# --- truncation --------------------------------------------------------------------------

_TRUNCATE_LIMITS: Final = {"maxLines": "max_lines", "maxBytes": "max_bytes"}


_COUNTS: Final = ("totalLines", "totalBytes", "outputLines", "outputBytes")


def _truncation_out(result: Any) -> dict[str, Any]:
    """The port's `TruncationResult` in Pi's shape; a negative count has none on the wire
    (the protocol's counts are integers >= 0), so it is reported as the port's failure."""
    out: dict[str, Any] = _plain(result)
    negative = {key: out[key] for key in _COUNTS if out[key] < 0}
    if negative:
        raise RuntimeError(f"the port answered negative counts {negative}: {out}")
    return out


def truncate_head(args: Args) -> Any:
    return _truncation_out(
        _truncate.truncate_head(args["content"], **_limits(args, _TRUNCATE_LIMITS))
    )


def truncate_tail(args: Args) -> Any:
    return _truncation_out(
        _truncate.truncate_tail(args["content"], **_limits(args, _TRUNCATE_LIMITS))
    )


def truncate_line(args: Args) -> Any:
    text, was_truncated = _truncate.truncate_line(
        args["line"], **_limits(args, {"maxChars": "max_chars"})
    )
    return {"text": text, "wasTruncated": was_truncated}


def format_size(args: Args) -> Any:
    return _truncate.format_size(args["bytes"])


# --- files: the virtual tree on disk (the shared tree code) -----------------------------


@contextmanager
def _environment(**values: str) -> Iterator[None]:
    """Environment variables set for one call (the port reads its agent dir from one)."""
    saved = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, old in saved.items():
            if old is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = old


# --- tools -------------------------------------------------------------------------------


def _execute(tool: Any, params: Args, *, abort_after: float | None = None) -> dict[str, Any]:
    """`tool.execute(...)` as the port's agent loop reads it: a result, or its exception.

    With `abort_after`, the call gets the port's abort signal (an `asyncio.Event`, what
    `Agent.abort()` sets) and the signal is set that many seconds into the call.
    """

    async def run() -> Any:
        signal = None
        if abort_after is not None:
            signal = asyncio.Event()
            asyncio.get_running_loop().call_later(abort_after, signal.set)
        return await tool.execute("ctxspec", params, signal)

    try:
        result = asyncio.run(run())
    except Exception as error:  # the agent loop: is_error = True, text = str(e)
        return {"isError": True, "text": str(error)}
    text = "".join(getattr(block, "text", "") for block in result.content)
    out: dict[str, Any] = {"isError": False, "text": text}
    if result.details is not None:
        out["details"] = _plain(result.details)
    return out


def tool_read(args: Args) -> Any:
    with laid_out(args.get("tree"), prefix="ctxspec-pap-") as root:
        tool = _read_tool.create_read_tool(real_path(root, args.get("cwd") or "/"))
        params: Args = {"path": real_argument(root, args["path"])}
        for key in ("offset", "limit"):
            if args.get(key) is not None:
                params[key] = args[key]
        return virtualize(_execute(tool, params), root)


_GREP_OPTIONS: Final = ("glob", "ignoreCase", "literal", "context", "limit")


def tool_grep(args: Args) -> Any:
    with laid_out(args.get("tree"), prefix="ctxspec-pap-") as root:
        tool = _grep_tool.create_grep_tool(real_path(root, args.get("cwd") or "/"))
        params: Args = {"pattern": args["pattern"]}
        if args.get("path") is not None:
            params["path"] = real_argument(root, args["path"])
        for key in _GREP_OPTIONS:
            if args.get(key) is not None:
                params[key] = args[key]
        return virtualize(_execute(tool, params), root)


# A timeout or an abort comes while the command still runs (Pi's adapter: `sleep 30`,
# abort at 0.7 s). The port's bash tool takes its agent's abort signal, set here at
# 0.7 s. Its timeout kills the shell but then waits for the shell's children, so the
# command sleeps only 3 s: a port that does not end the command answers within the
# request's time instead of timing out.
_ABORT_AFTER: Final = 0.7
_STILL_RUNNING: Final = "; sleep 3"


def tool_bash(args: Args) -> Any:
    exit_code = args.get("exitCode", 0)
    if isinstance(exit_code, bool) or not isinstance(exit_code, int) or not 0 <= exit_code < 256:
        raise InvalidInput("exitCode", "must be an integer 0..255")
    scratch = Path(tempfile.mkdtemp(prefix="ctxspec-pap-bash-"))
    logs = Path(tempfile.mkdtemp(prefix="ctxspec-pap-bash-tmp-"))
    try:
        fixture = scratch / "output.bin"
        fixture.write_bytes(b"".join(base64.b64decode(c) for c in args.get("chunksB64") or ()))
        command = f"cat '{fixture}'"
        still_running = args.get("timedOut") is True or args.get("aborted") is True
        command += _STILL_RUNNING if still_running else f"; exit {exit_code}"
        params: Args = {"command": command}
        if args.get("timedOut") is True:
            params["timeout"] = args.get("timeout", 1)
        tool = _bash_tool.create_bash_tool(str(scratch))
        with _environment(TMPDIR=str(logs)):
            aborting = _ABORT_AFTER if args.get("aborted") is True else None
            out = _execute(tool, params, abort_after=aborting)
        # the protocol's `persisted`: did the tool write a full-output log?
        written = sorted(p for p in logs.iterdir() if p.name.endswith(".log"))
        out["persisted"] = bool(written)
        if written:
            data = written[0].read_bytes()
            out["persistedSha256"] = hashlib.sha256(data).hexdigest()
            out["persistedBytes"] = len(data)
        return out
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        shutil.rmtree(logs, ignore_errors=True)


# --- tokens, compaction, messages --------------------------------------------------------


def _message(raw: Any) -> Any:
    if not isinstance(raw, dict):
        raise InvalidInput("message", "must be an object")
    return raw


def _messages(raw: Any) -> list[Any]:
    if not isinstance(raw, list):
        raise InvalidInput("messages", "must be a list")
    return [_message(m) for m in raw]


_SETTINGS: Final = {
    "enabled": "enabled",
    "reserveTokens": "reserve_tokens",
    "keepRecentTokens": "keep_recent_tokens",
}


def tokens_estimate(args: Args) -> Any:
    return _compaction.estimate_message_tokens(_message(args.get("message")))


def compaction_should(args: Args) -> Any:
    if "contextTokens" not in args:
        raise Unsupported("the port has no estimate of a context's tokens from its messages")
    settings = _compaction.CompactionSettings(**_limits(args.get("settings") or {}, _SETTINGS))
    tokens = args["contextTokens"]
    decided = _compaction.should_compact(tokens, args["contextWindow"], settings)
    return {"shouldCompact": decided, "contextTokens": tokens}


def compaction_serialize(args: Args) -> Any:
    return _compaction.serialize_conversation(_messages(args.get("messages")))


def messages_convert(args: Args) -> Any:
    return _plain(_agent.Agent._default_convert(_messages(args.get("messages"))))


# --- skills ------------------------------------------------------------------------------


def _skill_out(skill: Any) -> dict[str, Any]:
    """A port `Skill` in Pi's shape (the port's extra `source` has no place in it)."""
    return {
        "name": skill.name,
        "description": skill.description,
        "filePath": skill.file_path,
        "baseDir": skill.base_dir,
        "disableModelInvocation": skill.disable_model_invocation,
    }


def _diagnostic_out(diagnostic: Any) -> dict[str, Any]:
    """A port `ResourceDiagnostic`: its `level` is Pi's `type`."""
    return {"type": diagnostic.level, "message": diagnostic.message, "path": diagnostic.path}


def skills_load(args: Args) -> Any:
    with laid_out(args.get("tree"), prefix="ctxspec-pap-") as root:
        cwd = real_path(root, args["cwd"])
        defaults = args.get("includeDefaults") is not False
        # the port's defaults are its agent dir ($PI_CODING_AGENT_DIR/skills) and the
        # project dir (<project_dir>/.pi/skills); without defaults, neither is given:
        # the agent dir points at an empty directory and no project dir is passed
        empty = tempfile.mkdtemp(prefix="ctxspec-pap-none-")
        agent_dir = real_path(root, args["agentDir"]) if defaults else empty
        env = {_config.ENV_AGENT_DIR: agent_dir}
        if args.get("home") is not None:
            env["HOME"] = real_path(root, args["home"])
        before = os.getcwd()
        try:
            with _environment(**env):
                with suppress(OSError):  # the port resolves relative paths from the cwd
                    os.chdir(cwd)
                loaded = _skills.load_skills(
                    [real_argument(root, p) for p in args.get("skillPaths") or ()] or None,
                    project_dir=cwd if defaults else None,
                )
        finally:
            os.chdir(before)
            shutil.rmtree(empty, ignore_errors=True)
        out = {
            "skills": [_skill_out(s) for s in loaded.skills],
            "diagnostics": [_diagnostic_out(d) for d in loaded.diagnostics],
        }
        return virtualize(out, root)


def _skill_in(raw: Mapping[str, Any]) -> Any:
    return _skills.Skill(
        name=raw["name"],
        description=raw["description"],
        file_path=raw["filePath"],
        base_dir=raw.get("baseDir", os.path.dirname(raw["filePath"])),
        source="path",  # the port's formatting never reads it
        disable_model_invocation=raw.get("disableModelInvocation") is True,
    )


def skills_format(args: Args) -> Any:
    if args.get("fileReadTool") not in (None, "read"):
        raise Unsupported("the port's skills block has no file-read-tool choice")
    return _skills.format_skills_for_prompt([_skill_in(s) for s in args.get("skills") or ()])


HANDLERS: Final[dict[str, Callable[[Args], Any]]] = {
    "truncate.head": truncate_head,
    "truncate.tail": truncate_tail,
    "truncate.line": truncate_line,
    "format.size": format_size,
    "tool.read": tool_read,
    "tool.bash": tool_bash,
    "tool.grep": tool_grep,
    "tokens.estimate": tokens_estimate,
    "compaction.should": compaction_should,
    "compaction.serialize": compaction_serialize,
    "messages.convert": messages_convert,
    "skills.load": skills_load,
    "skills.format": skills_format,
}


def main() -> None:
    language = f"python {sys.version_info.major}.{sys.version_info.minor}"
    version = _config.VERSION
    hello = {"implementation": {"name": NAME, "version": version, "language": language}}
    serve(dispatch(HANDLERS, hello))


if __name__ == "__main__":
    main()
