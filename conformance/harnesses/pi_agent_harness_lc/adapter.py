"""Protocol v1 for the PyPI port `pi-agent-harness-lc` (module `pi_agent_harness`).

Run by the port's own venv python through `pyrun.py` (see `pi_agent_harness_lc.install`),
so it imports the standard library, the port, and of ctxspec only the protocol loop
(`jsonlines`) and the tree code (`tree`: a case's tree is checked and laid out as for
every adapter, so nothing in a case reaches outside its temp directory). Each
handler converts the wire arguments (Pi's camelCase JSON) into the port's pydantic
values, calls the port's public API, and converts the answer back. It never fixes
behaviour: what the port answers differently from Pi is a finding for
`expectations/pi-agent-harness-lc-0.6.0.yaml`.

Listed ops, with the port function each stands on:

    tokens.estimate       compaction.estimate_message_tokens(message)
    compaction.should     compaction.should_compact(tokens, contextWindow, settings)
    compaction.serialize  compaction.compaction.serialize_conversation(messages)
    messages.convert      messages.harness_convert_to_llm(messages)
    session.parse         JsonlSessionStorage.open on an in-memory file
    session.context       Session(MemorySessionStorage(entries, leaf)).build_context()
    branch.summarize      prepare_branch_entries + create_branch_summary (as navigate_tree)
    session.navigate      AgentHarness(...).navigate_tree(targetId, options)
    skills.load           skills.load_skills(LocalExecutionEnv, skillPaths)
    skills.format         skills.format_skills_for_system_prompt(skills)
    prompt.build          system_prompt.build_harness_system_prompt(customPrompt, resources)

Not listed, because a required result field has no counterpart in the port:
`context.estimate` (one integer, no usage split), `compaction.cut_point` (no index API,
no turn start), `compaction.prepare` (no turn-prefix messages, no file operations),
`compaction.compact` (requests carry no cache retention), `compaction.failure` (no such
check), `branch.collect` (no common ancestor), `branch.prepare` (entries, not messages
and file operations), `session.run`, and every truncation, tool, discovery and trust op
(not in this package).
"""

from __future__ import annotations

import itertools
import json
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, Final

from ctxspec.conformance.harnesses.kit.jsonlines import InvalidInput, Unsupported, dispatch, serve
from ctxspec.conformance.harnesses.kit.tree import laid_out, real_argument, real_path, virtualize
from ctxspec.conformance.harnesses.pi_agent_harness_lc.values import (
    Args,
    _call,
    _compaction,
    _core_messages,
    _core_stream,
    _core_types,
    _entry_out,
    _harness,
    _message,
    _message_out,
    _messages,
    _messages_in,
    _run,
    _settings,
    _skills,
    _storage,
    _summaries,
    _system_prompt,
    _types,
)

VERSION: Final = "0.6.0"

# --- sessions ----------------------------------------------------------------------------


class _MemoryFile:
    """The port's `JsonlStorageFs` over one in-memory session file."""

    def __init__(self, text: str) -> None:
        self.text = text

    async def read_text_file(self, path: str) -> str:
        return self.text

    async def read_text_lines(self, path: str, max_lines: int | None = None) -> list[str]:
        lines = self.text.splitlines()
        return lines if max_lines is None else lines[:max_lines]

    async def write_file(self, path: str, content: str | bytes) -> None:
        self.text = content if isinstance(content, str) else content.decode()

    async def append_file(self, path: str, content: str | bytes) -> None:
        self.text += content if isinstance(content, str) else content.decode()


_SESSION_FILE: Final = "session.jsonl"


def _open_jsonl(text: Any) -> Any:
    if not isinstance(text, str):
        raise InvalidInput("jsonl", "must be a string")
    return _run(_storage.JsonlSessionStorage.open(_MemoryFile(text), _SESSION_FILE))


class _Budgeted(dict[str, Any]):
    """The storage's id index, with a lookup budget: a parentId cycle makes the port's
    path walk endless, and the budget turns that into `internal` (as the Pi adapter's)."""

    def __init__(self, index: Mapping[str, Any], budget: int) -> None:
        super().__init__(index)
        self.left = budget

    def get(self, key: str, default: Any = None) -> Any:
        self.left -= 1
        if self.left < 0:
            raise RuntimeError("lookup budget exhausted walking parentId links (a cycle?)")
        return super().get(key, default)


_UNSET: Final = object()


def _typed_entries(args: Args) -> tuple[Any, list[Any], Any]:
    """(metadata, the port's entries, the leaf the case asks for, or `_UNSET`)."""
    if "jsonl" in args:
        storage = _open_jsonl(args["jsonl"])
        metadata, entries = _run(storage.get_metadata()), _run(storage.get_entries())
    else:
        raw = args.get("entries")
        if not isinstance(raw, list):
            raise InvalidInput("entries", "must be a list")
        header: Any = None
        if raw and isinstance(raw[0], dict) and raw[0].get("type") == "session":
            header, raw = raw[0], raw[1:]  # the port keeps the header as metadata
        metadata = _types.SessionMetadata(
            id=str((header or {}).get("id", "session")),
            createdAt=str((header or {}).get("timestamp", "1970-01-01T00:00:00.000Z")),
        )
        parse = _storage.JsonlSessionStorage.parse_entry_line
        entries = [parse(json.dumps(entry), "entries", index) for index, entry in enumerate(raw, 1)]
    return metadata, entries, args.get("leafId", _UNSET)


def _storage_for(metadata: Any, entries: list[Any], leaf: Any) -> Any:
    memory = _harness.MemorySessionStorage
    if leaf is _UNSET:  # absent: the last entry, as the port's own `from_entries` decides
        storage = memory.from_entries(metadata, entries)
    else:
        storage = memory(metadata, entries, leaf)
    storage._by_id = _Budgeted(storage._by_id, 4 * len(entries) + 64)
    return storage


def _context_out(context: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"messages": [_message_out(m) for m in context.messages]}
    out["thinkingLevel"] = context.thinkingLevel
    out["model"] = context.model
    return out


def session_parse(args: Args) -> Any:
    storage = _open_jsonl(args.get("jsonl"))
    first = next(line for line in args["jsonl"].splitlines() if line.strip())
    header = _storage.JsonlSessionStorage.parse_header_line(first, _SESSION_FILE)
    return {"entries": [header, *(_entry_out(e) for e in _run(storage.get_entries()))]}


def session_context(args: Args) -> Any:
    storage = _storage_for(*_typed_entries(args))
    return _context_out(_run(_harness.Session(storage).build_context()))


# --- the scripted model: the port's StreamFn ---------------------------------------------


class _ScriptedModel:
    """A `StreamFn` answering with the request's scripted reply and recording the calls."""

    def __init__(self, model: Mapping[str, Any]) -> None:
        self.reply = model.get("reply")
        self.requests: list[dict[str, Any]] = []

    async def __call__(self, model: Any, context: Any, options: Any = None) -> Any:
        prompt = [m.content for m in context.messages]
        self.requests.append(
            {
                "systemPrompt": context.system_prompt,
                "prompt": prompt[0] if len(prompt) == 1 else prompt,
                # the port's StreamOptions has no output cap: none is sent
                "maxTokens": None,
            }
        )
        if self.reply is None:
            raise InvalidInput("model.reply", "a summary request needs a scripted reply")
        reply = self.reply
        content = reply.get("content")
        if content is None:
            content = [{"type": "text", "text": reply.get("text", "")}]
        stop = reply.get("stopReason", "stop")
        message = _core_messages.AssistantMessage(
            content=content,
            api=model.api,
            provider=model.provider,
            model=model.model_id,
            usage=_core_messages.Usage.model_validate(reply.get("usage") or {}),
            stopReason=stop,
            errorMessage=reply.get("errorMessage"),
        )
        stream = _core_stream.AssistantMessageEventStream()
        stream.push(_core_types.StartEvent(partial=message.model_copy(deep=True)))
        if stop in ("error", "aborted"):
            stream.push(
                _core_types.ErrorEvent(
                    partial=message.model_copy(deep=True),
                    reason=stop,
                    error_message=reply.get("errorMessage"),
                )
            )
        else:
            done = "toolUse" if stop == "toolUse" else "stop"
            stream.push(_core_types.DoneEvent(partial=message.model_copy(deep=True), reason=done))
        stream.set_final_message(message)
        stream.end()
        return stream


def _model(raw: Mapping[str, Any]) -> Any:
    limits = {}
    if "contextWindow" in raw:
        limits["context_window"] = raw["contextWindow"]
    return _core_types.Model(
        provider=raw.get("provider", "anthropic"), model_id=raw.get("id", "scripted"), **limits
    )


def _no_replace(args: Args) -> None:
    if args.get("replaceInstructions"):
        raise Unsupported("the port has no replaceInstructions: it always uses its own prompt")


def branch_summarize(args: Args) -> Any:
    _no_replace(args)
    raw_model = args.get("model") or {}
    scripted, model = _ScriptedModel(raw_model), _model(raw_model)
    _, entries, _ = _typed_entries({"entries": args.get("entries")})
    reserve = args.get("reserveTokens", _types.CompactionSettings().reserve_tokens)
    # the port's navigate_tree composes its branch summary so: budget, then prepare, then summarise
    budget = (model.context_window or 32_000) - reserve
    prepared = _compaction.prepare_branch_entries(entries, max(1, budget))
    result = _run(
        _summaries.create_branch_summary(prepared, scripted, model, args.get("customInstructions"))
    )
    request = scripted.requests[0] if scripted.requests else None
    if result is None:  # the port's "nothing to summarise" is None: no field to report
        return {"result": {}, "request": request}
    details = result.details or {}
    out = {"summary": result.summary}
    out |= {k: details[k] for k in ("readFiles", "modifiedFiles") if k in details}
    return {"result": out, "request": request}


def _renamer(new: list[Any], timestamp: str) -> Callable[[Any], Any]:
    """Names `new-1`, `new-2`, ... for the appended entries, references included, and the
    request's timestamp (the port draws random ids and reads the clock), as PROTOCOL.md asks."""
    counter: Iterator[int] = itertools.count(1)
    names = {entry.id: f"new-{next(counter)}" for entry in new}

    def rename(value: Any) -> Any:
        if isinstance(value, str):
            return names.get(value, value)
        return value

    for entry in new:
        update: dict[str, Any] = {"id": rename(entry.id), "timestamp": timestamp}
        for key in ("parentId", "targetId", "fromId", "firstKeptEntryId"):
            if hasattr(entry, key):
                update[key] = rename(getattr(entry, key))
        for key, value in update.items():
            object.__setattr__(entry, key, value)
    return rename


def session_navigate(args: Args) -> Any:
    _no_replace(args)
    metadata, entries, leaf = _typed_entries(args)
    storage = _storage_for(metadata, entries, leaf)
    before = len(_run(storage.get_entries()))
    leaf_before = _run(storage.get_leaf_id())
    raw_model = args.get("model") or {}
    settings = {}
    if "reserveTokens" in args:
        settings["reserve_tokens"] = args["reserveTokens"]
    harness = _harness.AgentHarness(
        session=_harness.Session(storage),
        model=_model(raw_model),
        stream_fn=_ScriptedModel(raw_model),
        compaction=_types.CompactionSettings(**settings),
    )
    options = {"summarize": bool(args.get("summarize", False))}
    if args.get("customInstructions") is not None:
        options["customInstructions"] = args["customInstructions"]
    if args.get("label") is not None:
        options["label"] = args["label"]
    target = args.get("targetId")
    try:
        moved = _call(lambda: _run(harness.navigate_tree(target, options)))
    except _types.HarnessError as error:  # the port refused the move (not a validation)
        return {"error": str(error), "leafId": leaf_before, "appended": []}
    every = _run(storage.get_entries())
    appended = every[before:]
    rename = _renamer(appended, str(args.get("timestamp")))
    leaf_after = rename(_run(storage.get_leaf_id()))
    fresh = _harness.MemorySessionStorage(metadata, every, leaf_after)
    out: dict[str, Any] = {"cancelled": False}
    if moved.editorText is not None:
        out["editorText"] = moved.editorText
    summaries = [e for e in appended if e.type == "branch_summary"]
    if summaries:
        out["summaryEntry"] = _entry_out(summaries[-1])
    out["leafId"] = leaf_after
    out["appended"] = [_entry_out(e) for e in appended]
    out["context"] = _context_out(_run(_harness.Session(fresh).build_context()))
    return out


# --- skills and the system prompt --------------------------------------------------------


def skills_load(args: Args) -> Any:
    if args.get("includeDefaults") is not False:
        raise Unsupported("the port's load_skills has no default locations, only given paths")
    with laid_out(args.get("tree"), prefix="ctxspec-hlc-") as root:
        env = _harness.LocalExecutionEnv(real_path(root, args["cwd"]))
        paths = [real_argument(root, p) for p in args.get("skillPaths") or ()]
        loaded = _run(_skills.load_skills(env, paths))
        skills = [
            {
                "name": s.name,
                "description": s.description,
                "filePath": s.filePath,
                # the port's Skill has no baseDir; its skill invocation uses the file's parent
                "baseDir": str(Path(s.filePath).parent),
                "disableModelInvocation": s.disableModelInvocation,
            }
            for s in loaded.skills
        ]
        diagnostics = [  # the port's extra `code` has no place in Pi's shape
            {"type": d.type, "message": d.message, "path": d.path} for d in loaded.diagnostics
        ]
        return virtualize({"skills": skills, "diagnostics": diagnostics}, root)


def _skills_in(raw: Any) -> list[Any]:
    return [
        _types.Skill(
            name=s["name"],
            description=s["description"],
            content="",  # the port's Skill carries the body; formatting never reads it
            filePath=s["filePath"],
            disableModelInvocation=s.get("disableModelInvocation") is True,
        )
        for s in raw or ()
    ]


def skills_format(args: Args) -> Any:
    if (args.get("fileReadTool") or "read") != "read":
        raise Unsupported("the port's skills block always names the read tool")
    return _skills.format_skills_for_system_prompt(_skills_in(args.get("skills")))


_PROMPT_INPUTS_NOT_IN_PORT: Final = (
    "selectedTools",
    "toolSnippets",
    "promptGuidelines",
    "appendSystemPrompt",
    "contextFiles",
)


def prompt_build(args: Args) -> Any:
    given = [k for k in _PROMPT_INPUTS_NOT_IN_PORT if args.get(k)]
    if given:
        raise Unsupported(f"build_harness_system_prompt takes no {', '.join(given)}")
    resources = _types.AgentHarnessResources(skills=_skills_in(args.get("skills")))
    return _system_prompt.build_harness_system_prompt(args.get("customPrompt") or "", resources)


# --- tokens, compaction, messages --------------------------------------------------------


def tokens_estimate(args: Args) -> Any:
    return _compaction.estimate_message_tokens(_message(args.get("message")))


def compaction_should(args: Args) -> Any:
    if "messages" in args:
        tokens = _compaction.estimate_context_tokens(_messages_in(args["messages"]))
    else:
        tokens = args.get("contextTokens")
    decided = _compaction.should_compact(
        tokens, args.get("contextWindow"), _settings(args.get("settings"))
    )
    return {"shouldCompact": decided, "contextTokens": tokens}


def compaction_serialize(args: Args) -> Any:
    return _summaries.serialize_conversation(_messages_in(args.get("messages")))


def messages_convert(args: Args) -> Any:
    # harness_convert_to_llm takes typed messages and the dicts of session replay alike
    return [
        _message_out(m) for m in _messages.harness_convert_to_llm(list(args.get("messages") or []))
    ]


def _guarded(handler: Callable[[Args], Any]) -> Callable[[Args], Any]:
    return lambda args: _call(lambda: handler(args))


HANDLERS: Final[dict[str, Callable[[Args], Any]]] = {
    op: _guarded(handler)
    for op, handler in {
        "tokens.estimate": tokens_estimate,
        "compaction.should": compaction_should,
        "compaction.serialize": compaction_serialize,
        "messages.convert": messages_convert,
        "session.parse": session_parse,
        "session.context": session_context,
        "branch.summarize": branch_summarize,
        "session.navigate": session_navigate,
        "skills.load": skills_load,
        "skills.format": skills_format,
        "prompt.build": prompt_build,
    }.items()
}


def main() -> None:
    language = f"python {sys.version_info.major}.{sys.version_info.minor}"
    hello = {"implementation": {"name": "pi-agent-harness-lc", "version": VERSION}}
    hello["implementation"]["language"] = language
    serve(dispatch(HANDLERS, hello))


if __name__ == "__main__":
    main()
